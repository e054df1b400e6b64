package dev.verificationservice.table;

/**
 * Attribute names of the single table, as in the seed model. The additions: {@code codeFormat} (a request
 * may choose a code's format, and verification must know which digest input to rebuild) and the attempt
 * ids that make every conditional write safe to retry ({@code issuedBy}, {@code consumedBy},
 * {@code place_<attemptId>}).
 */
public final class ItemAttributes {

    public static final String PK = "PK";
    public static final String SK = "SK";
    public static final String GSI1PK = "GSI1PK";
    public static final String GSI1SK = "GSI1SK";
    /** Unix epoch seconds; DynamoDB's TTL attribute. Cleanup only: every read compares it with the clock. */
    public static final String TTL = "ttl";

    public static final String USER_ID = "userId";
    public static final String CREATED_AT = "createdAt";
    public static final String IP_ADDRESS = "ipAddress";
    public static final String USER_AGENT = "userAgent";
    public static final String DEVICE_ID = "deviceId";

    // VerificationCode
    public static final String CODE = "code";
    public static final String CODE_TYPE = "codeType";
    public static final String CODE_FORMAT = "codeFormat";
    public static final String DELIVERY_METHOD = "deliveryMethod";
    public static final String DELIVERY_TARGET = "deliveryTarget";
    public static final String IS_USED = "isUsed";
    /** Added to the seed: HMAC of what the code approves (its context), when it was sent with one. */
    public static final String CONTEXT_DIGEST = "contextDigest";
    /** An SMS code's number range ({@code +447700}), where its verification is counted; absent on older codes. */
    public static final String SMS_RANGE = "smsRange";
    /** Added to the seed: the id of the request that wrote the code, so a retried insert is recognised. */
    public static final String ISSUED_BY = "issuedBy";
    /** Added to the seed: the id of the attempt that used the code up, so a retried consume is recognised. */
    public static final String CONSUMED_BY = "consumedBy";

    // DeviceToken
    public static final String TOKEN_ID = "tokenId";
    public static final String DEVICE_TYPE = "deviceType";
    public static final String DEVICE_NAME = "deviceName";
    public static final String PUSH_TOKEN = "pushToken";
    public static final String LAST_ACTIVE_AT = "lastActiveAt";

    /** The user's revoke-all marker: tokens created at or before this (fixed-width ISO text) are revoked. */
    public static final String REVOKED_BEFORE = "revokedBefore";

    // CodeSlot: which code of a user and type may be used (no rule reads GSI1), a NUMERIC one inline
    /** The digest of the one code of the user and type that may be used; absent once invalidated. */
    public static final String CURRENT = "current";
    /** A NUMERIC code inline in its slot: the second of its expiry (the slot's own ttl outlives it). */
    public static final String EXPIRES_AT = "expiresAt";
    /** createdAt of the newest code the marker has named (fixed-width ISO text); only ever moves forward. */
    public static final String CURRENT_AT = "currentAt";
    /** The format (NUMERIC or LINK) of the current code, for the lock-out, which invalidates NUMERIC codes only. */
    public static final String CURRENT_FORMAT = "currentFormat";

    // TotpFactor: the secret only sealed, as key id, nonce and ciphertext (base64url)
    public static final String FACTOR_ID = "factorId";
    public static final String LABEL = "label";
    public static final String ISSUER = "issuer";
    public static final String ALGORITHM = "algorithm";
    public static final String DIGITS = "digits";
    /** The TOTP period in seconds. */
    public static final String PERIOD = "period";
    public static final String SECRET_KEY_ID = "secretKeyId";
    public static final String SECRET_NONCE = "secretNonce";
    public static final String SECRET_CIPHERTEXT = "secretCiphertext";
    public static final String CONFIRMED = "confirmed";
    /** The newest time step a code was accepted for: the replay rule's condition compares it. */
    public static final String LAST_ACCEPTED_STEP = "lastAcceptedStep";
    /** The attempt that wrote {@code lastAcceptedStep}, so a retried acceptance is recognised. */
    public static final String ACCEPTED_BY = "acceptedBy";
    public static final String LAST_USED_AT = "lastUsedAt";

    // Passkeys: challenge (consumedBy as for codes), user (handle and credential ids) and credential; nothing secret
    public static final String PURPOSE = "purpose";
    public static final String USER_HANDLE = "userHandle";
    /** The user's credential ids, space-separated, at most the policy's cap. */
    public static final String CREDENTIAL_IDS = "credentialIds";
    public static final String CREDENTIAL_ID = "credentialId";
    /** The COSE public key, base64url. */
    public static final String PUBLIC_KEY = "publicKey";
    public static final String SIGN_COUNT = "signCount";
    /** Comma-separated, as WebAuthn names them ({@code internal,hybrid}). */
    public static final String TRANSPORTS = "transports";
    public static final String BACKUP_ELIGIBLE = "backupEligible";
    public static final String BACKED_UP = "backedUp";
    public static final String USER_VERIFIED = "userVerified";
    public static final String AAGUID = "aaguid";

