package dev.verificationservice.bench;

import dev.verificationservice.store.dynamodb.DynamoDbTableAdmin;
import dev.verificationservice.testsupport.dynamodb.Dynalite;
import dev.verificationservice.testsupport.dynamodb.faults.DynamoDbFaultProxy;
import dev.verificationservice.testsupport.dynamodb.faults.PartitionLimits;
import java.net.URI;
import java.util.List;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * dynalite of its own, started by the test-support launcher the tests use, behind the test suite's
 * {@link DynamoDbFaultProxy} that emulates TransactWriteItems and records every request, with one table in the
 * service's shape. {@link #client} talks through the proxy, {@link #rawClient} to the engine (not recorded: for
 * preparing data and for reading items around a request).
 */
final class BenchDynamo implements AutoCloseable {

    static final String TABLE = "verification-bench";

    private final Dynalite engine;
    private final DynamoDbFaultProxy proxy;

    private BenchDynamo(Dynalite engine, DynamoDbFaultProxy.Options options) {
        this.engine = engine;
        this.proxy = DynamoDbFaultProxy.start(engine.endpoint(), options);
        new DynamoDbTableAdmin(engine.client(), TABLE).createTable();
    }

    static BenchDynamo start() {
        return new BenchDynamo(Dynalite.launch(), DynamoDbFaultProxy.Options.defaults().emulatingTransactions());
    }

    /** As {@link #start()}, the proxy also charging every partition key ({@code proxy().partitions()}) under {@code limits}. */
    static BenchDynamo start(PartitionLimits limits) {
        return new BenchDynamo(Dynalite.launch(),
                DynamoDbFaultProxy.Options.defaults().emulatingTransactions().withPartitionLimits(limits));
    }

    /** Where the store connects: the recording, transaction-emulating proxy. */
    URI endpoint() {
        return proxy.endpoint();
    }

    DynamoDbFaultProxy proxy() {
        return proxy;
    }

    DynamoDbClient rawClient() {
        return engine.client();
    }

    /** A client of the proxy as the server builds one for a custom endpoint, with the given interceptors. */
    DynamoDbClient client(List<ExecutionInterceptor> interceptors) {
        return Dynalite.client(proxy.endpoint(), interceptors);
    }

    @Override
    public void close() {
        proxy.close();
        try {
            engine.close();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "dynalite at " + engine.endpoint() + " behind " + proxy.endpoint();
    }
}
