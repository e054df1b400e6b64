package dev.verificationservice.store.memory;

import dev.verificationservice.StorePorts;
import dev.verificationservice.VerificationStore;
import dev.verificationservice.devices.DeviceToken;
import dev.verificationservice.events.Delivery;
import dev.verificationservice.events.EventSubscriptions;
import dev.verificationservice.events.WebhookEndpoint;
import dev.verificationservice.idempotency.IdempotencyRecord;
import dev.verificationservice.ratelimit.Cooldown;
import java.util.List;
import java.util.Map;

/**
 * The reference store: the whole SPI in memory, in plain maps of the domain's records, small enough to read as the
 * SPI's executable specification. It passes the same contract suite as the SQLite and DynamoDB stores. For tests and
 * for reading, not for production: nothing is persisted, and nothing survives the process.
 *
 * <p><b>Algorithm.</b> One lock for the whole store: every SPI call runs under it, so each conditional write is one
 * atomic step together with all it carries (an audit entry, a place given back), and concurrent calls see one
 * another's writes whole. Each concept keeps its records and tells its algorithm: {@link MemoryCodes},
 * {@link MemoryDevices}, {@link MemoryAudit} (which asks {@link EventSubscriptions} whether an audit entry is also an
 * undelivered event), {@link MemoryCounters}, {@link MemoryIdempotency}, {@link MemoryTotpFactors}, {@link MemoryRecoveryCodes}
 * and {@link MemoryWebhooks}, each the store's port of its concept; {@link MemoryAttempts} is the one attempt write
 * that the counted verifications share.
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
    private final MemoryPasskeys passkeys;
    private final MemorySmsRanges smsRanges;
    private final StorePorts ports;

    /** A new, empty store. */
    public MemoryVerificationStore() {
        this.audit = new MemoryAudit(lock, this::endpoints);
        this.counters = new MemoryCounters(lock);
        MemoryAttempts attempts = new MemoryAttempts(audit, counters);
        this.codes = new MemoryCodes(lock, attempts);
        this.devices = new MemoryDevices(lock, audit);
        this.idempotency = new MemoryIdempotency(lock);
        this.totpFactors = new MemoryTotpFactors(lock, audit, attempts);
        this.recoveryCodes = new MemoryRecoveryCodes(lock, audit, attempts);
        this.webhooks = new MemoryWebhooks(lock, audit);
        this.passkeys = new MemoryPasskeys(lock, audit, attempts);
        this.smsRanges = new MemorySmsRanges(lock);
        this.ports = new StorePorts(codes, devices, audit, counters, idempotency, totpFactors, recoveryCodes,
                webhooks, passkeys, smsRanges);
    }

    /** What the audit's subscriptions view reads: built after the audit, which the webhooks port needs. */
    private List<WebhookEndpoint> endpoints() {
        return webhooks.listEndpoints();
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

    /** Each concept's own class, built once. */
    @Override
    public StorePorts ports() {
        return ports;
    }

    @Override
    public EventSubscriptions eventSubscriptions() {
        return audit.subscriptions();
    }

    /** Always ready: memory has nothing to reach. */
    @Override
    public void checkReady() {
    }

    /** Nothing to release: the records go with the store. */
    @Override
    public void close() {
    }
}
