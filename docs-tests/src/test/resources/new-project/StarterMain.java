package example;

import dev.verificationservice.Verification;
import dev.verificationservice.codes.CodeRequest;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.IssueResult;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.SpringBootApplication;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.sqlite.SQLiteJDBCLoader;

/** A host application's smallest start on the starter: the Verification bean, one code sent, then the end. */
@SpringBootApplication
public class StarterMain {

    public static void main(String[] args) {
        try (ConfigurableApplicationContext context = new SpringApplicationBuilder(StarterMain.class)
                .web(WebApplicationType.NONE).run(args)) {
            IssueResult sent = context.getBean(Verification.class).codes().issue(
                    CodeRequest.of("new-user", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL, "new@example.com"));
            System.out.println("started on sqlite-jdbc " + SQLiteJDBCLoader.getVersion() + ", code issued: "
                    + (sent instanceof IssueResult.Issued));
        }
    }
}
