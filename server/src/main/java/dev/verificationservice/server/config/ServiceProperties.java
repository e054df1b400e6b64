package dev.verificationservice.server.config;

import dev.verificationservice.console.ConsoleSettings;
import java.util.List;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The server's own settings under {@code verification.*}: who may call the HTTP API and the operator API, and
 * how long a console session lives. Everything else ({@code verification.store}, the limits, delivery, ...) is
 * the starter's {@code VerificationProperties}, bound from the same prefix.
 *
 * @param apiKeys      application keys for {@code /v1} ({@code VERIFICATION_API_KEYS}); generated in the data
 *                     directory on the embedded store when not set
 * @param adminApiKeys operator keys for {@code /v1/admin} and the console ({@code VERIFICATION_ADMIN_API_KEYS});
 *                     never generated: without them both are off
 * @param console      the support console's sessions ({@link ConsoleSettings})
 * @param humanVerifiedKeys ids ({@code app-…}, as the start logs them) of the application keys that may send
 *                     {@code humanVerified: true} ({@code VERIFICATION_HUMAN_VERIFIED_KEYS}); empty: none may
 */
@ConfigurationProperties(prefix = "verification")
public record ServiceProperties(List<String> apiKeys, List<String> adminApiKeys, @DefaultValue ConsoleSettings console,
                                List<String> humanVerifiedKeys) {

    public ServiceProperties {
        humanVerifiedKeys = humanVerifiedKeys == null ? List.of() : List.copyOf(humanVerifiedKeys);
    }

    /** Printed without the keys. */
    @Override
    public String toString() {
        return "ServiceProperties[apiKeys=" + count(apiKeys) + " redacted, adminApiKeys=" + count(adminApiKeys)
                + " redacted, console=" + console + ", humanVerifiedKeys=" + humanVerifiedKeys + "]";
    }

    private static int count(List<String> keys) {
        return keys == null ? 0 : keys.size();
    }
}
