package dev.verificationservice.table;

import static dev.verificationservice.table.ItemAttributes.*;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.AuditRepository.AuditPosition;
import dev.verificationservice.codes.CodeFormat;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.VerificationCode;
import dev.verificationservice.devices.DeviceToken;
import dev.verificationservice.idempotency.IdempotencyRecord;
import dev.verificationservice.ratelimit.Cooldown;
import dev.verificationservice.ratelimit.RateLimitCounter;
import dev.verificationservice.recovery.RecoveryCode;
import dev.verificationservice.security.SealedSecret;
import dev.verificationservice.totp.TotpAlgorithm;
import dev.verificationservice.totp.TotpFactor;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * The items of the single table as plain attribute maps, written and read in this one place for every
 * store. Values are {@link String} (S), {@link Long} (N), {@link Boolean} (BOOL) or a
 * {@code Map<String, String>} (M of S); a store translates those four types to its own encoding and
 * nothing else.
 */
public final class TableItems {

    private TableItems() {
    }

    /** Epoch seconds, as the {@code ttl} attribute holds them. */
    public static long epochSeconds(Instant instant) {
        return instant.getEpochSecond();
    }

    // VerificationCode

    /** The code's item as a request with id {@code issueId} writes it. */
    public static Map<String, Object> codeItem(VerificationCode code, String issueId) {
        Map<String, Object> item = codeItem(code);
        item.put(ISSUED_BY, issueId);
        return item;
    }

    public static Map<String, Object> codeItem(VerificationCode code) {
        TableKeys.PrimaryKey key = TableKeys.code(code.digest());
        TableKeys.IndexKey index = TableKeys.codeIndex(code.userId(), code.codeType(), code.createdAt());
        Map<String, Object> item = new LinkedHashMap<>();
        item.put(PK, key.pk());
        item.put(SK, key.sk());
        item.put(GSI1PK, index.gsi1pk());
        item.put(GSI1SK, index.gsi1sk());
        item.put(CODE, code.digest());
        item.put(USER_ID, code.userId());
        item.put(CODE_TYPE, code.codeType().name());
        item.put(CODE_FORMAT, code.format().name());
        item.put(DELIVERY_METHOD, code.deliveryMethod().name());
        item.put(DELIVERY_TARGET, code.maskedTarget());
        item.put(IS_USED, code.used());
        item.put(CREATED_AT, Timestamps.format(code.createdAt()));
        item.put(TTL, epochSeconds(code.expiresAt()));
        code.contextDigest().ifPresent(digest -> item.put(CONTEXT_DIGEST, digest));
        return item;
    }

    public static VerificationCode code(Map<String, Object> item) {
        return new VerificationCode(
                string(item, CODE),
                string(item, USER_ID),
                CodeType.valueOf(string(item, CODE_TYPE)),
                CodeFormat.valueOf(string(item, CODE_FORMAT)),
                DeliveryMethod.valueOf(string(item, DELIVERY_METHOD)),
                string(item, DELIVERY_TARGET),
                bool(item, IS_USED),
                Timestamps.parse(string(item, CREATED_AT)),
                Instant.ofEpochSecond(number(item, TTL)),
                optionalString(item, CONTEXT_DIGEST));
    }

    /** The id of the request that wrote this code, if it was written with one. */
    public static Optional<String> issuedBy(Map<String, Object> item) {
        return optionalString(item, ISSUED_BY);
    }

    /** The id of the attempt that used this code up, if one did. */
    public static Optional<String> consumedBy(Map<String, Object> item) {
        return optionalString(item, CONSUMED_BY);
    }

    // DeviceToken

