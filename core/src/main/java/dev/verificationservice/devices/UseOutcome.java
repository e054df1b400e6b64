package dev.verificationservice.devices;

/** Every outcome of the atomic write that uses a device token. */
public sealed interface UseOutcome {

    /** The condition held: {@code token} is the token after the write (slid, and re-keyed if asked). */
    record Used(DeviceToken token) implements UseOutcome {
    }

    /**
     * The condition failed: the token is gone, expired, past its maximum life, or was revoked by a revoke-all
     * (also one that ran between the read and this write). Nothing was written.
     */
    record Refused() implements UseOutcome {
    }
}
