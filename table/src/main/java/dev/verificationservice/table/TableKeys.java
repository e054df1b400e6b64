package dev.verificationservice.table;

import dev.verificationservice.audit.AuditRepository.AuditPosition;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.sms.SmsRangeMark;
import java.time.Instant;
import java.util.List;
import java.util.stream.IntStream;

/**
 * Every key of the single table, declared once, as the model writes it. No other class builds a key
 * string: stores and domain code call these methods.
 *
 * <pre>
 * Item              PK                            SK                            GSI1PK          GSI1SK
 * VerificationCode  CODE#&lt;digest&gt;                 CODE#&lt;digest&gt;                 USER#&lt;userId&gt;  CODE#&lt;codeType&gt;#&lt;createdAt&gt;
 * DeviceToken       DEVICE#&lt;deviceId&gt;             TOKEN#&lt;tokenId&gt;               USER#&lt;userId&gt;  DEVICE#&lt;deviceId&gt;#&lt;tokenId&gt;
 * AuditLog          USER#&lt;userId&gt;                 AUDIT#&lt;timestamp&gt;#&lt;entryId&gt;
 * RevokedDevices    USER#&lt;userId&gt;                 DEVICES#REVOKED
 * CodeSlot          USER#&lt;userId&gt;                 CURRENT#&lt;codeType&gt;
 * TotpFactor        USER#&lt;userId&gt;                 TOTP#&lt;factorId&gt;
 * TotpEnrolments    USER#&lt;userId&gt;                 TOTPENROLMENTS
 * RecoveryCode      USER#&lt;userId&gt;                 RECOVERY#&lt;digest&gt;
 * RecoverySet       USER#&lt;userId&gt;                 RECOVERYSET
 * IdempotencyKey    IDEMPOTENCY#&lt;keyDigest&gt;       IDEMPOTENCY#&lt;keyDigest&gt;
 * RateLimitCounter  RATELIMIT#&lt;userId&gt;#&lt;action&gt;  WINDOW#&lt;windowStart&gt;
 * Cooldown          RATELIMIT#&lt;userId&gt;#&lt;action&gt;  COOLDOWN
 * WebhookEndpoint   WEBHOOKS                      ENDPOINT#&lt;endpointId&gt;
 * Delivery          WEBHOOK#&lt;endpointId&gt;[#&lt;shard&gt;]  DELIVERY#&lt;occurredAt&gt;#&lt;eventId&gt;
 * PasskeyChallenge  PASSKEYCHALLENGE#&lt;challenge&gt;  PASSKEYCHALLENGE#&lt;challenge&gt;
 * PasskeyUser       USER#&lt;userId&gt;                 PASSKEYUSER
 * Passkey           PASSKEY#&lt;credentialId&gt;       PASSKEY#&lt;credentialId&gt;
 * SmsRangeMark      SMSRANGES#&lt;kind&gt;#&lt;window&gt;   RANGE#&lt;prefix&gt; (COUNTRY#&lt;region&gt; for a country's breaker)
 * </pre>
 *
 * <p>The sparse index {@value #OUTBOX_INDEX} (OUTBOXPK / OUTBOXSK) holds what the webhook relay has still to do:
 * audit entries not yet fanned out ({@code OUTBOX#EVENT#<shard>}, at their timestamp) and PENDING deliveries
 * ({@code OUTBOX#DELIVERY#<endpointId>[#<shard>]}, at their next attempt). An item leaves it when the attributes are
 * removed. Deliveries get partitions per endpoint so the relay finds each endpoint's due work apart from the others'
 * backlogs, and {@value #DELIVERY_SHARDS} of them, by event id, because every event writes its delivery's item and
 * index entry about three times (fan-out, claim, outcome): one partition's 1,000 write units a second would cap an
 * endpoint near 333 events a second. Shard 0 keeps the unsuffixed names the previous release wrote every delivery
 * under, so reading the shards also reads those; a delivery written there is found by {@link #unshardedDelivery}.
 *
 * <p>Ids that go into keys are checked by {@link dev.verificationservice.validation.Inputs} to contain no
 * {@code #}; digests are base64url and timestamps fixed-width ISO-8601, so no two different values ever
 * give the same key.
 */