    public static Map<String, Object> deviceItem(DeviceToken token) {
        TableKeys.PrimaryKey key = TableKeys.deviceToken(token.deviceId(), token.tokenId());
        TableKeys.IndexKey index = TableKeys.deviceIndex(token.userId(), token.deviceId(), token.tokenId());
        Map<String, Object> item = new LinkedHashMap<>();
        item.put(PK, key.pk());
        item.put(SK, key.sk());
        item.put(GSI1PK, index.gsi1pk());
        item.put(GSI1SK, index.gsi1sk());
        item.put(DEVICE_ID, token.deviceId());
        item.put(TOKEN_ID, token.tokenId());
        item.put(USER_ID, token.userId());
        item.put(DEVICE_TYPE, token.deviceType());
        token.deviceName().ifPresent(name -> item.put(DEVICE_NAME, name));
        token.pushToken().ifPresent(push -> item.put(PUSH_TOKEN, push));
        item.put(LAST_ACTIVE_AT, Timestamps.format(token.lastActiveAt()));
        token.ipAddress().ifPresent(ip -> item.put(IP_ADDRESS, ip));
        token.userAgent().ifPresent(agent -> item.put(USER_AGENT, agent));
        item.put(CREATED_AT, Timestamps.format(token.createdAt()));
        item.put(TTL, epochSeconds(token.expiresAt()));
        return item;
    }

    public static DeviceToken device(Map<String, Object> item) {
        return new DeviceToken(
                string(item, DEVICE_ID),
                string(item, TOKEN_ID),
                string(item, USER_ID),
                string(item, DEVICE_TYPE),
                optionalString(item, DEVICE_NAME),
                optionalString(item, PUSH_TOKEN),
                Timestamps.parse(string(item, LAST_ACTIVE_AT)),
                optionalString(item, IP_ADDRESS),
                optionalString(item, USER_AGENT),
                Timestamps.parse(string(item, CREATED_AT)),
                Instant.ofEpochSecond(number(item, TTL)));
    }

    /**
     * The marker of the user's current code of its type, naming {@code code}: it lives as long as the code
     * (a newer code's marker lives as long as that one).
     */
    /**
     * How much longer a current-code marker lives than the code it names. Once TTL deletes the marker, every unexpired
     * code of the user and type passes the consume's check again, so the marker must outlive each code issued before
     * it whose deletion may have failed: a code made current may live shorter than the one it replaced (a login link
     * asks for 5 minutes, a code lives 15). A day covers every code lifetime of up to a day; the marker is one small
     * item per user and type.
     */
    public static final Duration CURRENT_CODE_MARKER_GRACE = Duration.ofDays(1);

    public static Map<String, Object> currentCodeItem(VerificationCode code) {
        TableKeys.PrimaryKey key = TableKeys.currentCode(code.userId(), code.codeType());
        Map<String, Object> item = new LinkedHashMap<>();
        item.put(PK, key.pk());
        item.put(SK, key.sk());
        item.put(USER_ID, code.userId());
        item.put(CURRENT, code.digest());
        item.put(CURRENT_AT, Timestamps.format(code.createdAt()));
        item.put(CURRENT_FORMAT, code.format().name());
        item.put(TTL, epochSeconds(code.expiresAt().plus(CURRENT_CODE_MARKER_GRACE)));
        return item;
    }

    /** The digest a current-code marker names, if any (none once the codes were invalidated). */
    public static Optional<String> currentDigest(Map<String, Object> marker) {
        return optionalString(marker, CURRENT);
    }

    /** The user's revoke-all marker. */
    public static Map<String, Object> revocationItem(String userId, Instant revokedBefore, Instant expiresAt) {
        TableKeys.PrimaryKey key = TableKeys.devicesRevoked(userId);
        Map<String, Object> item = new LinkedHashMap<>();
        item.put(PK, key.pk());
        item.put(SK, key.sk());
        item.put(USER_ID, userId);
        item.put(REVOKED_BEFORE, Timestamps.format(revokedBefore));
        item.put(TTL, epochSeconds(expiresAt));
        return item;
    }

    /** When the marker says the user's devices were revoked. */
    public static Instant revokedBefore(Map<String, Object> item) {
        return Timestamps.parse(string(item, REVOKED_BEFORE));
    }

    /** A token's createdAt as the table compares it with a revoke-all marker (fixed-width text sorts as time). */
    public static String createdAtText(DeviceToken token) {
        return Timestamps.format(token.createdAt());
    }

    // TotpFactor

