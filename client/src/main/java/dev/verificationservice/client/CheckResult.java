package dev.verificationservice.client;

import java.time.Instant;
import java.util.Optional;

/**
 * The outcome of {@code POST /v1/codes/check}: whether the code would verify, without using it up. A failed
 * check counts like a failed verification (the call is no guessing oracle).
 */
public sealed interface CheckResult permits CheckResult.Valid, CheckResult.Invalid {

    boolean valid();

    /** The code is valid: whose it is, for what, and until when. */
    record Valid(String userId, CodeType codeType, Optional<Instant> expiresAt) implements CheckResult {
        @Override
        public boolean valid() {
            return true;
        }
    }

    record Invalid(InvalidCodeReason reason) implements CheckResult {
        @Override
        public boolean valid() {
            return false;
        }
    }
}