public final class TableKeys {

    public static final String GSI1 = "GSI1";
    /** The sparse index of undelivered events and pending deliveries. */
    public static final String OUTBOX_INDEX = "OUTBOX";
    /**
     * Partitions of undelivered audit entries in the outbox index: writes to one index partition are limited (1000
     * units a second on DynamoDB), so 40,000 events a second spread to about 312 per partition. The previous
     * release's four ({@code OUTBOX#EVENT#0..3}) are the first four of these, so their entries are read as before.
     */
    public static final int OUTBOX_SHARDS = 128;
    /** Partitions of one endpoint's deliveries, of the table and of the outbox index alike. */
    public static final int DELIVERY_SHARDS = 16;

    static final String CODE = "CODE#";
    static final String USER = "USER#";
    static final String DEVICE = "DEVICE#";
    static final String TOKEN = "TOKEN#";
    static final String AUDIT = "AUDIT#";
    static final String RATELIMIT = "RATELIMIT#";
    static final String WINDOW = "WINDOW#";
    static final String COOLDOWN = "COOLDOWN";
    static final String DEVICES_REVOKED = "DEVICES#REVOKED";
    static final String CURRENT_CODE = "CURRENT#";
    static final String IDEMPOTENCY = "IDEMPOTENCY#";
    static final String TOTP = "TOTP#";
    static final String TOTP_ENROLMENTS = "TOTPENROLMENTS";
    static final String RECOVERY = "RECOVERY#";
    static final String RECOVERY_SET = "RECOVERYSET";
    static final String WEBHOOKS = "WEBHOOKS";
    static final String ENDPOINT = "ENDPOINT#";
    static final String WEBHOOK = "WEBHOOK#";
    static final String DELIVERY = "DELIVERY#";
    static final String OUTBOX_EVENTS = "OUTBOX#EVENT#";
    static final String OUTBOX_DELIVERIES = "OUTBOX#DELIVERY#";
    static final String PASSKEY_CHALLENGE = "PASSKEYCHALLENGE#";
    static final String PASSKEY_USER = "PASSKEYUSER";
    static final String PASSKEY = "PASSKEY#";
    static final String SMS_RANGES = "SMSRANGES#";
    static final String RANGE = "RANGE#";
    static final String COUNTRY = "COUNTRY#";
    static final String SEPARATOR = "#";
    /** Sorts after every character an audit entryId may hold, closing an inclusive upper bound. */
    static final String AFTER_ANY_ENTRY_ID = "~";

    private TableKeys() {
    }

    /** The table's primary key. */
    public record PrimaryKey(String pk, String sk) {
    }

    /** The GSI1 key of an item that has one. */
    public record IndexKey(String gsi1pk, String gsi1sk) {
    }

    // VerificationCode

    public static PrimaryKey code(String digest) {
        return new PrimaryKey(CODE + digest, CODE + digest);
    }

    public static IndexKey codeIndex(String userId, CodeType codeType, Instant createdAt) {
        return new IndexKey(user(userId), codesOfTypePrefix(codeType) + Timestamps.format(createdAt));
    }

    /** PK prefix of every code item, and of nothing else (the benchmarks count and delete codes by it). */
    public static String codesPrefix() {
        return CODE;
    }

    /** GSI1SK prefix of one user's codes of one type: {@code begins_with(GSI1SK, CODE#<codeType>#)}. */
    public static String codesOfTypePrefix(CodeType codeType) {
        return CODE + codeType.name() + SEPARATOR;
    }

    // DeviceToken

    public static PrimaryKey deviceToken(String deviceId, String tokenId) {
        return new PrimaryKey(devicePartition(deviceId), TOKEN + tokenId);
    }

    /** The partition holding every token of one device (of whichever users registered that device id). */
    public static String devicePartition(String deviceId) {
        return DEVICE + deviceId;
    }

