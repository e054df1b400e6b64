package dev.verificationservice.bench;

import dev.verificationservice.store.dynamodb.DynamoDbTableAdmin;
import dev.verificationservice.testsupport.dynamodb.faults.DynamoDbFaultProxy;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * dynalite (installed under {@code benchmarks/target/dynalite} by the build) on a free port, behind the test
 * suite's {@link DynamoDbFaultProxy} that emulates TransactWriteItems and records every request, with one
 * table in the service's shape. {@link #client} talks through the proxy, {@link #rawClient} to the engine (not
 * recorded: for preparing data and for reading items around a request).
 */
public final class LocalDynamo implements AutoCloseable {

    public static final String TABLE = "verification-bench";

    private final Process process;
    private final URI engine;
    private final DynamoDbFaultProxy proxy;
    private final DynamoDbClient rawClient;

    private LocalDynamo(Process process, URI engine) {
        this.process = process;
        this.engine = engine;
        this.proxy = DynamoDbFaultProxy.start(engine, DynamoDbFaultProxy.Options.defaults().emulatingTransactions());
        this.rawClient = client(engine, List.of());
        new DynamoDbTableAdmin(rawClient, TABLE).createTable();
    }

    public static LocalDynamo start() {
        Path cli = Path.of(System.getProperty("bench.dynalite.cli", "benchmarks/target/dynalite/node_modules/dynalite/cli.js"));
        if (!Files.isRegularFile(cli)) {
            throw new IllegalStateException("dynalite is not installed at " + cli.toAbsolutePath() + "; run bench/run");
        }
        int port = freePort();
        try {
            Process process = new ProcessBuilder("node", cli.toString(), "--port", Integer.toString(port),
                    "--host", "127.0.0.1", "--createTableMs", "0", "--deleteTableMs", "0", "--updateTableMs", "0")
                    .redirectErrorStream(true).start();
            BufferedReader output = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            String line = CompletableFuture.supplyAsync(() -> {
                try {
                    return output.readLine();
                } catch (IOException e) {
                    return null;
                }
            }).get(60, TimeUnit.SECONDS);
            if (line == null || !line.contains("listening")) {
                process.destroyForcibly();
                throw new IllegalStateException("dynalite did not start: " + line);
            }
            Thread drain = new Thread(() -> {
                try {
                    while (output.readLine() != null) {
                        // discard
                    }
                } catch (IOException ignored) {
                    // ended
                }
            }, "dynalite-output");
            drain.setDaemon(true);
            drain.start();
            Runtime.getRuntime().addShutdownHook(new Thread(process::destroyForcibly));
            return new LocalDynamo(process, URI.create("http://127.0.0.1:" + port));
        } catch (Exception e) {
            throw new IllegalStateException("could not start dynalite with node", e);
        }
    }

    /** A client as the server builds one for a custom endpoint, with the given interceptors. */
    public static DynamoDbClient client(URI endpoint, List<ExecutionInterceptor> interceptors) {
        return DynamoDbClient.builder()
                .endpointOverride(endpoint)
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(ApacheHttpClient.builder().maxConnections(64).build())
                .overrideConfiguration(override -> interceptors.forEach(override::addExecutionInterceptor))
                .build();
    }

    /** Where the store connects: the recording, transaction-emulating proxy. */
    public URI endpoint() {
        return proxy.endpoint();
    }

    public DynamoDbFaultProxy proxy() {
        return proxy;
    }

    public DynamoDbClient rawClient() {
        return rawClient;
    }

    public DynamoDbClient client(List<ExecutionInterceptor> interceptors) {
        return client(proxy.endpoint(), interceptors);
    }

    private static int freePort() {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        rawClient.close();
        proxy.close();
        process.destroy();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public String toString() {
        return "dynalite at " + engine + " behind " + proxy.endpoint();
    }
}
