package dev.verificationservice.devices;

import java.util.Optional;

/** Every outcome of the conditional write that slides a device token's expiry on use. */
public sealed interface TouchOutcome {

    /** The token existed and was unexpired; {@code token} is the item after the write. */
    record Touched(DeviceToken token) implements TouchOutcome {
    }

    /** The condition failed; {@code current} is the stored item if there is one (an expired token). */
    record Rejected(Optional<DeviceToken> current) implements TouchOutcome {
    }
}