    public static IndexKey deviceIndex(String userId, String deviceId, String tokenId) {
        return new IndexKey(user(userId), deviceOfUserPrefix(deviceId) + tokenId);
    }

    /** GSI1SK prefix of all of a user's device tokens. */
    public static String devicesPrefix() {
        return DEVICE;
    }

    /** GSI1SK prefix of a user's tokens of one device; the trailing {@code #} stops {@code ab} matching {@code abc}. */
    public static String deviceOfUserPrefix(String deviceId) {
        return DEVICE + deviceId + SEPARATOR;
    }

    /** An Idempotency-Key of one client, by its HMAC. */
    public static PrimaryKey idempotencyKey(String keyDigest) {
        return new PrimaryKey(IDEMPOTENCY + keyDigest, IDEMPOTENCY + keyDigest);
    }

    /** The user's revoke-all marker, in the user's partition beside the audit entries. */
    public static PrimaryKey devicesRevoked(String userId) {
        return new PrimaryKey(user(userId), DEVICES_REVOKED);
    }

    /**
     * The marker naming the one code of the user and type that may be used, in the user's partition beside the
     * audit entries: read and conditioned on the table itself, never through the eventually consistent GSI1.
     */
    public static PrimaryKey currentCode(String userId, CodeType codeType) {
        return new PrimaryKey(user(userId), CURRENT_CODE + codeType.name());
    }

    // TOTP factors and recovery codes: in the user's partition, so one Query reads them all

    public static PrimaryKey totpFactor(String userId, String factorId) {
        return new PrimaryKey(user(userId), TOTP + factorId);
    }

    /**
     * The user's enrolment counter: its {@code version} moves on every enrolment, so an enrolment that counted the
     * factors at one version is written only if none was written since. Not under {@link #totpFactorsPrefix()}.
     */
    public static PrimaryKey totpEnrolments(String userId) {
        return new PrimaryKey(user(userId), TOTP_ENROLMENTS);
    }

    /** SK prefix of all of a user's TOTP factors: {@code begins_with(SK, TOTP#)}. */
    public static String totpFactorsPrefix() {
        return TOTP;
    }

    public static PrimaryKey recoveryCode(String userId, String digest) {
        return new PrimaryKey(user(userId), RECOVERY + digest);
    }

    /**
     * The marker naming the user's current set of recovery codes: a new set is written only while it names the set
     * that new set replaces. Not under {@link #recoveryCodesPrefix()}.
     */
    public static PrimaryKey recoverySet(String userId) {
        return new PrimaryKey(user(userId), RECOVERY_SET);
    }

    /** SK prefix of all of a user's recovery codes: {@code begins_with(SK, RECOVERY#)}. */
    public static String recoveryCodesPrefix() {
        return RECOVERY;
    }

    // Passkeys: a challenge and a credential each their own partition (found by value alone, for a username-less
    // sign-in); the user's handle and credential ids in the user's partition

    public static PrimaryKey passkeyChallenge(String challenge) {
        return new PrimaryKey(PASSKEY_CHALLENGE + challenge, PASSKEY_CHALLENGE + challenge);
    }

    public static PrimaryKey passkeyUser(String userId) {
        return new PrimaryKey(user(userId), PASSKEY_USER);
    }

    public static PrimaryKey passkey(String credentialId) {
        return new PrimaryKey(PASSKEY + credentialId, PASSKEY + credentialId);
    }

    // User partition (GSI1PK of codes and devices, PK of audit entries)

    public static String user(String userId) {
        return USER + userId;
    }

    // AuditLog

    public static PrimaryKey auditEntry(String userId, Instant timestamp, String entryId) {
        return new PrimaryKey(user(userId), auditSortKey(timestamp, entryId));
    }

    public static String auditSortKey(Instant timestamp, String entryId) {
        return AUDIT + Timestamps.format(timestamp) + SEPARATOR + entryId;
    }

