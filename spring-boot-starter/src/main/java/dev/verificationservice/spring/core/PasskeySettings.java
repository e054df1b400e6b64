package dev.verificationservice.spring.core;

import dev.verificationservice.passkeys.PasskeyPolicy;
import dev.verificationservice.spring.StartupException;
import dev.verificationservice.spring.VerificationProperties;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@code verification.passkeys.*} as the domain's {@link PasskeyPolicy}, each refusal a start-up error naming its
 * setting: a wrong RP ID or origin would otherwise fail every registration in the browser, one user at a time.
 */
final class PasskeySettings {

    static final String RP_ID = "VERIFICATION_PASSKEYS_RP_ID";
    static final String ORIGINS = "VERIFICATION_PASSKEYS_ORIGINS";
    /** What the embedded store's service answers on, as {@code ./run} starts it. */
    static final String LOCAL_ORIGIN = "http://localhost:8080";

    private PasskeySettings() {
    }

    /** The policy, or empty when passkeys are off (no RP ID on DynamoDB, where {@code localhost} would be wrong). */
    static Optional<PasskeyPolicy> policy(VerificationProperties properties) {
        VerificationProperties.Passkeys passkeys = properties.passkeys();
        Set<String> origins = new LinkedHashSet<>();
        for (String origin : passkeys.origins() == null ? List.<String>of() : passkeys.origins()) {
            if (!origin.isBlank()) {
                origins.add(origin.trim());
            }
        }
        String rpId = passkeys.rpId() == null ? "" : passkeys.rpId().trim();
        if (rpId.isEmpty() && properties.store() == VerificationProperties.StoreKind.DYNAMODB) {
            if (!origins.isEmpty()) {
                throw new StartupException(ORIGINS + " is set, but " + RP_ID + " is not.", "Set " + RP_ID
                        + " to the host name the origins are on (for example example.com), or unset " + ORIGINS
                        + " to leave passkeys off.");
            }
            return Optional.empty();
        }
        if (rpId.isEmpty()) {
            rpId = "localhost";
        }
        try {
            PasskeyPolicy.of(rpId, "rp", Set.of("https://" + rpId));
        } catch (IllegalArgumentException e) {
            throw new StartupException(RP_ID + " '" + rpId + "' is not usable: " + e.getMessage() + ".", "Set " + RP_ID
                    + " to the host name of the site, lower-case, without scheme or port (for example example.com).");
        }
        if (origins.isEmpty()) {
            if (!rpId.equals("localhost")) {
                throw new StartupException(RP_ID + " is " + rpId + ", but " + ORIGINS + " is not set.", "Set "
                        + ORIGINS + " to the origins of the pages that call WebAuthn, comma-separated, for example "
                        + "https://login." + rpId + ".");
            }
            origins.add(LOCAL_ORIGIN);
        }
        try {
            PasskeyPolicy.of(rpId, "rp", origins);
        } catch (IllegalArgumentException e) {
            throw new StartupException(ORIGINS + " is not usable: " + e.getMessage() + ".", "Set " + ORIGINS
                    + " to scheme://host[:port] origins on " + rpId + " or a host under it, over https (http only on "
                    + "localhost), comma-separated.");
        }
        try {
            return Optional.of(new PasskeyPolicy(rpId, passkeys.rpName(), origins, passkeys.challengeLifetime(),
                    passkeys.maxPerUser(), passkeys.userVerificationRequired(), PasskeyPolicy.DEFAULT_VERIFY_LIMIT));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new StartupException("A passkey setting is not usable: " + e.getMessage() + ".",
                    "Set VERIFICATION_PASSKEYS_CHALLENGE_LIFETIME above 0 and at most PT10M, "
                            + "VERIFICATION_PASSKEYS_MAX_PER_USER from 1 to 50, and VERIFICATION_PASSKEYS_RP_NAME.");
        }
    }
}
