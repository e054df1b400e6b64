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
    RATE_LIMIT_RESET,
    /** A TOTP factor was enrolled, pending its confirmation (details: factorId, label). */
    TOTP_ENROLLED,
    /** A pending TOTP factor was confirmed with a code from the app (details: factorId). */
    TOTP_CONFIRMED,
    /** A TOTP code was accepted (details: factorId, step). */
    TOTP_VERIFIED,
    /** A TOTP code was refused, or a confirmation failed; the failure reason says why (details: operation). */
    TOTP_VERIFICATION_FAILED,
    /** TOTP factors were removed (details: count, factorId when one was named). */
    TOTP_REMOVED,
    /** A new set of recovery codes was issued; the previous set is void (details: count, voided). */
    RECOVERY_CODES_ISSUED,
    /** A recovery code was used (details: remaining). */
    RECOVERY_CODE_USED,
    /** A recovery code was refused; the failure reason says why. */
    RECOVERY_CODE_FAILED,
    /**
     * The webhook relay disabled an endpoint (failing three days, or a 410 answer); recorded under the endpoint's id
     * in place of a user id (details: endpointId, reason).
     */
    WEBHOOK_ENDPOINT_DISABLED,
    /**
     * A number range's SMS breaker opened (many sends, few verified); recorded under the range's subject
     * {@code smsrange:+<prefix>} in place of a user id (details: range, country, sent, verified, until, mode).
     */
    SMS_RANGE_BLOCKED,
    /** An operator lifted a range's SMS breaker; recorded like {@link #SMS_RANGE_BLOCKED} (details: range, operatorKeyId). */
    SMS_RANGE_RELEASED,
    /** An operator allowed a range: its breaker never refuses it; recorded like {@link #SMS_RANGE_RELEASED}. */
    SMS_RANGE_ALLOWED,
    /** An operator removed a range's allow; recorded like {@link #SMS_RANGE_RELEASED}. */
    SMS_RANGE_DISALLOWED,
    /** A passkey was registered (details: credentialId, label). */
    PASSKEY_ADDED,
    /** A passkey sign-in succeeded (details: credentialId). */
    PASSKEY_VERIFIED,
    /** A passkey assertion was refused (reason; details: credentialId, check). */
    PASSKEY_VERIFICATION_FAILED,
    /** A passkey was revoked (details: credentialId, label). */
    PASSKEY_REVOKED,
    /** A passkey's sign count did not move forwards, refused as possibly cloned (details: the two counts). */
    PASSKEY_CLONE_WARNING,
    /** A passkey registration was refused, nothing stored (reason; details: check, credentialId when read). */
    PASSKEY_REGISTRATION_FAILED
}
