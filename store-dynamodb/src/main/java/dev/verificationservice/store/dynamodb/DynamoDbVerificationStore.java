package dev.verificationservice.store.dynamodb;

import static dev.verificationservice.store.dynamodb.ConsumedCapacityRecorder.Kind.READ;

import dev.verificationservice.VerificationStore;
import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.codes.CodeConsumption;
import dev.verificationservice.codes.CodeFormat;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.ConsumeOutcome;
import dev.verificationservice.codes.VerificationCode;
import dev.verificationservice.devices.DeviceToken;
import dev.verificationservice.devices.DeviceUse;
import dev.verificationservice.devices.UseOutcome;
import dev.verificationservice.events.WebhookRepository;
import dev.verificationservice.idempotency.IdempotencyRecord;
import dev.verificationservice.ratelimit.Cooldown;
import dev.verificationservice.ratelimit.Place;
import dev.verificationservice.ratelimit.RateLimitCounter;
import dev.verificationservice.recovery.RecoveryCode;
import dev.verificationservice.recovery.RecoveryCodeReplacement;
import dev.verificationservice.recovery.RecoveryCodeUse;
import dev.verificationservice.recovery.RecoveryUseOutcome;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.store.UnitOfWork;
import dev.verificationservice.totp.StepAcceptance;
import dev.verificationservice.totp.StepOutcome;
import dev.verificationservice.totp.TotpFactor;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The single table on Amazon DynamoDB, or any endpoint that speaks its API.
 *
 * <p><b>Algorithm.</b> Every access pattern is one request (or one paginated query followed by batched
 * deletes), and every write that depends on validity carries its condition. Every write is also correct when
 * it runs twice: the SDK retries a request whose answer was lost, so each conditional write carries an
 * attempt id that the store recognises when its own earlier write makes the condition fail. Each repository's
 * class tells its part, request by request, with its expressions as named constants:
 * <ul>
 *   <li>{@link DynamoDbCodes}: new code, consume (one transaction), keep only the newest code (the current-code
 *   marker), invalidate, list and delete codes;</li>
 *   <li>{@link DynamoDbDevices}: register, use (slide or re-key, then read the revoke-all marker), the
 *   revoke-all marker, list and revoke devices;</li>
 *   <li>{@link DynamoDbAudit}: append an entry, query a user's entries;</li>
 *   <li>{@link DynamoDbCounters}: take, give back and keep a rate-limit place, claim and release a cooldown,
 *   read counters and lift a limit;</li>
 *   <li>{@link DynamoDbIdempotency}: claim, complete, release and read an Idempotency-Key;</li>
 *   <li>{@link DynamoDbTotpFactors}: enrol, confirm, accept a time step (the replay rule), list and remove
 *   authenticator factors; {@link DynamoDbRecoveryCodes}: replace a set, use a code, list and delete codes (both
 *   with {@link DynamoDbAttempts}: one transaction per attempt, retried by its attempt id);</li>
 *   <li>{@link DynamoDbWebhooks}: webhook endpoints, deliveries and the outbox (the audit item itself, in a sparse
 *   index);</li>
 *   <li>{@link DynamoDbTable}: what they share: conditional puts and updates, consistent reads, queries followed
 *   to their last page, deletes in groups of 25 retried with backoff, capacity recording and failure mapping;
 *   {@link TransactionConflicts}: what a write does when it meets a running transaction.</li>
 * </ul>
 * Every Query filters expired items because TTL deletes late; GetItem results are returned as stored and the
 * domain compares their ttl with its clock. No rule reads GSI1, which lags; every failure of the SDK becomes a
 * {@link StoreException} (both: see {@link DynamoDbTable}).
 */
public final class DynamoDbVerificationStore implements VerificationStore {

    private final DynamoDbTable table;
    // Package-private: the tests build a transaction's request (its token, its items) without sending it.
    final DynamoDbCodes codes;
    final DynamoDbDevices devices;
    private final DynamoDbAudit audit;
    private final DynamoDbCounters counters;
    private final DynamoDbIdempotency idempotency;
    private final DynamoDbTotpFactors totpFactors;
    private final DynamoDbRecoveryCodes recoveryCodes;
    private final DynamoDbWebhooks webhooks;

