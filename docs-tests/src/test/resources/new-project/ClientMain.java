package example;

import dev.verificationservice.client.VerificationClient;
import java.net.URI;

/** The client as a new project builds it; nothing is called, since no service runs. */
public class ClientMain {

    public static void main(String[] args) {
        VerificationClient client = VerificationClient.builder().baseUri(URI.create("http://127.0.0.1:1"))
                .apiKey("new-project-key").build();
        System.out.println("client built: " + client.getClass().getName());
    }
}
