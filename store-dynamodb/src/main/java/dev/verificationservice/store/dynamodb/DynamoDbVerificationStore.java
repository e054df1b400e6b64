package dev.verificationservice.store.dynamodb;

import static dev.verificationservice.store.dynamodb.ConsumedCapacityRecorder.Kind.READ;

import dev.verificationservice.StorePorts;
import dev.verificationservice.VerificationStore;
import dev.verificationservice.events.EventSubscriptions;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.store.UnitOfWork;
import java.util.List;
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
    private final DynamoDbPasskeys passkeys;
    private final DynamoDbRecoveryCodes recoveryCodes;
    private final DynamoDbWebhooks webhooks;
    private final DynamoDbSmsRanges smsRanges;
    private final StorePorts ports;

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
        this.passkeys = new DynamoDbPasskeys(table);
        this.recoveryCodes = new DynamoDbRecoveryCodes(table);
        this.webhooks = new DynamoDbWebhooks(table);
        table.outbox.subscriptions(new EventSubscriptions(webhooks::listEndpoints));
        this.smsRanges = new DynamoDbSmsRanges(table);
        this.ports = new StorePorts(codes, devices, audit, counters, idempotency, totpFactors, recoveryCodes,
                webhooks, passkeys, smsRanges);
    }

    public DynamoDbVerificationStore(DynamoDbClient client, String tableName) {
        this(client, tableName, new ConsumedCapacityRecorder(), true);
    }

    public ConsumedCapacityRecorder consumedCapacity() {
        return table.capacity;
    }

    /** Each concept's own class, built once. */
    @Override
    public StorePorts ports() {
        return ports;
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

    @Override
    public EventSubscriptions eventSubscriptions() {
        return table.outbox.subscriptions();
    }

    /** The client belongs to whoever built it; closing the store leaves it open. */
    @Override
    public void close() {
    }
}
