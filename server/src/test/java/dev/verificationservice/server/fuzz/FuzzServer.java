package dev.verificationservice.server.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.Verification;
import dev.verificationservice.server.ProjectFiles;
import dev.verificationservice.server.TestClockConfiguration;
import dev.verificationservice.server.VerificationServerApplication;
import dev.verificationservice.server.fuzz.HttpSender.Answer;
import dev.verificationservice.server.fuzz.OpenApiDocument.Operation;
import dev.verificationservice.server.fuzz.Oracle.Violation;
import dev.verificationservice.server.fuzz.StoreFingerprint.Print;
import dev.verificationservice.server.openapi.ApiContract;
import dev.verificationservice.server.store.CreateTableCommand;
import dev.verificationservice.spring.VerificationProperties;
import dev.verificationservice.testsupport.time.MutableClock;
import dev.verificationservice.testsupport.dynamodb.Dynalite;
import dev.verificationservice.testsupport.dynamodb.faults.DynamoDbFaultProxy;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * The service under fuzzing, started on a free port on one store (a real SQLite file, or dynalite behind the
 * transaction-emulating proxy), with what the fuzzer keeps between requests: the OpenAPI document it serves, the
 * values its answers held, the store's fingerprint and the counts for the summary.
 */
final class FuzzServer implements AutoCloseable {

    static final String API_KEY = "fuzz-api-key-0123456789abcdefghijklmnopq";
    /** The operator API's key: the document's {@code adminKey} scheme, so the admin operations are fuzzed too. */
    static final String ADMIN_KEY = "fuzz-admin-key-0123456789abcdefghijklmno";
    private static final String HMAC_KEY = "SDTbhBfe5I9Wj1iT38oxkwrifLjf+nSS0eiTOIo68PA=";
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Pattern README_CALL = Pattern.compile("^\\| `(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) (/\\S*)` \\|");
    /** Every this many requests the clock moves on: windows roll over and codes expire, so more paths are reached. */
    private static final int REQUESTS_PER_CLOCK_STEP = 250;

    /** The store to fuzz on. */
    enum Store { EMBEDDED, DYNAMODB }

    private final String store;
    private final List<AutoCloseable> resources = new ArrayList<>();
    private final ConfigurableApplicationContext context;
    private final MutableClock clock;
    private final HttpSender http;
    private final StoreFingerprint fingerprint;
    private final OpenApiDocument document;
    /** The same document as a checker: every answer of a documented operation must match it. */
    private final ApiContract contract;
    private final Values values;
    private final Map<String, String> keys = new LinkedHashMap<>();
    private final Map<Integer, Integer> statuses = new TreeMap<>();
    private int sent;
    private Answer lastRefusal;
    private FuzzRequest lastRefusalRequest;
    private Print afterLastRefusal;

    FuzzServer(Store store) throws Exception {
        this.store = store.name().toLowerCase(java.util.Locale.ROOT);
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("server.port", "0");
        properties.put("verification.api-keys", API_KEY);
        properties.put("verification.admin-api-keys", ADMIN_KEY);
        properties.put("verification.secret-keys", HMAC_KEY);
        properties.put("verification.encryption-keys", "6zNRoqN42GRIublz9bAf+g9uqpvm2DUFi1keiY/33xY=");
        properties.put("logging.level.org.apache.coyote.http11.Http11Processor", "WARN");
        // The store must stay as it was across a refused request: the webhook relay would change it meanwhile.
        properties.put("verification.webhooks.enabled", "false");
        Path dataDirectory = Files.createTempDirectory("verification-api-fuzz");
        properties.put("verification.data-dir", dataDirectory.toString());
        DynamoDbSide dynamo = store == Store.DYNAMODB ? dynamoDb(properties) : null;
        // As arguments: they win over application.properties (its server.port=8080 above all).
        this.context = new SpringApplicationBuilder(VerificationServerApplication.class, TestClockConfiguration.class)
                .run(properties.entrySet().stream().map(entry -> "--" + entry.getKey() + "=" + entry.getValue())
                        .toArray(String[]::new));
        resources.add(context);
        int port = context.getEnvironment().getRequiredProperty("local.server.port", Integer.class);
        this.clock = context.getBean(MutableClock.class);
        this.http = new HttpSender(port);
        this.fingerprint = dynamo != null ? new DynamoDbFingerprint(dynamo.engine().client(), dynamo.table(), dynamo.proxy())
                : new TableFingerprint(dataDirectory.resolve("verification.db"));
        resources.add(fingerprint);
        Answer documentAnswer = http.send(new FuzzRequest("GET /v3/api-docs", List.of("document"), "GET", "/v3/api-docs",
                List.of(new FuzzRequest.Header("Accept", "application/json")), null, false));
        assertThat(documentAnswer.status()).as("GET /v3/api-docs").isEqualTo(200);
        this.document = new OpenApiDocument(JSON.readTree(documentAnswer.body()));
        this.contract = ApiContract.of(port);
        checkAgainstReadme(document.operations());
        this.values = new Values(new Random(0), TestClockConfiguration.START,
                List.copyOf(context.getBean(Verification.class).operator().userActions()));
        keys.put("apiKey", API_KEY);
        keys.put("adminKey", ADMIN_KEY);
    }

    private record DynamoDbSide(Dynalite engine, DynamoDbFaultProxy proxy, String table) {
    }

