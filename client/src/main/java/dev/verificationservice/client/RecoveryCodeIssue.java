package dev.verificationservice.client;

import java.util.List;

/**
 * The outcome of {@code POST /v1/users/{userId}/recovery-codes}: {@link Issued} (201) or {@link Conflict} (409
 * {@code RECOVERY_CODES_CONFLICT}). A user without a confirmed factor is a {@link ProblemException} of code
 * {@code NO_FACTOR}; anything else is an exception too.
 */
public sealed interface RecoveryCodeIssue permits RecoveryCodeIssue.Issued, RecoveryCodeIssue.Conflict {

    /** The user's new set, shown this once; the earlier set is void. */
    record Issued(List<String> recoveryCodes) implements RecoveryCodeIssue {
        public Issued {
            recoveryCodes = List.copyOf(recoveryCodes);
        }

        /** Never shows the codes. */
        @Override
        public String toString() {
            return "Issued[" + recoveryCodes.size() + " recovery code(s), redacted]";
        }
    }

    /**
     * Another request for the same user's new set came first, and this one wrote nothing: the user's codes are the
     * ones that request answered. Show those, or issue again for a new set, which voids them.
     *
     * @param detail the service's explanation, for logs
     */
    record Conflict(String detail) implements RecoveryCodeIssue {
    }
}
