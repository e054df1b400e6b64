package dev.verificationservice.client;

import dev.verificationservice.client.AuditQuery;
import dev.verificationservice.client.CodeType;
import dev.verificationservice.client.DeliveryMethod;
import dev.verificationservice.client.DeviceRegistration;
import dev.verificationservice.client.PresentedCode;
import dev.verificationservice.client.RegisteredDevice;
import dev.verificationservice.client.SendCodeRequest;
import dev.verificationservice.client.SendResult;
import dev.verificationservice.client.VerificationClient;
import dev.verificationservice.client.VerifyResult;
import java.net.URI;
import java.util.function.Supplier;

/** Signs a person up against a running service: an email code, then a remembered device. */
public final class SignUpFlow {

    public static String signUp(URI serviceUri, String apiKey, String userId, String email,
                                Supplier<String> askThePerson) {
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
    }

    private SignUpFlow() {
    }
}
