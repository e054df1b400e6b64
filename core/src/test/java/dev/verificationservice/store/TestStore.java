package dev.verificationservice.store;

import dev.verificationservice.VerificationStore;
import dev.verificationservice.audit.AuditRepository;
import dev.verificationservice.devices.DeviceRepository;
import dev.verificationservice.events.WebhookRepository;
import dev.verificationservice.idempotency.IdempotencyRepository;
import dev.verificationservice.store.memory.MemoryTable;
import dev.verificationservice.store.memory.MemoryVerificationStore;
import dev.verificationservice.totp.TotpRepository;
import java.util.concurrent.ExecutorService;

/**
 * The reference store, with the ports the core's tests reach into behind a test decorator: its counters
 * ({@link FaultyCounters}), codes ({@link FaultyCodes}) and recovery codes ({@link InterleavedRecoveryCodes}),
 * which forward every call unchanged until a test asks for a fault. A test builds {@code Verification} on it as an
 * application would, and reads what is stored through {@link #table()}.
 */
public final class TestStore implements VerificationStore {

    private final MemoryVerificationStore memory = new MemoryVerificationStore();
    private final MemoryTable table = new MemoryTable(memory);
    private final Faults faults = new Faults();
    private final CallGate gate = new CallGate();
    private final FaultyCounters counters = new FaultyCounters(memory.counters(), faults, gate);
    private final FaultyCodes codes = new FaultyCodes(memory.codes(), faults, gate);
    private final InterleavedRecoveryCodes recoveryCodes = new InterleavedRecoveryCodes(memory.recoveryCodes());
    private UnitOfWork units = UnitOfWork.SEPARATE_STEPS;

    /** From now on independent calls each run on one of {@code threads}, as DynamoDB runs them in parallel. */
    public void independentCallsOn(ExecutorService threads) {
        units = new ParallelUnits(threads);
    }

    @Override
    public UnitOfWork units() {
        return units;
    }

    /** What the store holds. */
    public MemoryTable table() {
        return table;
    }

    /** The calls of the counters and codes that fail on purpose. */
    public Faults faults() {
        return faults;
    }

    /** Where the reads and place-takings of the counters and codes can be held until they meet. */
    public CallGate gate() {
        return gate;
    }

    @Override
    public FaultyCodes codes() {
        return codes;
    }

    @Override
    public DeviceRepository devices() {
        return memory.devices();
    }

    @Override
    public AuditRepository audit() {
        return memory.audit();
    }

    @Override
    public FaultyCounters counters() {
        return counters;
    }

    @Override
    public IdempotencyRepository idempotency() {
        return memory.idempotency();
    }

    @Override
    public TotpRepository totp() {
        return memory.totp();
    }

    @Override
    public InterleavedRecoveryCodes recoveryCodes() {
        return recoveryCodes;
    }

    @Override
    public WebhookRepository webhooks() {
        return memory.webhooks();
    }

    @Override
    public void checkReady() {
        memory.checkReady();
    }

    @Override
    public void close() {
        memory.close();
    }
}