    // RecoveryCode: the code only as its HMAC digest; isUsed as for codes
    public static final String DIGEST = "digest";
    public static final String SET_ID = "setId";
    public static final String ISSUED_AT = "issuedAt";
    public static final String USED_AT = "usedAt";
    /** The attempt that used the code, so a retried use is recognised. */
    public static final String USED_BY = "usedBy";

    // IdempotencyKey (an addition to the seed)
    public static final String KEY_DIGEST = "keyDigest";
    public static final String REQUEST_DIGEST = "requestDigest";
    public static final String CLAIMED_AT = "claimedAt";
    public static final String ANSWER_STATUS = "answerStatus";
    /** The first answer, sealed (AES-GCM): it may hold a device secret, which is never stored in clear. */
    public static final String ANSWER = "answer";

    // AuditLog
    public static final String EVENT_TYPE = "eventType";
    public static final String EVENT_DETAILS = "eventDetails";
    public static final String SUCCESS = "success";
    public static final String FAILURE_REASON = "failureReason";
    public static final String TIMESTAMP = "timestamp";

    // RateLimitCounter
    public static final String ACTION = "action";
    public static final String WINDOW_START = "windowStart";
    public static final String COUNT = "count";
    /**
     * Added to the seed: {@code back_<slot>} (slot 0 to 15, picked by the attempt id) holds the attempt id of the
     * last place given back through that slot, so a retried give-back is recognised: a counter item holds at most
     * 16 of them whatever its count.
     */
    public static final String GIVE_BACK_PREFIX = "back_";
    /**
     * The previous release's mark of a place an attempt took ({@code place_<attemptId>}): no longer written, left
     * in its counter until the counter's ttl, and ignored.
     */
    public static final String PLACE_PREFIX = "place_";

    // Cooldown (an addition to the seed, in the counter's partition)
    /** Epoch milliseconds until which the cooldown runs. */
    public static final String BUSY_UNTIL = "busyUntil";
    /** The attempt that claimed the running cooldown, so a retried claim is recognised. */
    public static final String CLAIMED_BY = "claimedBy";

    // Outbox: the sparse index of what the webhook relay has still to do; see TableKeys
    public static final String OUTBOX_PK = "OUTBOXPK";
    public static final String OUTBOX_SK = "OUTBOXSK";

    // WebhookEndpoint
    public static final String ENDPOINT_ID = "endpointId";
    public static final String URL = "url";
    /** Comma-separated event types; empty for all. */
    public static final String EVENT_TYPES = "eventTypes";
    public static final String DESCRIPTION = "description";
    public static final String ENDPOINT_STATUS = "endpointStatus";
    /** A sealed secret: a map of keyId, nonce and ciphertext (never the secret in clear). */
    public static final String SECRET = "secret";
    public static final String PREVIOUS_SECRET = "previousSecret";
    public static final String PREVIOUS_UNTIL = "previousUntil";
    public static final String FAILING_SINCE = "failingSince";
    public static final String DISABLED_REASON = "disabledReason";
    /** Bumped on every change; every write of an endpoint is conditioned on it. */
    public static final String VERSION = "version";

    // SmsRangeMark (with SMS_RANGE, WINDOW_START, CREATED_AT and an optional ttl)
    /** Which list of the operators' registry of number ranges: BREAKER, WATCH or ALLOWED. */
    public static final String SMS_MARK = "smsMark";
    public static final String COUNTRY = "country";
    public static final String SENT = "sent";
    public static final String VERIFIED = "verified";
    public static final String OPERATOR_KEY_ID = "operatorKeyId";

    // Delivery
    public static final String EVENT_ID = "eventId";
    public static final String BODY = "body";
    public static final String DELIVERY_STATUS = "deliveryStatus";
    public static final String ATTEMPTS = "attempts";
    /** Epoch milliseconds of the next attempt, while PENDING (a number, for the claim's condition). */
    public static final String DUE_AT = "dueAt";
    public static final String LAST_ATTEMPT_AT = "lastAttemptAt";
    public static final String LAST_STATUS = "lastStatus";
    public static final String LAST_ERROR = "lastError";
    public static final String LEASE_OWNER = "leaseOwner";
    /** Epoch milliseconds the lease ends. */
    public static final String LEASE_UNTIL = "leaseUntil";

    private ItemAttributes() {
    }
}