    /** A factor's item: the secret only sealed; a pending factor has a ttl, a confirmed one none. */
    public static Map<String, Object> totpFactorItem(TotpFactor factor) {
        TableKeys.PrimaryKey key = TableKeys.totpFactor(factor.userId(), factor.factorId());
        Map<String, Object> item = new LinkedHashMap<>();
        item.put(PK, key.pk());
        item.put(SK, key.sk());
        item.put(USER_ID, factor.userId());
        item.put(FACTOR_ID, factor.factorId());
        item.put(LABEL, factor.label());
        item.put(ISSUER, factor.issuer());
        item.put(ALGORITHM, factor.algorithm().name());
        item.put(DIGITS, (long) factor.digits());
        item.put(PERIOD, factor.period().getSeconds());
        item.putAll(sealedSecretAttributes(factor.secret()));
        item.put(CONFIRMED, factor.confirmed());
        item.put(CREATED_AT, Timestamps.format(factor.createdAt()));
        item.put(LAST_ACCEPTED_STEP, factor.lastAcceptedStep());
        factor.lastUsedAt().ifPresent(used -> item.put(LAST_USED_AT, Timestamps.format(used)));
        factor.expiresAt().ifPresent(end -> item.put(TTL, epochSeconds(end)));
        return item;
    }

    /** The three attributes that hold a sealed secret (what a re-sealing replaces). */
    public static Map<String, Object> sealedSecretAttributes(SealedSecret secret) {
        Map<String, Object> attributes = new LinkedHashMap<>();
        attributes.put(SECRET_KEY_ID, secret.keyId());
        attributes.put(SECRET_NONCE, secret.nonce());
        attributes.put(SECRET_CIPHERTEXT, secret.ciphertext());
        return attributes;
    }

    public static TotpFactor totpFactor(Map<String, Object> item) {
        return new TotpFactor(
                string(item, USER_ID),
                string(item, FACTOR_ID),
                string(item, LABEL),
                string(item, ISSUER),
                TotpAlgorithm.valueOf(string(item, ALGORITHM)),
                (int) number(item, DIGITS),
                Duration.ofSeconds(number(item, PERIOD)),
                new SealedSecret(string(item, SECRET_KEY_ID), string(item, SECRET_NONCE),
                        string(item, SECRET_CIPHERTEXT)),
                bool(item, CONFIRMED),
                Timestamps.parse(string(item, CREATED_AT)),
                item.get(TTL) instanceof Number ttl ? Optional.of(Instant.ofEpochSecond(ttl.longValue()))
                        : Optional.empty(),
                number(item, LAST_ACCEPTED_STEP),
                optionalString(item, LAST_USED_AT).map(Timestamps::parse));
    }

    /** The attempt that last accepted a step of (or confirmed) this factor, if any did. */
    public static Optional<String> acceptedBy(Map<String, Object> item) {
        return optionalString(item, ACCEPTED_BY);
    }

    // RecoveryCode

    public static Map<String, Object> recoveryCodeItem(RecoveryCode code) {
        TableKeys.PrimaryKey key = TableKeys.recoveryCode(code.userId(), code.digest());
        Map<String, Object> item = new LinkedHashMap<>();
        item.put(PK, key.pk());
        item.put(SK, key.sk());
        item.put(USER_ID, code.userId());
        item.put(DIGEST, code.digest());
        item.put(SET_ID, code.setId());
        item.put(ISSUED_AT, Timestamps.format(code.issuedAt()));
        item.put(IS_USED, code.used());
        code.usedAt().ifPresent(used -> item.put(USED_AT, Timestamps.format(used)));
        return item;
    }

    public static RecoveryCode recoveryCode(Map<String, Object> item) {
        return new RecoveryCode(
                string(item, USER_ID),
                string(item, DIGEST),
                string(item, SET_ID),
                Timestamps.parse(string(item, ISSUED_AT)),
                bool(item, IS_USED),
                optionalString(item, USED_AT).map(Timestamps::parse));
    }

    /** The marker naming the user's current set of recovery codes. */
    public static Map<String, Object> recoverySetItem(String userId, String setId) {
        TableKeys.PrimaryKey key = TableKeys.recoverySet(userId);
        Map<String, Object> item = new LinkedHashMap<>();
        item.put(PK, key.pk());
        item.put(SK, key.sk());
        item.put(USER_ID, userId);
        item.put(SET_ID, setId);
        return item;
    }

    /** The set a recovery-set marker names. */
    public static String recoverySetId(Map<String, Object> item) {
        return string(item, SET_ID);
    }

