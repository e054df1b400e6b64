package dev.verificationservice.recovery;

/** Every outcome of issuing a user a new set of recovery codes. */
public sealed interface RecoveryCodeIssue {

    /** The set is the user's now; the old one is void. */
    record Issued(IssuedRecoveryCodes codes) implements RecoveryCodeIssue {
    }

    /**
     * Another issue replaced the set this one read, first: nothing was written, and the user's codes are the ones
     * that other issue answered. Issuing again makes a new set, voiding that one.
     */
    record Conflict() implements RecoveryCodeIssue {
    }
}