    /** Lower bound (inclusive) of {@code SK BETWEEN} for entries at or after {@code from}. */
    public static String auditRangeStart(Instant from) {
        return AUDIT + Timestamps.format(from);
    }

    /** Upper bound (inclusive) of {@code SK BETWEEN} for entries at or before {@code to}. */
    public static String auditRangeEnd(Instant to) {
        return AUDIT + Timestamps.format(to) + SEPARATOR + AFTER_ANY_ENTRY_ID;
    }

    /** Reads the timestamp and entryId back out of an audit sort key. */
    public static AuditPosition parseAuditSortKey(String sortKey) {
        if (!sortKey.startsWith(AUDIT)) {
            throw new IllegalArgumentException("not an audit sort key");
        }
        String rest = sortKey.substring(AUDIT.length());
        int separator = rest.indexOf(SEPARATOR);
        if (separator < 0) {
            throw new IllegalArgumentException("audit sort key without entry id");
        }
        return new AuditPosition(Timestamps.parse(rest.substring(0, separator)), rest.substring(separator + 1));
    }

    // RateLimitCounter

    public static PrimaryKey rateLimitWindow(String userId, String action, Instant windowStart) {
        return new PrimaryKey(rateLimitPartition(userId, action), WINDOW + Timestamps.format(windowStart));
    }

    /** The item holding the last claim of a cooldown, in the partition of the subject's action. */
    public static PrimaryKey cooldown(String userId, String action) {
        return new PrimaryKey(rateLimitPartition(userId, action), COOLDOWN);
    }

    /**
     * PK prefix of the rate-limit partitions of every subject whose id starts with {@code subjectPrefix}, of
     * every action (the benchmarks delete their own users' counters by it).
     */
    public static String rateLimitPartitionsPrefix(String subjectPrefix) {
        return RATELIMIT + subjectPrefix;
    }

    /** The partition holding every window of one subject's action. */
    public static String rateLimitPartition(String userId, String action) {
        return RATELIMIT + userId + SEPARATOR + action;
    }

    // The operators' registry of number ranges: a prefix is '+' and digits (NumberRanges), a country an ISO region
    // or 001: never a #.

    /** A mark in one list and window of the registry, under its key ({@link SmsRangeMark#key}). */
    public static PrimaryKey smsRangeMark(SmsRangeMark.Kind kind, Instant window, String key) {
        return new PrimaryKey(smsRangeMarksPartition(kind, window), smsRangeMarksPrefix(kind) + key);
    }

    /** The partition of one list's window: one Query reads it. */
    public static String smsRangeMarksPartition(SmsRangeMark.Kind kind, Instant window) {
        return SMS_RANGES + kind.name() + SEPARATOR + Timestamps.format(window);
    }

    /** SK prefix of every mark in a registry partition of {@code kind}: a country's breaker's, or a range's. */
    public static String smsRangeMarksPrefix(SmsRangeMark.Kind kind) {
        return kind == SmsRangeMark.Kind.COUNTRY_BREAKER ? COUNTRY : RANGE;
    }

    // Webhooks. Endpoint ids are checked by EndpointIds (ep_ and hex), event ids by EventIds (evt_ and
    // base64url): neither holds a #.

    public static PrimaryKey webhookEndpoint(String endpointId) {
        return new PrimaryKey(WEBHOOKS, ENDPOINT + endpointId);
    }

    /** The one partition holding every endpoint, so one Query lists them. */
    public static String webhookEndpointsPartition() {
        return WEBHOOKS;
    }

    public static String webhookEndpointsPrefix() {
        return ENDPOINT;
    }

    /** The delivery's item, in its event's shard of the endpoint's partitions. */
    public static PrimaryKey delivery(String endpointId, Instant occurredAt, String eventId) {
        return new PrimaryKey(deliveriesPartition(endpointId, deliveryShard(eventId)), deliverySortKey(occurredAt,
                eventId));
    }