    /** The attempt that used this recovery code, if one did. */
    public static Optional<String> usedBy(Map<String, Object> item) {
        return optionalString(item, USED_BY);
    }

    // IdempotencyKey

    public static Map<String, Object> idempotencyItem(IdempotencyRecord record) {
        TableKeys.PrimaryKey key = TableKeys.idempotencyKey(record.keyDigest());
        Map<String, Object> item = new LinkedHashMap<>();
        item.put(PK, key.pk());
        item.put(SK, key.sk());
        item.put(KEY_DIGEST, record.keyDigest());
        item.put(REQUEST_DIGEST, record.requestDigest());
        item.put(CLAIMED_BY, record.claimedBy());
        item.put(CLAIMED_AT, Timestamps.format(record.claimedAt()));
        record.answer().ifPresent(answer -> {
            item.put(ANSWER_STATUS, (long) answer.status());
            item.put(ANSWER, answer.sealedBody());
        });
        item.put(TTL, epochSeconds(record.expiresAt()));
        return item;
    }

    public static IdempotencyRecord idempotency(Map<String, Object> item) {
        Optional<IdempotencyRecord.StoredAnswer> answer = item.containsKey(ANSWER)
                ? Optional.of(new IdempotencyRecord.StoredAnswer((int) number(item, ANSWER_STATUS), string(item, ANSWER)))
                : Optional.empty();
        return new IdempotencyRecord(string(item, KEY_DIGEST), string(item, REQUEST_DIGEST), string(item, CLAIMED_BY),
                Timestamps.parse(string(item, CLAIMED_AT)), answer, Instant.ofEpochSecond(number(item, TTL)));
    }

    /** The claim time as the table compares it (fixed-width text sorts as time). */
    public static String claimedAtText(Instant instant) {
        return Timestamps.format(instant);
    }

    // AuditLog

    public static Map<String, Object> auditItem(AuditEntry entry) {
        TableKeys.PrimaryKey key = TableKeys.auditEntry(entry.userId(), entry.timestamp(), entry.entryId());
        Map<String, Object> item = new LinkedHashMap<>();
        item.put(PK, key.pk());
        item.put(SK, key.sk());
        item.put(USER_ID, entry.userId());
        item.put(EVENT_TYPE, entry.eventType().name());
        item.put(EVENT_DETAILS, Map.copyOf(entry.details()));
        entry.ipAddress().ifPresent(ip -> item.put(IP_ADDRESS, ip));
        entry.userAgent().ifPresent(agent -> item.put(USER_AGENT, agent));
        entry.deviceId().ifPresent(device -> item.put(DEVICE_ID, device));
        item.put(SUCCESS, entry.success());
        entry.failureReason().ifPresent(reason -> item.put(FAILURE_REASON, reason));
        item.put(TIMESTAMP, Timestamps.format(entry.timestamp()));
        // Retention "forever" writes no ttl at all, so DynamoDB never deletes the entry.
        entry.expiresAt().ifPresent(end -> item.put(TTL, epochSeconds(end)));
        // Every entry is an event: written undelivered, in whichever write carries the entry.
        TableKeys.IndexKey outbox = TableKeys.outboxEvent(key, entry.timestamp());
        item.put(OUTBOX_PK, outbox.gsi1pk());
        item.put(OUTBOX_SK, outbox.gsi1sk());
        return item;
    }

    public static AuditEntry audit(Map<String, Object> item) {
        AuditPosition position = TableKeys.parseAuditSortKey(string(item, SK));
        return new AuditEntry(
                string(item, USER_ID),
                Timestamps.parse(string(item, TIMESTAMP)),
                position.entryId(),
                AuditEventType.valueOf(string(item, EVENT_TYPE)),
                stringMap(item, EVENT_DETAILS),
                optionalString(item, IP_ADDRESS),
                optionalString(item, USER_AGENT),
                optionalString(item, DEVICE_ID),
                bool(item, SUCCESS),
                optionalString(item, FAILURE_REASON),
                item.containsKey(TTL) ? Optional.of(Instant.ofEpochSecond(number(item, TTL))) : Optional.empty());
    }

