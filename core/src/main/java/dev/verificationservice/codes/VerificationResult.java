package dev.verificationservice.codes;

import java.time.Instant;
import java.util.Optional;

/** Every outcome of checking or verifying a code. */
public sealed interface VerificationResult {

    boolean valid();

    /**
     * The code is valid (check) or was valid and is now used up (verify).
     *
     * @param expiresAt until when the code stays valid: present after a check; empty after a verify, since a
     *                  used code has no validity left
     */
    record Valid(String userId, CodeType codeType, Optional<Instant> expiresAt) implements VerificationResult {
        @Override
        public boolean valid() {
            return true;
        }
    }

    /** The code is not valid; {@code userId} and {@code codeType} are known when the request named them. */
    record Invalid(FailureReason reason, Optional<String> userId, Optional<CodeType> codeType)
            implements VerificationResult {
        @Override
        public boolean valid() {
            return false;
        }
    }
}
