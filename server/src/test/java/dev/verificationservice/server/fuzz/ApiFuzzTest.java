package dev.verificationservice.server.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.server.TestClockConfiguration;
import dev.verificationservice.server.fuzz.HttpSender.Answer;
import dev.verificationservice.server.fuzz.OpenApiDocument.Operation;
import dev.verificationservice.server.fuzz.Oracle.Violation;
import dev.verificationservice.server.fuzz.TableFingerprint.Print;
import dev.verificationservice.store.contract.MutableClock;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.json.JsonMapper;

/**
 * Fuzzes the HTTP API from the service's own OpenAPI document ({@code GET /v3/api-docs}): for every operation it
 * lists, valid requests built from the document's parameters and body schemas, and the same requests broken in
 * every way a client or an attacker could (wrong JSON types, null, huge strings around the 16 KB limit, deep
 * nesting, duplicate keys, invalid UTF-8, control characters and {@code #}, unknown enum values, missing and extra
 * fields, malformed and empty bodies, wrong Content-Type and Accept, odd path parameters and query strings,
 * missing or wrong Authorization, other methods and paths). An endpoint added to the document is fuzzed without
 * changing this test.
 *
 * <p>Every answer must hold to the API's contract (SPEC §7): never a 5xx (the embedded store is healthy and the
 * development outbox delivers, so nothing may fail), every 4xx an {@code application/problem+json} whose
 * {@code status} is the HTTP status, with a non-empty {@code code} and, when there is a {@code field}, a non-empty
 * one; and an answer that refuses the input (400, 401, 403, 404, 405, 406, 413, 415, 422) leaves the table exactly as it
 * was, read straight from the SQLite file over a separate read-only connection.
 *
 * <p>Requests are generated from a seeded {@link Random} (printed; rerun one with {@code -Dfuzz.seed=...}, and
 * choose the count with {@code -Dfuzz.requests=...}). The answers feed back in (codes from the outbox, device
 * secrets, cursors), so a rerun with the same seed takes the same decisions but sees other random codes. jqwik is
 * not used here: this module runs Spring Boot 4's JUnit 6 platform, jqwik 1.10's engine targets JUnit Platform 1.x
 * and its lifecycle would not start Spring's test context; a seeded generator in a plain test does the same job.
 *
 * <p>Failures are grouped by the rule broken and the answer's status and code; each group is reported with its
 * smallest request, shrunk further by dropping headers, body members and query parameters while the failure stays.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "verification.api-keys=" + ApiFuzzTest.API_KEY,
        "verification.admin-api-keys=" + ApiFuzzTest.ADMIN_KEY,
        "verification.secret-keys=" + ApiFuzzTest.HMAC_KEY,
        "logging.level.org.apache.coyote.http11.Http11Processor=WARN"})
@Import(TestClockConfiguration.class)
@DirtiesContext
class ApiFuzzTest {

    static final String API_KEY = "fuzz-api-key-0123456789abcdefghijklmnopq";
    /** The operator API's key: the document's {@code adminKey} scheme, so the admin operations are fuzzed too. */
    static final String ADMIN_KEY = "fuzz-admin-key-0123456789abcdefghijklmno";
    static final String HMAC_KEY = "SDTbhBfe5I9Wj1iT38oxkwrifLjf+nSS0eiTOIo68PA=";
    private static final int DEFAULT_REQUESTS = 12_000;
    private static final int MIN_REQUESTS = 10_000;
    private static final int MAX_GROUPS = 30;
    private static final int SHRINK_BUDGET = 80;
    private static final JsonMapper JSON = JsonMapper.builder().build();
    private static final Pattern README_CALL = Pattern.compile("^\\| `(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS) (/\\S*)` \\|");

    private static Path dataDirectory;

    @DynamicPropertySource
    static void dataDirectory(DynamicPropertyRegistry registry) throws IOException {
        dataDirectory = Files.createTempDirectory("verification-api-fuzz");
        registry.add("verification.data-dir", dataDirectory::toString);
    }

    @LocalServerPort
    int port;

    @Autowired
    MutableClock clock;

    /** A group of failures that broke the same rule with the same kind of answer. */
    private static final class Group {
        final String key;
        List<Violation> violations;
        FuzzRequest smallest;
        Answer answer;
        int index;
        int count;
        final Set<String> operations = new LinkedHashSet<>();
        final Set<String> kinds = new LinkedHashSet<>();
        String shrunkFrom;
        /** The smallest request per mutation, among requests with that single mutation: other causes of the same answer. */
        final Map<String, FuzzRequest> singleMutation = new TreeMap<>();
        final Map<String, Answer> singleMutationAnswers = new TreeMap<>();

        Group(String key, List<Violation> violations) {
            this.key = key;
            this.violations = List.copyOf(violations);
        }

        String rule() {
            return violations.get(0).rule();
        }
    }

    private record Outcome(Answer answer, List<Violation> violations) {
    }

    private HttpSender http;
    private TableFingerprint table;
    private Values values;
    private FuzzRequest lastRefusal;
    private Answer lastRefusalAnswer;
    private int lastRefusalIndex;
    private Print afterLastRefusal;
    private int sent;
    private final Map<String, Group> groups = new LinkedHashMap<>();
    private final Map<Integer, Integer> statuses = new TreeMap<>();
    private final Map<String, Map<String, Integer>> byKind = new TreeMap<>();
    private final Map<String, Map<String, Integer>> byOperation = new TreeMap<>();

    @Test
    void everyOperationOfTheOpenApiDocumentAnswersGeneratedRequestsWithinTheContract() throws Exception {
        long seed = Long.getLong("fuzz.seed", new SecureRandom().nextLong());
        int requests = Integer.getInteger("fuzz.requests", DEFAULT_REQUESTS);
        System.out.println("[api-fuzz] seed " + seed + " (rerun with -Dfuzz.seed=" + seed + "), " + requests
                + " requests");
        Random random = new Random(seed);
        http = new HttpSender(port);

        Answer documentAnswer = http.send(new FuzzRequest("GET /v3/api-docs", List.of("document"), "GET", "/v3/api-docs",
                List.of(new FuzzRequest.Header("Accept", "application/json")), null, false));
        assertThat(documentAnswer.status()).as("GET /v3/api-docs").isEqualTo(200);
        OpenApiDocument document = new OpenApiDocument(JSON.readTree(documentAnswer.body()));
        List<Operation> operations = document.operations();
        checkAgainstReadme(operations);
        System.out.println("[api-fuzz] " + operations.size() + " operations in the OpenAPI document: " + operations);

        values = new Values(random, TestClockConfiguration.START);
        Map<String, String> keys = new LinkedHashMap<>();
        keys.put("apiKey", API_KEY);
        keys.put("adminKey", ADMIN_KEY);
        RequestFactory factory = new RequestFactory(random, values, document, keys);
        long started = System.nanoTime();
        try (TableFingerprint fingerprint = new TableFingerprint(dataDirectory.resolve("verification.db"))) {
            table = fingerprint;
            for (int i = 0; i < requests; i++) {
                if (i > 0 && i % 500 == 0) {
                    // Windows roll over and codes expire now and then: more of the service's paths are reached.
                    clock.advance(Duration.ofMinutes(3));
                }
                Operation operation = operations.get(random.nextInt(operations.size()));
                FuzzRequest request = factory.next(operation);
                Outcome outcome = execute(request, true);
                count(request, outcome.answer());
                if (!outcome.violations().isEmpty()) {
                    record(sent, request, outcome.answer(), outcome.violations());
                }
            }
            long fuzzMillis = (System.nanoTime() - started) / 1_000_000;
            int fuzzed = sent;
            int shrinkRequests = shrinkEveryGroup();
            printSummary(seed, fuzzed, fuzzMillis, shrinkRequests, operations);
        }

        assertThat(sent).as("requests sent").isGreaterThanOrEqualTo(Math.min(requests, MIN_REQUESTS));
        assertThat(groups).withFailMessage(() -> report(seed)).isEmpty();
    }

    /** Sends one request and checks its answer and, for a refusal, that the table did not change. */
    private Outcome execute(FuzzRequest request, boolean recordLateWrites) {
        Print before = table.current();
        if (lastRefusal != null && !before.equals(afterLastRefusal) && recordLateWrites) {
            record(lastRefusalIndex, lastRefusal, lastRefusalAnswer, List.of(new Violation("LATE_WRITE",
                    "the table changed after the " + lastRefusalAnswer.status() + " answer, before the next request: "
                            + afterLastRefusal + " became " + before)));
        }
        lastRefusal = null;
        Answer answer = http.send(request);
        sent++;
        List<Violation> violations = new ArrayList<>(Oracle.check(request, answer));
        if (Oracle.REFUSALS.contains(answer.status())) {
            Print after = table.current();
            if (!after.equals(before)) {
                violations.add(new Violation("PARTIAL_WRITE", "answered " + answer.status() + " "
                        + Oracle.problemCode(answer) + " but the table went from " + before + " to " + after));
            }
            lastRefusal = request;
            lastRefusalAnswer = answer;
            lastRefusalIndex = sent;
            afterLastRefusal = after;
        }
        if (answer.status() >= 200 && answer.status() < 300) {
            JsonNode json = Oracle.jsonOrNull(answer);
            if (json != null) {
                values.learn(json);
            }
        }
        return new Outcome(answer, violations);
    }

    private void record(int index, FuzzRequest request, Answer answer, List<Violation> violations) {
        String rules = violations.stream().map(Violation::rule).collect(Collectors.joining("+"));
        String key = rules + " | " + answer.status() + " | " + answer.header("Content-Type") + " | "
                + Oracle.problemCode(answer);
        Group group = groups.get(key);
        if (group == null) {
            if (groups.size() >= MAX_GROUPS) {
                return;
            }
            group = new Group(key, violations);
            groups.put(key, group);
        }
        group.count++;
        group.operations.add(request.operation());
        group.kinds.add(request.kind());
        if (request.kinds().size() == 1) {
            FuzzRequest known = group.singleMutation.get(request.kind());
            if (known == null || request.size() < known.size()) {
                group.singleMutation.put(request.kind(), request);
                group.singleMutationAnswers.put(request.kind(), answer);
            }
        }
        if (group.smallest == null || request.size() < group.smallest.size()) {
            group.smallest = request;
            group.answer = answer;
            group.index = index;
            group.violations = List.copyOf(violations);
        }
    }

    // ---------------------------------------------------------------- shrinking

    private int shrinkEveryGroup() {
        int before = sent;
        for (Group group : groups.values()) {
            if (group.rule().equals("LATE_WRITE")) {
                continue;
            }
            FuzzRequest shrunk = shrink(group);
            if (shrunk != group.smallest) {
                group.shrunkFrom = group.smallest.size() + " to " + shrunk.size() + " characters";
                group.smallest = shrunk;
                group.answer = execute(shrunk, false).answer();
            }
        }
        return sent - before;
    }

    private FuzzRequest shrink(Group group) {
        FuzzRequest current = group.smallest;
        int budget = SHRINK_BUDGET;
        boolean progress = true;
        while (progress && budget > 0) {
            progress = false;
            for (FuzzRequest candidate : simplifications(current)) {
                if (budget-- <= 0) {
                    break;
                }
                Outcome outcome = execute(candidate, false);
                boolean same = outcome.answer().status() == group.answer.status() && outcome.violations().stream()
                        .anyMatch(violation -> violation.rule().equals(group.rule()));
                if (same) {
                    current = candidate;
                    progress = true;
                    break;
                }
            }
        }
        return current;
    }

    private static List<FuzzRequest> simplifications(FuzzRequest request) {
        List<FuzzRequest> candidates = new ArrayList<>();
        for (int i = 0; i < request.headers().size(); i++) {
            List<FuzzRequest.Header> fewer = new ArrayList<>(request.headers());
            fewer.remove(i);
            candidates.add(request.withHeaders(fewer));
        }
        if (request.body() instanceof FuzzRequest.Members members) {
            for (int i = 0; i < members.members().size(); i++) {
                List<byte[]> fewer = new ArrayList<>(members.members());
                fewer.remove(i);
                candidates.add(request.withBody(new FuzzRequest.Members(fewer)));
            }
        }
        int question = request.target().indexOf('?');
        if (question >= 0) {
            String path = request.target().substring(0, question);
            String[] pieces = request.target().substring(question + 1).split("&", -1);
            candidates.add(request.withTarget(path));
            for (int i = 0; i < pieces.length && pieces.length > 1; i++) {
                List<String> fewer = new ArrayList<>(List.of(pieces));
                fewer.remove(i);
                candidates.add(request.withTarget(path + "?" + String.join("&", fewer)));
            }
        }
        return candidates;
    }

    // ---------------------------------------------------------------- the README's list of calls

    /** The document must hold at least every call the README's API table lists: a broken document is noticed. */
    private static void checkAgainstReadme(List<Operation> operations) throws IOException {
        Path readme = findReadme();
        List<String> listed = new ArrayList<>();
        for (String line : Files.readAllLines(readme)) {
            Matcher call = README_CALL.matcher(line);
            if (call.find()) {
                listed.add(call.group(1) + " " + normalise(call.group(2)));
            }
        }
        assertThat(listed).as("the API table of " + readme).isNotEmpty();
        // A call may be listed in more than one table (the operator API has a section of its own).
        listed = listed.stream().distinct().toList();
        List<String> documented = operations.stream().map(operation -> operation.method() + " " + normalise(operation.path()))
                .toList();
        assertThat(documented.size()).as("operations in /v3/api-docs (the README lists %s)", listed)
                .isGreaterThanOrEqualTo(listed.size());
        assertThat(documented).as("operations in /v3/api-docs").containsAll(listed);
    }

    private static String normalise(String path) {
        return path.replaceAll("\\{[^}]*}", "{}");
    }

    private static Path findReadme() {
        Path directory = Path.of("").toAbsolutePath();
        for (int level = 0; level < 4 && directory != null; level++, directory = directory.getParent()) {
            Path candidate = directory.resolve("README.md");
            if (Files.isRegularFile(candidate) && Files.isDirectory(directory.resolve("server"))) {
                return candidate;
            }
        }
        throw new IllegalStateException("README.md of the project not found above " + Path.of("").toAbsolutePath());
    }

    // ---------------------------------------------------------------- reporting

    private void count(FuzzRequest request, Answer answer) {
        statuses.merge(answer.status(), 1, Integer::sum);
        String statusClass = answer.status() < 0 ? "none" : (answer.status() / 100) + "xx";
        for (String kind : request.kinds()) {
            byKind.computeIfAbsent(kind, k -> new TreeMap<>()).merge(statusClass, 1, Integer::sum);
        }
        byOperation.computeIfAbsent(request.operation(), k -> new TreeMap<>()).merge(statusClass, 1, Integer::sum);
    }

    private void printSummary(long seed, int fuzzed, long millis, int shrinkRequests, List<Operation> operations) {
        StringBuilder summary = new StringBuilder();
        summary.append(String.format("[api-fuzz] seed %d: %d requests in %.1f s (%.0f/s; %d over a plain socket), "
                        + "%d more while shrinking; table fingerprint recomputed %d times (%d ms)%n", seed, fuzzed,
                millis / 1000.0, fuzzed * 1000.0 / Math.max(1, millis), http.rawRequests(), shrinkRequests,
                table.recomputations(), table.recomputeMillis()));
        summary.append("[api-fuzz] statuses: ").append(statuses).append('\n');
        byOperation.forEach((operation, counts) -> summary.append("[api-fuzz]   ").append(operation).append(": ")
                .append(counts).append('\n'));
        byKind.forEach((kind, counts) -> summary.append("[api-fuzz]   ").append(kind).append(": ").append(counts)
                .append('\n'));
        for (Operation operation : operations) {
            Map<String, Integer> counts = byOperation.getOrDefault(operation.toString(), Map.of());
            if (!counts.containsKey("2xx")) {
                summary.append("[api-fuzz] note: no generated request for ").append(operation)
                        .append(" succeeded; its valid requests may need better values\n");
            }
        }
        System.out.print(summary);
    }

    private String report(long seed) {
        StringBuilder report = new StringBuilder();
        report.append(groups.size()).append(" kind(s) of failure (seed ").append(seed).append(", ").append(sent)
                .append(" requests):\n");
        int number = 0;
        for (Group group : groups.values()) {
            number++;
            report.append("\n#").append(number).append(' ').append(group.violations.stream().map(Violation::toString)
                    .collect(Collectors.joining("; "))).append("\n   seen ")
                    .append(group.count).append(" time(s); the smallest was request #").append(group.index)
                    .append("; operations: ").append(group.operations).append("; mutations: ")
                    .append(group.kinds.stream().limit(12).collect(Collectors.joining(", ")))
                    .append(group.kinds.size() > 12 ? ", ..." : "").append('\n');
            report.append("   smallest reproduction").append(group.shrunkFrom == null ? "" : " (shrunk from "
                    + group.shrunkFrom + ")").append(":\n   ");
            report.append(group.smallest.describe(400).replace(API_KEY, "<API key>").replace(ADMIN_KEY, "<admin key>")
                    .replace("\n", "\n   "));
            Answer answer = group.answer;
            report.append("\n   answer: ").append(answer.status()).append(", Content-Type: ")
                    .append(answer.header("Content-Type")).append(", body (").append(answer.body().length)
                    .append(" bytes): ").append(FuzzRequest.Printable.of(answer.body(), 400))
                    .append(answer.error() == null ? "" : " [" + answer.error() + "]").append('\n');
            List<String> others = group.singleMutation.keySet().stream()
                    .filter(kind -> !group.smallest.kinds().equals(List.of(kind))).limit(4).toList();
            for (String kind : others) {
                FuzzRequest example = group.singleMutation.get(kind);
                Answer exampleAnswer = group.singleMutationAnswers.get(kind);
                report.append("   also with ").append(kind).append(" alone:\n     ")
                        .append(example.describe(200).replace(API_KEY, "<API key>").replace(ADMIN_KEY, "<admin key>")
                                .replace("\n", "\n     "))
                        .append("\n     answer: ").append(exampleAnswer.status()).append(", Content-Type: ")
                        .append(exampleAnswer.header("Content-Type")).append(", body: ")
                        .append(FuzzRequest.Printable.of(exampleAnswer.body(), 200)).append('\n');
            }
        }
        return report.toString();
    }
}