    /** Where the previous release wrote the delivery: the endpoint's one partition, which is now shard 0's. */
    public static PrimaryKey unshardedDelivery(String endpointId, Instant occurredAt, String eventId) {
        return new PrimaryKey(deliveriesPartition(endpointId, 0), deliverySortKey(occurredAt, eventId));
    }

    /** The partitions of one endpoint's deliveries, shard 0 first. */
    public static List<String> deliveriesPartitions(String endpointId) {
        return IntStream.range(0, DELIVERY_SHARDS).mapToObj(shard -> deliveriesPartition(endpointId, shard)).toList();
    }

    private static String deliveriesPartition(String endpointId, int shard) {
        return WEBHOOK + endpointId + shardSuffix(shard);
    }

    private static String deliverySortKey(Instant occurredAt, String eventId) {
        return DELIVERY + Timestamps.format(occurredAt) + SEPARATOR + eventId;
    }

    /** Lower bound (inclusive) of the deliveries of events at or after {@code from}. */
    public static String deliveryRangeStart(Instant from) {
        return DELIVERY + Timestamps.format(from);
    }

    /** Upper bound (inclusive) of the deliveries of events at or before {@code to}. */
    public static String deliveryRangeEnd(Instant to) {
        return DELIVERY + Timestamps.format(to) + SEPARATOR + AFTER_ANY_ENTRY_ID;
    }

    /** The outbox index key of an undelivered audit entry, in its event's shard: due at once, at its own time. */
    public static IndexKey outboxEvent(String eventId, Instant timestamp) {
        return new IndexKey(outboxEventPartition(outboxShard(eventId)), Timestamps.format(timestamp));
    }

    /**
     * The shard of an event, by its id. String.hashCode is fixed by the language: every instance and version puts
     * an event in the same shard.
     */
    public static int outboxShard(String eventId) {
        return Math.floorMod(eventId.hashCode(), OUTBOX_SHARDS);
    }

    /** The outbox partition of undelivered audit entries of one shard ({@code 0 <= shard < OUTBOX_SHARDS}). */
    public static String outboxEventPartition(int shard) {
        return OUTBOX_EVENTS + shard;
    }

    /** The outbox index key of a PENDING delivery, in its event's shard of the endpoint's partitions. */
    public static IndexKey outboxDelivery(String endpointId, String eventId, Instant dueAt) {
        return new IndexKey(outboxDeliveries(endpointId, deliveryShard(eventId)), Timestamps.format(dueAt));
    }

    /** The outbox partitions of undelivered audit entries. */
    public static List<String> outboxEventPartitions() {
        return IntStream.range(0, OUTBOX_SHARDS).mapToObj(TableKeys::outboxEventPartition).toList();
    }

    /** The outbox partitions of one endpoint's PENDING deliveries, shard 0 first. */
    public static List<String> outboxDeliveryPartitions(String endpointId) {
        return IntStream.range(0, DELIVERY_SHARDS).mapToObj(shard -> outboxDeliveries(endpointId, shard)).toList();
    }

    private static String outboxDeliveries(String endpointId, int shard) {
        return OUTBOX_DELIVERIES + endpointId + shardSuffix(shard);
    }

    /** Shard 0 has no suffix: it is the one partition of the previous release. */
    private static String shardSuffix(int shard) {
        return shard == 0 ? "" : SEPARATOR + shard;
    }

    /** By the event id alone, so the item and its index entry are in the same shard whatever the delivery's state. */
    private static int deliveryShard(String eventId) {
        return Math.floorMod(eventId.hashCode(), DELIVERY_SHARDS);
    }

    /** OUTBOXPK prefix of every outbox partition, of either kind. */
    public static String outboxPrefix() {
        return "OUTBOX#";
    }

    /** OUTBOXPK prefix of the partitions of undelivered audit entries. */
    public static String outboxEventsPrefix() {
        return OUTBOX_EVENTS;
    }

    /** Upper bound (inclusive) of outbox sort keys due at {@code now}. */
    public static String outboxDueBy(Instant now) {
        return Timestamps.format(now);
    }
}
