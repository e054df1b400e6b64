package dev.verificationservice.passkeys;

import dev.verificationservice.ratelimit.RateLimitPolicy;
import java.net.URI;
import java.time.Duration;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * The relying party's passkey settings, checked when the service is built so a wrong RP ID or origin fails at start
 * rather than at every sign-in: the RP ID is a host name, and every allowed origin is https (or http on localhost)
 * with a host that is the RP ID or under it, as WebAuthn requires.
 *
 * @param challengeLifetime how long a registration or sign-in challenge can be answered (default 5 minutes)
 * @param maxPasskeys       how many passkeys one user may register (bounds the user's items and allowCredentials)
 * @param verifyLimit       the window limit of the counted factor {@value PasskeyService#VERIFY_ACTION}
 */
public record PasskeyPolicy(String rpId, String rpName, Set<String> origins, Duration challengeLifetime,
                            int maxPasskeys, boolean userVerificationRequired, RateLimitPolicy verifyLimit) {

    public static final Duration DEFAULT_CHALLENGE_LIFETIME = Duration.ofMinutes(5);
    public static final int DEFAULT_MAX_PASSKEYS = 10;
    public static final RateLimitPolicy DEFAULT_VERIFY_LIMIT = new RateLimitPolicy(5, Duration.ofMinutes(15));

    public PasskeyPolicy {
        Objects.requireNonNull(rpId, "rpId");
        Objects.requireNonNull(rpName, "rpName");
        Objects.requireNonNull(challengeLifetime, "challengeLifetime");
        Objects.requireNonNull(verifyLimit, "verifyLimit");
        origins = Set.copyOf(origins);
        if (!rpId.matches("[a-z0-9]([a-z0-9-]*[a-z0-9])?(\\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*")) {
            throw new IllegalArgumentException("passkey RP ID must be a lower-case host name, not '" + rpId + "'");
        }
        if (origins.isEmpty()) {
            throw new IllegalArgumentException("passkeys need at least one allowed origin");
        }
        origins.forEach(origin -> checkOrigin(rpId, origin));
        if (challengeLifetime.isNegative() || challengeLifetime.isZero()
                || challengeLifetime.compareTo(Duration.ofMinutes(10)) > 0) {
            throw new IllegalArgumentException("passkey challenge lifetime must be above 0 and at most 10 minutes");
        }
        if (maxPasskeys < 1 || maxPasskeys > 50) {
            throw new IllegalArgumentException("maxPasskeys must be 1 to 50, not " + maxPasskeys);
        }
    }

    /** The defaults for one RP ID and its origins. */
    public static PasskeyPolicy of(String rpId, String rpName, Set<String> origins) {
        return new PasskeyPolicy(rpId, rpName, origins, DEFAULT_CHALLENGE_LIFETIME, DEFAULT_MAX_PASSKEYS, false,
                DEFAULT_VERIFY_LIMIT);
    }

    private static void checkOrigin(String rpId, String origin) {
        URI uri;
        try {
            uri = URI.create(origin);
        } catch (IllegalArgumentException e) {
            throw new IllegalArgumentException("passkey origin '" + origin + "' is not a URI", e);
        }
        String host = uri.getHost() == null ? "" : uri.getHost().toLowerCase(Locale.ROOT);
        boolean local = "localhost".equals(host);
        boolean secure = "https".equals(uri.getScheme()) || (local && "http".equals(uri.getScheme()));
        if (!secure || (uri.getPath() != null && !uri.getPath().isEmpty()) || uri.getQuery() != null) {
            throw new IllegalArgumentException("passkey origin '" + origin
                    + "' must be scheme://host[:port] over https (http only on localhost)");
        }
        if (!host.equals(rpId) && !host.endsWith("." + rpId)) {
            throw new IllegalArgumentException("passkey origin '" + origin + "' is not on the RP ID " + rpId);
        }
    }
}