    /**
     * Whether a stored audit item is this very entry (a retried append whose first answer was lost), compared
     * after both went through the same mapping, so that number and map encodings of the store do not matter.
     */
    public static boolean isSameAuditEntry(Map<String, Object> stored, AuditEntry entry) {
        return audit(stored).equals(audit(auditItem(entry)));
    }

    // RateLimitCounter

    /**
     * The attributes of a counter besides its key and {@code count}: what the atomic ADD sets beside the count,
     * so that the item carries the seed's attributes however it came into being.
     */
    public static Map<String, Object> counterAttributes(String userId, String action, Instant windowStart,
                                                        Instant expiresAt) {
        Map<String, Object> item = new LinkedHashMap<>();
        item.put(USER_ID, userId);
        item.put(ACTION, action);
        item.put(WINDOW_START, Timestamps.format(windowStart));
        item.put(TTL, epochSeconds(expiresAt));
        return item;
    }

    /** A whole counter item holding {@code count}: what a store writes when the window has no counter yet. */
    public static Map<String, Object> counterItem(String userId, String action, Instant windowStart, Instant expiresAt,
                                                  long count) {
        TableKeys.PrimaryKey key = TableKeys.rateLimitWindow(userId, action, windowStart);
        Map<String, Object> item = new LinkedHashMap<>();
        item.put(PK, key.pk());
        item.put(SK, key.sk());
        item.putAll(counterAttributes(userId, action, windowStart, expiresAt));
        item.put(COUNT, count);
        return item;
    }

    /** The item of a cooldown claimed by {@code cooldown}; its ttl is when the cooldown ends plus the grace. */
    public static Map<String, Object> cooldownItem(Cooldown cooldown, Instant expiresAt) {
        TableKeys.PrimaryKey key = TableKeys.cooldown(cooldown.userId(), cooldown.action());
        Map<String, Object> item = new LinkedHashMap<>();
        item.put(PK, key.pk());
        item.put(SK, key.sk());
        item.put(USER_ID, cooldown.userId());
        item.put(ACTION, cooldown.action());
        item.put(BUSY_UNTIL, cooldown.endsAt().toEpochMilli());
        item.put(CLAIMED_BY, cooldown.attemptId());
        item.put(TTL, epochSeconds(expiresAt));
        return item;
    }

    /** When the cooldown held by this item ends. */
    public static Instant busyUntil(Map<String, Object> item) {
        return Instant.ofEpochMilli(number(item, BUSY_UNTIL));
    }

    /** The attribute that holds the place an attempt took in a counter window. */
    public static String placeAttribute(String attemptId) {
        return PLACE_PREFIX + attemptId;
    }

    /** The place this attempt holds in the counter item, if it holds one. */
    public static Optional<Long> place(Map<String, Object> item, String attemptId) {
        return item.get(placeAttribute(attemptId)) instanceof Number place ? Optional.of(place.longValue()) : Optional.empty();
    }

    public static RateLimitCounter counter(Map<String, Object> item) {
        return new RateLimitCounter(
                string(item, USER_ID),
                string(item, ACTION),
                Timestamps.parse(string(item, WINDOW_START)),
                number(item, COUNT),
                Instant.ofEpochSecond(number(item, TTL)));
    }

    // Typed access

    public static String string(Map<String, Object> item, String name) {
        Object value = item.get(name);
        if (!(value instanceof String text)) {
            throw new IllegalStateException("item attribute " + name + " is missing or not a string");
        }
        return text;
    }

    public static Optional<String> optionalString(Map<String, Object> item, String name) {
        return item.get(name) instanceof String text ? Optional.of(text) : Optional.empty();
    }

    public static long number(Map<String, Object> item, String name) {
        Object value = item.get(name);
        if (!(value instanceof Number number)) {
            throw new IllegalStateException("item attribute " + name + " is missing or not a number");
        }
        return number.longValue();
    }

    public static boolean bool(Map<String, Object> item, String name) {
        Object value = item.get(name);
        if (!(value instanceof Boolean flag)) {
            throw new IllegalStateException("item attribute " + name + " is missing or not a boolean");
        }
        return flag;
    }

    @SuppressWarnings("unchecked")
    public static Map<String, String> stringMap(Map<String, Object> item, String name) {
        Object value = item.get(name);
        return value instanceof Map<?, ?> map ? Map.copyOf((Map<String, String>) map) : Map.of();
    }
}
