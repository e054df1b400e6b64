package dev.verificationservice.passkeys;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;

/**
 * A challenge handed out in registration or sign-in options: 32 random bytes, answerable once until
 * {@code expiresAt}. A registration challenge is bound to its user and user handle; a sign-in challenge to the user
 * named in the options, or to nobody for a username-less sign-in.
 *
 * @param challenge  the challenge, base64url without padding: also its key
 * @param consumedBy the attempt that used it, once one did (a retry of that attempt is recognised by it)
 */
public record PasskeyChallenge(String challenge, Purpose purpose, Optional<String> userId,
                               Optional<String> userHandle, Instant expiresAt, Optional<String> consumedBy) {

    public enum Purpose { REGISTRATION, SIGN_IN }

    public PasskeyChallenge {
        Objects.requireNonNull(challenge, "challenge");
        Objects.requireNonNull(purpose, "purpose");
        Objects.requireNonNull(userId, "userId");
        Objects.requireNonNull(userHandle, "userHandle");
        Objects.requireNonNull(expiresAt, "expiresAt");
        Objects.requireNonNull(consumedBy, "consumedBy");
    }

    /** Answerable at {@code now}: not used and not expired. */
    public boolean isOpenAt(Instant now) {
        return consumedBy.isEmpty() && now.isBefore(expiresAt);
    }

    /** Whether this is a registration challenge issued to the user. */
    public boolean isRegistrationOf(String user) {
        return purpose == Purpose.REGISTRATION && userId.equals(Optional.of(user));
    }

    public PasskeyChallenge consumed(String attemptId) {
        return new PasskeyChallenge(challenge, purpose, userId, userHandle, expiresAt, Optional.of(attemptId));
    }
}
