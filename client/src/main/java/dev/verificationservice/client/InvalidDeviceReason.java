package dev.verificationservice.client;

/** Why a device's remember-me secret was not valid. */
public enum InvalidDeviceReason {
    /** No token of this device has this secret (never registered, or revoked). */
    NOT_FOUND,
    /** The token was not used within the device lifetime, or reached its maximum life. */
    EXPIRED,
    /** A reason this version of the client does not know (a newer service). */
    UNKNOWN;

    static InvalidDeviceReason of(String name) {
        for (InvalidDeviceReason reason : values()) {
            if (reason.name().equals(name)) {
                return reason;
            }
        }
        return UNKNOWN;
    }
}
