package dev.verificationservice.server;

import dev.verificationservice.server.store.CreateTableCommand;
import java.util.Arrays;
import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * {@code java -jar verification-server.jar} starts the service; {@code java -jar verification-server.jar
 * create-table} creates the DynamoDB table (on-demand, GSI1, TTL on {@code ttl}) and exits.
 */
@SpringBootApplication
public class VerificationServerApplication {

    /**
     * Spring Boot's background pre-initialisation (Bean Validation, Jackson, message converters on a thread of its
     * own during the start) is off unless set: on the two cores the service is sized for, the JIT's threads already
     * use the second one, and its Bean Validation part, a bootstrap of Hibernate Validator, is work for nothing
     * here (see LazyValidation); the main thread does the rest when it needs it. docs/deployment.md, "Starting fast".
     */
    static final String BACKGROUND_PREINITIALIZER = "spring.backgroundpreinitializer.ignore";

    public static void main(String[] args) {
        if (System.getProperty(BACKGROUND_PREINITIALIZER) == null) {
            System.setProperty(BACKGROUND_PREINITIALIZER, "true");
        }
        if (args.length > 0 && args[0].equals(CreateTableCommand.NAME)) {
            System.exit(CreateTableCommand.run(Arrays.copyOfRange(args, 1, args.length)));
        }
        SpringApplication.run(VerificationServerApplication.class, args);
    }
}
