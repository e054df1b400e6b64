package dev.verificationservice.server.security;

import dev.verificationservice.server.config.ServiceProperties;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Set;
import org.springframework.stereotype.Component;

/**
 * Which application keys may vouch for a human ({@code humanVerified: true} on a send, which passes an open SMS
 * breaker): those whose ids {@code VERIFICATION_HUMAN_VERIFIED_KEYS} lists. A permission on top of the
 * application role, held by the key's id so that the setting holds no secret.
 */
@Component
public class HumanVerifiedKeys {

    private final Set<String> permitted;

    public HumanVerifiedKeys(ServiceProperties properties) {
        this.permitted = Set.copyOf(properties.humanVerifiedKeys());
    }

    /** Whether the application key that authenticated {@code request} holds the permission. */
    public boolean permits(HttpServletRequest request) {
        return request.getAttribute(ApiKeyFilter.CLIENT_KEY_ID) instanceof String keyId && permitted.contains(keyId);
    }
}