    /** dynalite of this run's own, behind a proxy that emulates transactions and records what the service sends. */
    private DynamoDbSide dynamoDb(Map<String, Object> properties) {
        // The AWS SDK's default chains read these; a real deployment has AWS_REGION and real credentials.
        System.setProperty("aws.region", "us-east-1");
        System.setProperty("aws.accessKeyId", "test");
        System.setProperty("aws.secretAccessKey", "test");
        Dynalite engine = Dynalite.launch();
        resources.add(engine);
        DynamoDbFaultProxy proxy = DynamoDbFaultProxy.start(engine.endpoint(),
                DynamoDbFaultProxy.Options.defaults().emulatingTransactions());
        resources.add(proxy);
        String table = "verification-fuzz-" + UUID.randomUUID();
        String endpoint = proxy.endpoint().toString();
        // 0: the table is made; TTL is not required (dynalite cannot enable it), as for the service below.
        assertThat(CreateTableCommand.create(new VerificationProperties.Dynamodb(table, endpoint, false,
                Duration.ofSeconds(3), Duration.ofSeconds(1), 3))).isZero();
        properties.put("verification.store", "dynamodb");
        properties.put("verification.dynamodb.table", table);
        properties.put("verification.dynamodb.endpoint", endpoint);
        properties.put("verification.dynamodb.require-ttl", "false");
        properties.put("verification.dev-outbox", "true");
        return new DynamoDbSide(engine, proxy, table);
    }

    List<Operation> operations() {
        return document.operations();
    }

    /** A request generator that takes every decision from this random (jqwik's, so a seed replays them). */
    RequestFactory factory(Random random) {
        return new RequestFactory(random, values.with(random), document, keys);
    }

    /**
     * Sends one request; returns what it broke of the contract: the answer (see {@link Oracle}), and for a refusal
     * the store, which must be as it was (also until the next request: a late write is the refusal's fault too).
     */
    List<Violation> execute(FuzzRequest request) {
        if (sent > 0 && sent % REQUESTS_PER_CLOCK_STEP == 0) {
            clock.advance(Duration.ofMinutes(3));
        }
        List<Violation> violations = new ArrayList<>();
        Print before = fingerprint.current();
        if (lastRefusal != null && !before.equals(afterLastRefusal)) {
            violations.add(new Violation("LATE_WRITE", "the store changed after the " + lastRefusal.status()
                    + " answer to " + lastRefusalRequest.describe(200) + "\nbefore this request: " + afterLastRefusal
                    + " became " + before));
        }
        lastRefusal = null;
        Answer answer = http.send(request);
        sent++;
        statuses.merge(answer.status(), 1, Integer::sum);
        violations.addAll(Oracle.check(request, answer));
        if (answer.status() > 0) {
            Map<String, List<String>> headers = new LinkedHashMap<>();
            request.headers().forEach(header -> headers.computeIfAbsent(header.name(), name -> new ArrayList<>())
                    .add(header.value()));
            ApiContract.Exchange checked = contract.check(request.method(), request.target(), headers,
                    request.bodyBytes(), answer.status(), answer.headers(), answer.body());
            if (checked.documented() && !checked.answerProblems().isEmpty()) {
                violations.add(new Violation("ANSWER_BREAKS_DOCUMENT", String.join("; ", checked.answerProblems())));
            }
        }
        if (Oracle.REFUSALS.contains(answer.status())) {
            Print after = fingerprint.current();
            if (!after.equals(before)) {
                violations.add(new Violation("PARTIAL_WRITE", "answered " + answer.status() + " "
                        + Oracle.problemCode(answer) + " but the store went from " + before + " to " + after));
            }
            lastRefusal = answer;
            lastRefusalRequest = request;
            afterLastRefusal = after;
        }
        if (answer.status() >= 200 && answer.status() < 300) {
            JsonNode json = Oracle.jsonOrNull(answer);
            if (json != null) {
                values.learn(json);
            }
        }
        if (!violations.isEmpty()) {
            violations.add(new Violation("ANSWER", answer.status() + ", Content-Type: " + answer.header("Content-Type")
                    + ", body: " + FuzzRequest.Printable.of(answer.body(), 400)
                    + (answer.error() == null ? "" : " [" + answer.error() + "]")));
        }
        return violations;
    }

    String summary() {
        return String.format("[api-fuzz] %s store: %d requests (%d over a plain socket), statuses %s, 5xx: %d; "
                        + "store read whole %d times (%d ms)", store, sent, http.rawRequests(), statuses,
                statuses.entrySet().stream().filter(entry -> entry.getKey() >= 500).mapToInt(Map.Entry::getValue).sum(),
                fingerprint.recomputations(), fingerprint.recomputeMillis());
    }

    /** The document must hold at least every call the API reference's table lists: a broken document is noticed. */
    private static void checkAgainstReadme(List<Operation> operations) throws IOException {
        Path readme = ProjectFiles.apiReference();
        List<String> listed = new ArrayList<>();
        for (String line : Files.readAllLines(readme)) {
            Matcher call = README_CALL.matcher(line);
            if (call.find()) {
                listed.add(call.group(1) + " " + normalise(call.group(2)));
            }
        }
        assertThat(listed).as("the API table of " + readme).isNotEmpty();
        List<String> documented = operations.stream()
                .map(operation -> operation.method() + " " + normalise(operation.path())).toList();
        assertThat(documented).as("operations in /v3/api-docs").containsAll(listed.stream().distinct().toList());
    }

    private static String normalise(String path) {
        return path.replaceAll("\\{[^}]*}", "{}");
    }

    @Override
    public void close() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
    }
}
