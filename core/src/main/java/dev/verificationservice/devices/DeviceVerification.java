package dev.verificationservice.devices;

import java.time.Instant;

/** Every outcome of presenting a remember-me secret. */
public sealed interface DeviceVerification {

    boolean valid();

    /** The secret belongs to an unexpired token; its expiry has slid to {@code expiresAt}. */
    record Valid(String userId, String deviceId, Instant expiresAt) implements DeviceVerification {
        @Override
        public boolean valid() {
            return true;
        }
    }

    record Invalid(Reason reason) implements DeviceVerification {
        @Override
        public boolean valid() {
            return false;
        }
    }

    enum Reason {
        /** No token of this device has this secret (never registered, or revoked). */
        NOT_FOUND,
        /** The token exists but was not used within the device lifetime. */
        EXPIRED
    }
}
