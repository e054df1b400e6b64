package dev.verificationservice.client;

/** Every call of the API, as the {@link RetryPolicy} names them. */
public enum Operation {
    /** {@code POST /v1/codes}: a repeat may deliver a second message and count twice. */
    SEND_CODE(false),
    /** {@code POST /v1/codes/check}: does not use the code up. */
    CHECK_CODE(true),
    /** {@code POST /v1/codes/verify}: a repeat after a 503 that did consume the code answers {@code USED}. */
    VERIFY_CODE(false),
    /** {@code POST /v1/devices}: a repeat may register a second token. */
    REGISTER_DEVICE(false),
    /** {@code POST /v1/devices/verify}: writes the device's use and an audit entry. */
    VERIFY_DEVICE(false),
    /** {@code GET /v1/users/{userId}/devices}. */
    LIST_DEVICES(true),
    /** {@code DELETE /v1/users/{userId}/devices/{deviceId}}: a repeat after a revoke that happened answers 0. */
    REVOKE_DEVICE(false),
    /** {@code DELETE /v1/users/{userId}/devices}: as {@link #REVOKE_DEVICE}. */
    REVOKE_ALL_DEVICES(false),
    /** {@code POST /v1/users/{userId}/totp}: a repeat enrols a second pending factor. */
    ENROL_TOTP(false),
    /** {@code POST /v1/users/{userId}/totp/{factorId}/confirm}: a repeat after one that did confirm answers
     * {@code ALREADY_CONFIRMED}, and the recovery codes of the first are lost (issue a new set). */
    CONFIRM_TOTP(false),
    /** {@code POST /v1/users/{userId}/totp/verify}: a repeat after a 503 that did accept the code answers
     * {@code REPLAYED}. */
    VERIFY_TOTP(false),
    /** {@code GET /v1/users/{userId}/totp}. */
    LIST_TOTP(true),
    /** {@code DELETE /v1/users/{userId}/totp/{factorId}}: a repeat after a removal that happened answers 0. */
    REMOVE_TOTP(false),
    /** {@code POST /v1/users/{userId}/recovery-codes}: a repeat issues another set, voiding the first. */
    ISSUE_RECOVERY_CODES(false),
    /** {@code POST /v1/users/{userId}/recovery-codes/verify}: a repeat after one that used the code answers
     * {@code USED}. */
    VERIFY_RECOVERY_CODE(false),
    /** {@code POST /v1/passkeys/registration/options}: a repeat stores another challenge, which lapses unused. */
    PASSKEY_REGISTRATION_OPTIONS(true),
    /** {@code POST /v1/passkeys/registration}: a repeat after one that stored the passkey answers 409 (the challenge
     * is used up). */
    REGISTER_PASSKEY(false),
    /** {@code POST /v1/passkeys/sign-in/options}: as {@link #PASSKEY_REGISTRATION_OPTIONS}. */
    PASSKEY_SIGN_IN_OPTIONS(true),
    /** {@code POST /v1/passkeys/sign-in}: a repeat after one that was accepted answers 409 (the challenge is used
     * up). */
    SIGN_IN_PASSKEY(false),
    /** {@code GET /v1/users/{userId}/passkeys}. */
    LIST_PASSKEYS(true),
    /** {@code POST /v1/users/{userId}/passkeys/{credentialId}/label}: renaming twice is renaming once. */
    RENAME_PASSKEY(true),
    /** {@code DELETE /v1/users/{userId}/passkeys[/{credentialId}]}: a repeat after a revoke that happened answers 0. */
    REVOKE_PASSKEYS(false),
    /** {@code GET /v1/users/{userId}/audit}. */
    AUDIT(true),
    /** {@code GET /v1/users/{userId}/rate-limits}. */
    RATE_LIMITS(true),
    /** {@code GET /dev/outbox}. */
    DEV_OUTBOX(true),
    /** {@code POST /v1/admin/webhooks}: a repeat may register a second endpoint. */
    REGISTER_WEBHOOK(false),
    /** {@code GET /v1/admin/webhooks} and {@code GET /v1/admin/webhooks/{endpointId}}. */
    LIST_WEBHOOKS(true),
    /** {@code DELETE /v1/admin/webhooks/{endpointId}}: a repeat after a delete that happened answers 400. */
    DELETE_WEBHOOK(false),
    /** {@code POST /v1/admin/webhooks/{endpointId}/rotate-secret}: a repeat rotates again. */
    ROTATE_WEBHOOK_SECRET(false),
    /** {@code POST /v1/admin/webhooks/{endpointId}/enable}: enabling twice is enabling once. */
    ENABLE_WEBHOOK(true),
    /** {@code GET /v1/admin/webhooks/{endpointId}/deliveries}. */
    WEBHOOK_DELIVERIES(true),
    /** {@code POST /v1/admin/webhooks/{endpointId}/redeliver}: a repeat sends again (receivers dedupe by id). */
    REDELIVER_WEBHOOK(false),
    /** {@code GET /v1/admin/sms/ranges}. */
    SMS_RANGES(true),
    /** {@code PUT} and {@code DELETE /v1/admin/sms/ranges/{prefix}/allowed}: a repeat changes nothing. */
    ALLOW_SMS_RANGE(true),
    /** {@code DELETE /v1/admin/sms/ranges/{prefix}/breaker}: a repeat forgets only what was counted since. */
    LIFT_SMS_BREAKER(true),
    /** {@code GET /v1/admin/sms/countries}. */
    SMS_COUNTRIES(true),
    /** {@code DELETE /v1/admin/sms/countries/{country}/breaker}: a repeat forgets only what was counted since. */
    LIFT_SMS_COUNTRY_BREAKER(true);

    private final boolean safeToRetry;

    Operation(boolean safeToRetry) {
        this.safeToRetry = safeToRetry;
    }

    /**
     * Whether repeating the call after a 503 can change nothing but its answer's freshness: the reads and
     * {@code check}. Only these are retried unless a {@link RetryPolicy} opts in to more.
     */
    public boolean safeToRetry() {
        return safeToRetry;
    }
}
