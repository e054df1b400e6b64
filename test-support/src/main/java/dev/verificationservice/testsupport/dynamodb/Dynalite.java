package dev.verificationservice.testsupport.dynamodb;

import dev.verificationservice.testsupport.dynamodb.faults.DynamoDbFaultProxy;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * dynalite, a DynamoDB-compatible engine on Node.js, installed by the Maven build ({@code npm ci} in
 * {@code test-support/target/dynalite}, found as {@link DynaliteCli} says) and started here once per test run
 * on a free port. It is stopped when the run ends, by JUnit closing the root store, or by the JVM's shutdown
 * hook at the latest.
 *
 * <p>dynalite has no {@code TransactWriteItems}. {@link #transactional()} is the same engine behind a
 * {@link DynamoDbFaultProxy} that emulates it (started once per run, on first use); a store under test talks to
 * that endpoint, and all of its traffic must, since the emulation is isolated only from requests through the
 * proxy. {@link #client()} and {@link #endpoint()} stay the raw engine, for tests of the proxy itself and of
 * an engine without transactions.
 */
public final class Dynalite implements ExtensionContext.Store.CloseableResource, AutoCloseable {

    private static final long START_TIMEOUT_SECONDS = 60;

    private final Process process;
    private final URI endpoint;
    private final DynamoDbClient client;
    private Transactional transactional; // guarded by this; started on first use

    private Dynalite(Process process, URI endpoint) {
        this.process = process;
        this.endpoint = endpoint;
        this.client = client(endpoint);
        Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly));
    }

    /** A client of the endpoint as the tests use one: test credentials, the SDK's default retries; close it. */
    public static DynamoDbClient client(URI endpoint) {
        return client(endpoint, List.of());
    }

    /** {@link #client(URI)} with these interceptors (the benchmarks' request meter). */
    public static DynamoDbClient client(URI endpoint, List<ExecutionInterceptor> interceptors) {
        return DynamoDbClient.builder()
                .endpointOverride(endpoint)
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(ApacheHttpClient.builder().maxConnections(64).build())
                .overrideConfiguration(override -> interceptors.forEach(override::addExecutionInterceptor))
                .build();
    }

    /** The shared instance of this test run, started on first use. */
    public static Dynalite instance(ExtensionContext context) {
        return context.getRoot().getStore(ExtensionContext.Namespace.GLOBAL)
                .getOrComputeIfAbsent(Dynalite.class, key -> start(), Dynalite.class);
    }

    /** A client of the raw engine: no TransactWriteItems. */
    public DynamoDbClient client() {
        return client;
    }

    /** The raw engine: no TransactWriteItems. */
    public URI endpoint() {
        return endpoint;
    }

    /**
     * The engine behind the run's shared proxy that {@linkplain DynamoDbFaultProxy.Options#emulatingTransactions()
     * emulates TransactWriteItems}, with DynamoDB's 10-minute memory of ClientRequestTokens, and whose global
     * secondary indexes {@linkplain DynamoDbFaultProxy.Options#withIndexLag() lag} until a test
     * {@linkplain Transactional#releaseIndexes() releases} them, as DynamoDB's may. Shared by every test
     * of the run: inject no faults on it; start a proxy of your own for that.
     */
    public synchronized Transactional transactional() {
        if (transactional == null) {
            DynamoDbFaultProxy proxy = DynamoDbFaultProxy.start(endpoint,
                    DynamoDbFaultProxy.Options.defaults().emulatingTransactions().withIndexLag());
            transactional = new Transactional(proxy, client(proxy.endpoint()));
        }
        return transactional;
    }

    /** A dynalite of its own on a free port (the development launcher's; tests share {@link #instance}). */
    public static Dynalite launch() {
        return start();
    }

    private static Dynalite start() {
        Path cli = DynaliteCli.locate(System.getProperty(DynaliteCli.PROPERTY), Path.of(""));
        int port = freePort();
        try {
            Process process = new ProcessBuilder("node", cli.toString(), "--port", Integer.toString(port),
                    "--host", "127.0.0.1", "--createTableMs", "0", "--deleteTableMs", "0", "--updateTableMs", "0")
                    .redirectErrorStream(true)
                    .start();
            BufferedReader output = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            // dynalite prints one line once it listens; wait for that line, not for a fixed time.
            CompletableFuture<String> listening = CompletableFuture.supplyAsync(() -> {
                try {
                    return output.readLine();
                } catch (IOException e) {
                    throw new IllegalStateException(e);
                }
            });
            String line = listening.get(START_TIMEOUT_SECONDS, TimeUnit.SECONDS);
            if (line == null || !line.contains("listening")) {
                process.destroyForcibly();
                throw new IllegalStateException("dynalite did not start: " + line);
            }
            drain(output);
            return new Dynalite(process, URI.create("http://127.0.0.1:" + port));
        } catch (IOException | ExecutionException | TimeoutException e) {
            throw new IllegalStateException("could not start dynalite with node (Node.js 20+ must be on the PATH)", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Keeps reading dynalite's output so that a full pipe never blocks it. */
    private static void drain(BufferedReader output) {
        Thread drainer = new Thread(() -> {
            try {
                while (output.readLine() != null) {
                    // discard
                }
            } catch (IOException ignored) {
                // the process ended
            }
        }, "dynalite-output");
        drainer.setDaemon(true);
        drainer.start();
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException("no free port for dynalite", e);
        }
    }

    @Override
    public void close() throws InterruptedException {
        synchronized (this) {
            if (transactional != null) {
                transactional.client.close();
                transactional.proxy.close();
            }
        }
        client.close();
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
    }

    /** dynalite through the shared transaction-emulating proxy: its endpoint and a client of it. */
    public static final class Transactional {
        private final DynamoDbFaultProxy proxy;
        private final DynamoDbClient client;

        private Transactional(DynamoDbFaultProxy proxy, DynamoDbClient client) {
            this.proxy = proxy;
            this.client = client;
        }

        /** Where a store under test connects: the proxy. */
        public URI endpoint() {
            return proxy.endpoint();
        }

        /** A client of {@link #endpoint()}, with the SDK's default retries. */
        public DynamoDbClient client() {
            return client;
        }

        /** The indexes catch up with every write made so far (they never do on their own). */
        public void releaseIndexes() {
            proxy.indexLag().release();
        }
    }

    /** Gives a test class the shared instance: {@code @RegisterExtension static final Dynalite.Extension DYNALITE}. */
    public static final class Extension implements BeforeAllCallback {
        private Dynalite dynalite;

        @Override
        public void beforeAll(ExtensionContext context) {
            dynalite = instance(context);
        }

        public Dynalite get() {
            return dynalite;
        }
    }
}
