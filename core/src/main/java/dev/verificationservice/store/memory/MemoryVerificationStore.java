package dev.verificationservice.store.memory;

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
import dev.verificationservice.events.Delivery;
import dev.verificationservice.events.WebhookEndpoint;
import dev.verificationservice.events.WebhookRepository;
import dev.verificationservice.idempotency.IdempotencyRecord;
import dev.verificationservice.ratelimit.Cooldown;
import dev.verificationservice.ratelimit.Place;
import dev.verificationservice.ratelimit.RateLimitCounter;
import dev.verificationservice.recovery.RecoveryCode;
import dev.verificationservice.recovery.RecoveryCodeReplacement;
import dev.verificationservice.recovery.RecoveryCodeUse;
import dev.verificationservice.recovery.RecoveryUseOutcome;
import dev.verificationservice.totp.StepAcceptance;
import dev.verificationservice.totp.StepOutcome;
import dev.verificationservice.totp.TotpFactor;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The reference store: the whole SPI in memory, in plain maps of the domain's records, small enough to read as the
 * SPI's executable specification. It passes the same contract suite as the SQLite and DynamoDB stores. For tests and
 * for reading, not for production: nothing is persisted, and nothing survives the process.
 *
 * <p><b>Algorithm.</b> One lock for the whole store: every SPI call runs under it, so each conditional write is one
 * atomic step together with all it carries (an audit entry, a place given back), and concurrent calls see one
 * another's writes whole. Each concept keeps its records and tells its algorithm: {@link MemoryCodes},
 * {@link MemoryDevices}, {@link MemoryAudit} (which keeps the rule that every audit entry is also an undelivered
 * event), {@link MemoryCounters}, {@link MemoryIdempotency}, {@link MemoryTotpFactors}, {@link MemoryRecoveryCodes}
 * and {@link MemoryWebhooks}; {@link MemoryAttempts} is the one attempt write that the counted verifications share.
 * The methods below only forward.
 *
 * <p><b>Retries.</b> A call that runs twice is recognised as the other stores recognise it: by the attempt id,
 * issue id or mark its first run stored, or by the audit entry it already wrote.
 *
 * <p><b>Expiry.</b> Nothing is ever deleted for having expired: every read and conditional write decides validity
 * from the ttl the record carries and the {@code now} it is given, to the whole second as a table's {@code ttl}
 * holds it; timestamps compare to the millisecond, as the table's fixed-width text does. Steps of an operation run
 * as separate calls, as on DynamoDB, and independent calls one after another
 * ({@link dev.verificationservice.store.UnitOfWork#SEPARATE_STEPS}).
 */
public final class MemoryVerificationStore implements VerificationStore {

    private final Object lock = new Object();
    private final MemoryAudit audit;
    private final MemoryCounters counters;
    private final MemoryCodes codes;
    private final MemoryDevices devices;
    private final MemoryIdempotency idempotency;
    private final MemoryTotpFactors totpFactors;
    private final MemoryRecoveryCodes recoveryCodes;
    private final MemoryWebhooks webhooks;

    /** A new, empty store. */
    public MemoryVerificationStore() {
        this.audit = new MemoryAudit(lock);
        this.counters = new MemoryCounters(lock);
        MemoryAttempts attempts = new MemoryAttempts(audit, counters);
        this.codes = new MemoryCodes(lock, attempts);
        this.devices = new MemoryDevices(lock, audit);
        this.idempotency = new MemoryIdempotency(lock);
        this.totpFactors = new MemoryTotpFactors(lock, audit, attempts);
        this.recoveryCodes = new MemoryRecoveryCodes(lock, audit, attempts);
        this.webhooks = new MemoryWebhooks(lock, audit);
    }

    /** Everything the store holds, read at one moment under its lock: the tests' raw view of the table. */
    record Contents(List<MemoryCodes.StoredCode> codes, List<DeviceToken> devices,
                    List<MemoryDevices.Marker> revocations, List<MemoryAudit.StoredEntry> audit,
                    List<MemoryCounters.Counter> counters, List<Cooldown> cooldowns,
                    List<IdempotencyRecord> idempotencyKeys, List<MemoryTotpFactors.StoredFactor> factors,
                    List<MemoryRecoveryCodes.StoredCode> recoveryCodes, Map<String, String> recoverySets,
                    List<WebhookEndpoint> endpoints,
                    List<Delivery> deliveries) {
    }

    Contents contents() {
        synchronized (lock) {
            return new Contents(codes.stored(), devices.stored(), devices.markers(), audit.stored(), counters.stored(),
                    counters.cooldowns(), idempotency.stored(), totpFactors.stored(), recoveryCodes.stored(),
                    recoveryCodes.currentSets(), webhooks.listEndpoints(), webhooks.stored());
        }
    }

    /** Stores a counter as given, replacing its window's: a test's counter at its most places. */
    void putCounter(MemoryCounters.Counter counter) {
        counters.put(counter);
    }

    @Override
    public WebhookRepository webhooks() {
        return webhooks;
    }

    /** Always ready: memory has nothing to reach. */
    @Override
    public void checkReady() {
    }

    /** Nothing to release: the records go with the store. */
    @Override
    public void close() {
    }

    // Forwarding, until the SPI reaches each concept through its own port.

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
    public List<DeviceToken> findDevices(String userId, Instant now) {
        return devices.findDevices(userId, now);
    }

    @Override
    public List<DeviceToken> deleteDevices(String userId, Optional<String> deviceId) {
        return devices.deleteDevices(userId, deviceId);
    }

    @Override
    public void markDevicesRevoked(String userId, Instant revokedBefore, Instant expiresAt) {
        devices.markDevicesRevoked(userId, revokedBefore, expiresAt);
    }

    @Override
    public Optional<Instant> findDevicesRevokedBefore(String userId) {
        return devices.findDevicesRevokedBefore(userId);
    }

    @Override
    public boolean appendAudit(AuditEntry entry) {
        return audit.appendAudit(entry);
    }

    @Override
    public List<AuditEntry> queryAudit(String userId, Instant from, Instant to, Optional<AuditPosition> before,
                                       int limit, Instant now) {
        return audit.queryAudit(userId, from, to, before, limit, now);
    }

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
    public Optional<RateLimitCounter> findCounter(String userId, String action, Instant windowStart, Instant now) {
        return counters.findCounter(userId, action, windowStart, now);
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
}