    /**
     * @param conditionFailureReturnsItem true for Amazon DynamoDB, which honours
     *        {@code ReturnValuesOnConditionCheckFailure}; false for an engine that does not (dynalite), where a
     *        failed conditional write is followed by one consistent GetItem to learn why it failed
     */
    public DynamoDbVerificationStore(DynamoDbClient client, String tableName, ConsumedCapacityRecorder capacity,
                                     boolean conditionFailureReturnsItem) {
        this.table = new DynamoDbTable(client, tableName, capacity, conditionFailureReturnsItem);
        this.codes = new DynamoDbCodes(table);
        this.devices = new DynamoDbDevices(table);
        this.audit = new DynamoDbAudit(table);
        this.counters = new DynamoDbCounters(table);
        this.idempotency = new DynamoDbIdempotency(table);
        this.totpFactors = new DynamoDbTotpFactors(table);
        this.recoveryCodes = new DynamoDbRecoveryCodes(table);
        this.webhooks = new DynamoDbWebhooks(table);
    }

    public DynamoDbVerificationStore(DynamoDbClient client, String tableName) {
        this(client, tableName, new ConsumedCapacityRecorder(), true);
    }

    public ConsumedCapacityRecorder consumedCapacity() {
        return table.capacity;
    }

    // Codes: DynamoDbCodes

    @Override
    public boolean insertCode(VerificationCode code, String issueId) {
        return codes.insertCode(code, issueId);
    }

    @Override
    public Optional<VerificationCode> findCode(String digest) {
        return codes.findCode(digest);
    }

    @Override
    public ConsumeOutcome consumeCode(CodeConsumption consumption) {
        return codes.consumeCode(consumption);
    }

    @Override
    public List<VerificationCode> makeCurrent(VerificationCode code) {
        return codes.makeCurrent(code);
    }

    @Override
    public List<VerificationCode> deleteCodes(String userId, CodeType codeType, Optional<CodeFormat> format) {
        return codes.deleteCodes(userId, codeType, format);
    }

    @Override
    public List<VerificationCode> findCodes(String userId, CodeType codeType) {
        return codes.findCodes(userId, codeType);
    }

    @Override
    public void deleteCode(String digest) {
        codes.deleteCode(digest);
    }

    // Devices: DynamoDbDevices

    @Override
    public void registerDevice(DeviceToken token, AuditEntry deviceAdded) {
        devices.registerDevice(token, deviceAdded);
    }

    @Override
    public Optional<DeviceToken> findDevice(String deviceId, String tokenId) {
        return devices.findDevice(deviceId, tokenId);
    }

    @Override
    public UseOutcome useDevice(DeviceUse use) {
        return devices.useDevice(use);
    }

    @Override
    public Optional<Instant> findDevicesRevokedBefore(String userId) {
        return devices.findDevicesRevokedBefore(userId);
    }

    @Override
    public void markDevicesRevoked(String userId, Instant revokedBefore, Instant expiresAt) {
        devices.markDevicesRevoked(userId, revokedBefore, expiresAt);
    }

    @Override
    public List<DeviceToken> findDevices(String userId, Instant now) {
        return devices.findDevices(userId, now);
    }

    @Override
    public List<DeviceToken> deleteDevices(String userId, Optional<String> deviceId) {
        return devices.deleteDevices(userId, deviceId);
    }

    // Audit: DynamoDbAudit

    @Override
    public boolean appendAudit(AuditEntry entry) {
        return audit.appendAudit(entry);
    }

    @Override
    public List<AuditEntry> queryAudit(String userId, Instant from, Instant to, Optional<AuditPosition> before,
                                      int limit, Instant now) {
        return audit.queryAudit(userId, from, to, before, limit, now);
    }

    // Rate limits and cooldowns: DynamoDbCounters

    @Override
    public long takePlace(Place place, long ceiling) {
        return counters.takePlace(place, ceiling);
    }

    @Override
    public void givePlaceBack(Place place) {
        counters.givePlaceBack(place);
    }

    @Override
    public void keepPlace(Place place) {
        counters.keepPlace(place);
    }

