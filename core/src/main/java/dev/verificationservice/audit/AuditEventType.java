package dev.verificationservice.audit;

/** Every security event the service records. */
public enum AuditEventType {
    CODE_SENT,
    CODE_DELIVERY_FAILED,
    CODE_VERIFIED,
    CODE_VERIFICATION_FAILED,
    CODES_INVALIDATED,
    RATE_LIMITED,
    DEVICE_ADDED,
    DEVICE_VERIFIED,
    DEVICE_REVOKED,
    DEVICES_REVOKED,
    /** An operator lifted a rate limit or lock-out (details: action, operatorKeyId). */
    RATE_LIMIT_RESET
}
