package dev.verificationservice.testsupport.dynamodb;

import dev.verificationservice.testsupport.dynamodb.faults.DynamoDbFaultProxy;
import java.util.concurrent.CountDownLatch;

/**
 * A DynamoDB-compatible engine for development, started by {@code dev/local-dynamodb}: dynalite behind the test
 * suite's {@link DynamoDbFaultProxy} with its TransactWriteItems emulation (plain dynalite has no transactions,
 * so no code could be verified on it), listening on 127.0.0.1 and port 8000 or the first argument, until it is
 * stopped (Ctrl-C). A tool: it lives in the test sources and is in no product jar. It has no TTL
 * (UpdateTimeToLive), so the service needs {@code VERIFICATION_DYNAMODB_REQUIRE_TTL=false} on it.
 */
public final class LocalDynamoDb {

    private LocalDynamoDb() {
    }

    public static void main(String[] args) throws Exception {
        int port = args.length > 0 ? Integer.parseInt(args[0]) : 8000;
        Dynalite engine = Dynalite.launch();
        DynamoDbFaultProxy proxy;
        try {
            proxy = DynamoDbFaultProxy.start(engine.endpoint(),
                    DynamoDbFaultProxy.Options.defaults().emulatingTransactions(), port);
        } catch (RuntimeException e) {
            engine.close();
            throw new IllegalStateException("port " + port + " is taken; give another: dev/local-dynamodb <port>", e);
        }
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            proxy.close();
            try {
                engine.close();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }, "local-dynamodb-stop"));
        System.out.println("local-dynamodb: dynalite with emulated transactions at " + proxy.endpoint()
                + " (no TTL: set VERIFICATION_DYNAMODB_REQUIRE_TTL=false); Ctrl-C stops it");
        new CountDownLatch(1).await();
    }
}