    @Override
    public int deleteCounters(String userId, String action) {
        return counters.deleteCounters(userId, action);
    }

    @Override
    public List<RateLimitCounter> findCounters(String userId, String action, Instant fromWindowStart,
                                               Instant toWindowStart, Instant now) {
        return counters.findCounters(userId, action, fromWindowStart, toWindowStart, now);
    }

    @Override
    public Optional<Instant> claimCooldown(Cooldown cooldown) {
        return counters.claimCooldown(cooldown);
    }

    @Override
    public void releaseCooldown(Cooldown cooldown) {
        counters.releaseCooldown(cooldown);
    }

    @Override
    public Optional<RateLimitCounter> findCounter(String userId, String action, Instant windowStart, Instant now) {
        return counters.findCounter(userId, action, windowStart, now);
    }

    // Idempotency-Keys: DynamoDbIdempotency

    @Override
    public Optional<IdempotencyRecord> claimIdempotencyKey(IdempotencyRecord pending, Instant staleBefore) {
        return idempotency.claimIdempotencyKey(pending, staleBefore);
    }

    @Override
    public void completeIdempotencyKey(String keyDigest, String claimedBy, IdempotencyRecord.StoredAnswer answer) {
        idempotency.completeIdempotencyKey(keyDigest, claimedBy, answer);
    }

    @Override
    public void releaseIdempotencyKey(String keyDigest, String claimedBy) {
        idempotency.releaseIdempotencyKey(keyDigest, claimedBy);
    }

    @Override
    public Optional<IdempotencyRecord> findIdempotencyKey(String keyDigest, Instant now) {
        return idempotency.findIdempotencyKey(keyDigest, now);
    }

    // TOTP factors: DynamoDbTotpFactors

    @Override
    public boolean insertFactor(TotpFactor factor, AuditEntry enrolled, int maxFactors) {
        return totpFactors.insertFactor(factor, enrolled, maxFactors);
    }

    @Override
    public List<TotpFactor> findFactors(String userId) {
        return totpFactors.findFactors(userId);
    }

    @Override
    public Optional<TotpFactor> findFactor(String userId, String factorId) {
        return totpFactors.findFactor(userId, factorId);
    }

    @Override
    public StepOutcome confirmFactor(StepAcceptance confirmation) {
        return totpFactors.confirmFactor(confirmation);
    }

    @Override
    public StepOutcome acceptStep(StepAcceptance acceptance) {
        return totpFactors.acceptStep(acceptance);
    }

    @Override
    public List<TotpFactor> deleteFactors(String userId, Optional<String> factorId) {
        return totpFactors.deleteFactors(userId, factorId);
    }

    // Recovery codes: DynamoDbRecoveryCodes

    @Override
    public Optional<String> currentRecoverySet(String userId) {
        return recoveryCodes.currentRecoverySet(userId);
    }

    @Override
    public boolean replaceRecoveryCodes(RecoveryCodeReplacement replacement) {
        return recoveryCodes.replaceRecoveryCodes(replacement);
    }

    @Override
    public List<RecoveryCode> findRecoveryCodes(String userId) {
        return recoveryCodes.findRecoveryCodes(userId);
    }

    @Override
    public RecoveryUseOutcome useRecoveryCode(RecoveryCodeUse use) {
        return recoveryCodes.useRecoveryCode(use);
    }

    @Override
    public List<RecoveryCode> deleteRecoveryCodes(String userId) {
        return recoveryCodes.deleteRecoveryCodes(userId);
    }

    // Operations

    @Override
    public WebhookRepository webhooks() {
        return webhooks;
    }

    @Override
    public void checkReady() {
        table.call("describe the table",
                () -> table.client.describeTable(request -> request.tableName(table.tableName)));
        table.capacity.record(AccessPattern.CHECK_READY, READ, List.of());
    }

    /** Each step its own request; independent calls in parallel ({@link DynamoDbUnitOfWork}). */
    @Override
    public UnitOfWork units() {
        return DynamoDbUnitOfWork.INSTANCE;
    }

    /** The client belongs to whoever built it; closing the store leaves it open. */
    @Override
    public void close() {
    }
}
