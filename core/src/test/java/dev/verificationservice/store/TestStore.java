package dev.verificationservice.store;

import dev.verificationservice.StorePorts;
import dev.verificationservice.VerificationStore;
import dev.verificationservice.events.EventSubscriptions;
import dev.verificationservice.store.memory.MemoryTable;
import dev.verificationservice.store.memory.MemoryVerificationStore;
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
    private final FaultyCodes codes = new FaultyCodes(memory.codes(), faults);
    private final InterleavedRecoveryCodes recoveryCodes = new InterleavedRecoveryCodes(memory.recoveryCodes());
    private final StorePorts ports = new StorePorts(codes, memory.devices(), memory.audit(), counters,
            memory.idempotency(), memory.totp(), recoveryCodes, memory.webhooks(), memory.passkeys(),
            memory.smsRanges());
    private UnitOfWork units = UnitOfWork.SEPARATE_STEPS;

    /** From now on independent calls each run on one of {@code threads}, as DynamoDB runs them in parallel. */
    public void independentCallsOn(ExecutorService threads) {
        units = new ParallelUnits(threads);
    }

    @Override
    public EventSubscriptions eventSubscriptions() {
        return memory.eventSubscriptions();
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

    /** Where the counters' reads and place-takings can be held until they meet. */
    public CallGate gate() {
        return gate;
    }

    @Override
    public StorePorts ports() {
        return ports;
    }

    @Override
    public FaultyCodes codes() {
        return codes;
    }

    @Override
    public FaultyCounters counters() {
        return counters;
    }

    @Override
    public InterleavedRecoveryCodes recoveryCodes() {
        return recoveryCodes;
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
