package dev.verificationservice.client;

import java.net.URI;
import java.util.function.Supplier;

/**
 * The README's "Call the service from Java" snippet: the lines between the markers below are the README's
 * text exactly ({@link ReadmeExampleTest} checks it), and {@link ReadmeExampleTest} runs them against the real
 * server, so the snippet can neither stop compiling nor stop working.
 */
final class ReadmeExample {

    static final String BEGIN = "// BEGIN README: call the service from Java";
    static final String END = "// END README";

    private ReadmeExample() {
    }

    static String signUp(URI serviceUri, String apiKey, String userId, String email, Supplier<String> askThePerson) {
        // BEGIN README: call the service from Java
        VerificationClient client = VerificationClient.builder()
                .baseUri(serviceUri)                         // e.g. http://localhost:8080
                .apiKey(apiKey)                              // one of VERIFICATION_API_KEYS
                .build();                                    // immutable and thread-safe: share it

        SendResult sent = client.codes().send(
                SendCodeRequest.of(userId, CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL, email));
        if (sent instanceof SendResult.RateLimited limited) {
            return "Too many requests; try again in " + limited.retryAfter().toSeconds() + " s";
        }

        String typed = askThePerson.get();                   // the code from the email
        VerifyResult result = client.codes().verify(
                PresentedCode.numeric(typed, userId, CodeType.EMAIL_VERIFICATION));
        if (result instanceof VerifyResult.Invalid invalid) {
            return "Not verified: " + invalid.reason();      // NOT_FOUND, EXPIRED, USED, TOO_MANY_ATTEMPTS
        }

        RegisteredDevice device = client.devices().register(DeviceRegistration.of(userId, "laptop-1", "WEB"));
        // device.secret() goes to the device (a remember-me cookie); later: client.devices().verify(id, secret)

        client.audit().events(AuditQuery.of(userId)).limit(20)  // follows the pages' cursors as it goes
                .forEach(event -> System.out.println(event.timestamp() + " " + event.eventType()));
        return "Verified " + userId + "; device " + device.deviceId() + " remembered until " + device.expiresAt();
        // END README
    }
}
