package dev.verificationservice.client;

import java.time.Instant;

/** The outcome of {@code POST /v1/devices/verify}. A valid use slides the device's expiry. */
public sealed interface DeviceVerifyResult permits DeviceVerifyResult.Valid, DeviceVerifyResult.Invalid {

    boolean valid();

    /** The device is remembered: whose it is, and its new expiry. */
    record Valid(String userId, Instant expiresAt) implements DeviceVerifyResult {
        @Override
        public boolean valid() {
            return true;
        }
    }

    record Invalid(InvalidDeviceReason reason) implements DeviceVerifyResult {
        @Override
        public boolean valid() {
            return false;
        }
    }
}
