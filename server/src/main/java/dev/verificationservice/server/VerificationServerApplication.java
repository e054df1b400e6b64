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

    public static void main(String[] args) {
        if (args.length > 0 && args[0].equals(CreateTableCommand.NAME)) {
            System.exit(CreateTableCommand.run(Arrays.copyOfRange(args, 1, args.length)));
        }
        SpringApplication.run(VerificationServerApplication.class, args);
    }
}
