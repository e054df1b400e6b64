package dev.verificationservice.bench;

import dev.verificationservice.Verification;
import dev.verificationservice.VerificationSettings;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.codes.CodeRequest;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.IssueResult;
import dev.verificationservice.codes.VerificationResult;
import dev.verificationservice.codes.VerifyRequest;
import dev.verificationservice.events.AddressResolver;
import dev.verificationservice.events.Delivery;
import dev.verificationservice.events.EndpointUrls;
import dev.verificationservice.events.RelayMetrics;
import dev.verificationservice.events.WebhookEndpoint;
import dev.verificationservice.events.WebhookRelay;
import dev.verificationservice.events.WebhookTransport;
import dev.verificationservice.events.Webhooks;
import dev.verificationservice.passkeys.PasskeyPolicy;
import dev.verificationservice.passkeys.PasskeyRegistration;
import dev.verificationservice.passkeys.PasskeyVerification;
import dev.verificationservice.passkeys.RegistrationOptions;
import dev.verificationservice.ratelimit.RateLimitPolicy;
import dev.verificationservice.sms.SmsSignalPolicy;
import dev.verificationservice.security.EncryptionKeyRing;
import dev.verificationservice.security.SecureTokens;
import dev.verificationservice.store.dynamodb.ConsumedCapacityRecorder;
import dev.verificationservice.store.dynamodb.DynamoDbVerificationStore;
import dev.verificationservice.table.TableKeys;
import dev.verificationservice.testsupport.dynamodb.faults.PartitionLimits;
import dev.verificationservice.testsupport.dynamodb.faults.PartitionThrottling;
import dev.verificationservice.testsupport.dynamodb.faults.PartitionThrottling.Usage;
import dev.verificationservice.testsupport.passkeys.SoftwareAuthenticator;
import dev.verificationservice.testsupport.time.MutableClock;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * The capacity model: at what sustained rate the first partition key of the table or of an index reaches DynamoDB's
 * per-key limit (1,000 write, 3,000 read units a second), for each load the goal names.
 *
 * <p>Each operation runs against the DynamoDB store on dynalite behind the fault proxy, whose partition charges
 * ({@code PartitionCharges}: DynamoDB's billing rules of {@code DynamoDbUnits}, index writes, failed conditions,
 * transactions twice, per key of the table and of each index, the indexes read from the table's description) are
 * read after each run, with limits too high to refuse anything. Keys are classified by running the operation for
 * {@value #RUNS} different subjects: a key charged in more than one run is shared by them; a key charged in one run
 * names its subject. A family of shards ({@code <key>} and {@code <key>#<n>}) charged in more than one run is shared,
 * its load spread over the family's shards (the count {@code TableKeys} declares, else the number seen: fewer, the
 * unkind side). For traffic spread over distinct subjects the rate is the limit over the largest units per
 * operation of a shared key (or of one shard of a family); for one attacked user, over its own keys' units.
 */
final class CapacityRun {

    static final int RUNS = 3;
    private static final String PASSKEY_ORIGIN = "https://login.example.com";
    private static final PasskeyPolicy PASSKEYS = PasskeyPolicy.of("example.com", "Example", Set.of(PASSKEY_ORIGIN));
    static final int PAIR_WRITE_UNITS_GOAL = 10;
    static final int RESEND_PAIR_WRITE_UNITS_GOAL = 12;
    /** Events relayed together, as a relay under load takes them (its reads are per batch, its writes per event). */
    static final int EVENTS_PER_BATCH = 20;
    /** A shard's number in a key: a segment of digits alone ({@code WEBHOOK#<ep>#5}, {@code RATELIMIT#global#3#...}). */
    private static final Pattern SHARD = Pattern.compile("#\\d+(?=#|$)");
    /** Moved by the run only: the lock-out memory's confirmation is a second on this clock. */
    private static final MutableClock CLOCK = new MutableClock(Instant.now());
    /** The SMS budget's shards: the server's default. */
    static final int SMS_BUDGET_SHARDS = 8;

    /** One row of the model: the load, the first key to reach its limit, the rate it does, against the goal. */
    record Row(String load, double writeUnits, double readUnits, String firstKey, double rate, double goal) {
        boolean met() {
            return rate >= goal;
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "| %s | %.1f | %.1f | `%s` | %s | %,.0f | %s |", load, writeUnits,
                    readUnits, firstKey, Double.isInfinite(rate) ? "no limit" : String.format(Locale.ROOT, "%,.0f/s",
                            rate), goal, met() ? "GOAL MET" : "NOT MET");
        }
    }

    private final PartitionThrottling partitions;
    private final Verification verification;
    private final DynamoDbVerificationStore store;
    private final Fixtures.KeepingSender sender = new Fixtures.KeepingSender();
    private int subjects;

    private CapacityRun(BenchDynamo dynamo) {
        this.partitions = dynamo.proxy().partitions();
        this.store = new DynamoDbVerificationStore(dynamo.client(List.of()), BenchDynamo.TABLE,
                new ConsumedCapacityRecorder(), false);
        // The view of the endpoints is read once per interval and instance, not per request: the model's clock jumps
        // (each resend waits out its cooldown) would otherwise bill a read of it to nearly every operation.
        store.eventSubscriptions().refreshEvery(Duration.ofDays(365));
        this.verification = verification(VerificationSettings.defaults());
    }

    private Verification verification(VerificationSettings settings) {
        return Verification.builder().store(store).keys(Fixtures.KEYS)
                .encryption(EncryptionKeyRing.fromBase64(List.of(Fixtures.ENCRYPTION_KEY))).sender(sender)
                .clock(CLOCK).settings(settings).build();
    }

    static List<Row> run() {
        try (BenchDynamo dynamo = BenchDynamo.start(new PartitionLimits(1e15, 1e15))) {
            return new CapacityRun(dynamo).rows();
        }
    }

    static String table(List<Row> rows) {
        StringBuilder table = new StringBuilder("| Load | Write units per operation | Read units | First key to its limit"
                + " | Sustained rate | Goal | |\n|---|---|---|---|---|---|---|\n");
        rows.forEach(row -> table.append(row).append('\n'));
        table.append('\n');
        table.append(budget("send + verify", rows.get(0).writeUnits(), PAIR_WRITE_UNITS_GOAL));
        table.append(budget("resend + verify", rows.get(1).writeUnits(), RESEND_PAIR_WRITE_UNITS_GOAL));
        table.append(String.format(Locale.ROOT, "%nwrite units a send + verify saves with webhooks on and nothing "
                + "subscribed: %.1f (%.1f against %.1f)", rows.get(0).writeUnits() - rows.get(rows.size() - 1)
                .writeUnits(), rows.get(rows.size() - 1).writeUnits(), rows.get(0).writeUnits()));
        return table.toString();
    }

    private static String budget(String what, double writeUnits, int goal) {
        return String.format(Locale.ROOT, "%nwrite units per %s: %.1f against a goal of at most %d: %s", what,
                writeUnits, goal, writeUnits <= goal ? "GOAL MET" : "NOT MET");
    }

    /**
     * The rows of the report. The pair's first row, the resend's, the SMS and the attacked user's run with an endpoint
     * subscribed to every type (every entry an event, the unkind case); the last, the pair with webhooks on and no
     * endpoint, so that no entry enters the outbox.
     */
    private List<Row> rows() {
        List<Row> rows = new ArrayList<>();
        Consumer<String> pair = user -> {
            require(verification.codes().issue(CodeRequest.of(user, CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL,
                    user + "@example.com")) instanceof IssueResult.Issued);
            require(verification.codes().verify(VerifyRequest.numeric(sender.lastCode(user), user,
                    CodeType.EMAIL_VERIFICATION)) instanceof VerificationResult.Valid);
        };
        Row unsubscribed = spread("send + verify NUMERIC pairs over distinct users (webhooks on, no endpoint"
                + " subscribed: no entry enters the outbox)", 20_000, pair);
        Webhooks webhooks = webhooks();
        String everything = webhooks.register("http://localhost:9/every-type", List.of(), Optional.empty()).endpoint()
                .endpointId();
        rows.add(spread("send + verify NUMERIC pairs over distinct users (webhooks on, an endpoint subscribed to every"
                + " type, before the relay takes their events out of the outbox: that doubles the event shards'"
                + " writes)", 20_000, pair));
        rows.add(spreadPrepared("resend + verify NUMERIC pairs over distinct users (the resend past the cooldown)",
                20_000, user -> {
                    require(verification.codes().issue(CodeRequest.of(user, CodeType.EMAIL_VERIFICATION,
                            DeliveryMethod.EMAIL, user + "@example.com")) instanceof IssueResult.Issued);
                    CLOCK.advance(VerificationSettings.DEFAULT_RESEND_COOLDOWN.plusSeconds(1));
                    return () -> {
                        require(verification.codes().issue(CodeRequest.of(user, CodeType.EMAIL_VERIFICATION,
                                DeliveryMethod.EMAIL, user + "@example.com")) instanceof IssueResult.Issued);
                        require(verification.codes().verify(VerifyRequest.numeric(sender.lastCode(user), user,
                                CodeType.EMAIL_VERIFICATION)) instanceof VerificationResult.Valid);
                    };
                }));
        Verification budgeted = verification(VerificationSettings.defaults().withSmsBudget(Optional.of(
                new RateLimitPolicy(10_000 * SMS_BUDGET_SHARDS, Duration.ofHours(1), SMS_BUDGET_SHARDS))));
        AtomicInteger numbers = new AtomicInteger(10_000);
        // A range's counters take a write for each SMS to it: traffic in one range is held there, spread traffic by
        // the budget's shards.
        rows.add(spread("SMS sends over distinct users and numbers of one range (+447700), the SMS budget on ("
                + SMS_BUDGET_SHARDS + " shards)", 2_000, user -> require(budgeted.codes().issue(CodeRequest.of(user,
                CodeType.PHONE_VERIFICATION, DeliveryMethod.SMS, "+4477001" + numbers.incrementAndGet()))
                instanceof IssueResult.Issued), Map.of(family(TableKeys.rateLimitPartition("global", "SMS_BUDGET")),
                SMS_BUDGET_SHARDS)));
        rows.add(spread("SMS sends over distinct users and numbers, each in one of ten ranges (+447400 to +447409), "
                + "the SMS budget on (" + SMS_BUDGET_SHARDS + " shards)", 2_000, user -> {
                    int n = numbers.incrementAndGet();
                    require(budgeted.codes().issue(CodeRequest.of(user, CodeType.PHONE_VERIFICATION,
                            DeliveryMethod.SMS, "+44740" + (n % 10) + String.format(Locale.ROOT, "%06d", n)))
                            instanceof IssueResult.Issued);
                }, Map.of(family(TableKeys.rateLimitPartition("global", "SMS_BUDGET")), SMS_BUDGET_SHARDS,
                        family(TableKeys.rateLimitPartition("smscountry:GB", "SMS_COUNTRY_SENDS")),
                        SmsSignalPolicy.DEFAULTS.countryShards())));
        rows.add(attacked(false));
        rows.add(attacked(true));
        webhooks.delete(everything);
        rows.add(endpoint());
        rows.add(unsubscribed);
        Verification withPasskeys = verification(VerificationSettings.builder().passkeys(PASSKEYS).build());
        rows.add(spread("passkey registrations over distinct users (the options, then the attestation)", 2_000,
                user -> registered(withPasskeys, user)));
        rows.add(spreadPrepared("passkey sign-ins by name over distinct users (the options, then the assertion)",
                20_000, user -> {
                    SoftwareAuthenticator key = registered(withPasskeys, user);
                    return () -> require(withPasskeys.passkeys().verify(key.sign(withPasskeys.passkeys()
                            .signInOptions(Optional.of(user)).challenge(), PASSKEYS.rpId(), PASSKEY_ORIGIN),
                            Optional.of(user), ClientContext.none()) instanceof PasskeyVerification.Valid);
                }));
        return rows;
    }

    private static SoftwareAuthenticator registered(Verification verification, String user) {
        SoftwareAuthenticator key = SoftwareAuthenticator.withCounter();
        RegistrationOptions options = verification.passkeys().registrationOptions(user, Optional.empty(),
                Optional.empty());
        require(verification.passkeys().register(user, key.register(options.challenge(), PASSKEYS.rpId(),
                PASSKEY_ORIGIN, options.userHandle()), Optional.empty(), ClientContext.none())
                instanceof PasskeyRegistration.Registered);
        return key;
    }

    /** What one run charged each key: write and read units. */
    private Map<String, double[]> charged(Runnable operation) {
        partitions.reset();
        operation.run();
        Map<String, double[]> charges = new LinkedHashMap<>();
        for (Usage used : partitions.usage()) {
            charges.put(used.key().toString(), new double[] {used.writeUnits(), used.readUnits()});
        }
        return charges;
    }

    private String subject() {
        return "cap-" + (++subjects) + "-" + Long.toHexString(System.nanoTime());
    }

    /** Traffic over distinct subjects: the shared keys (and shard families) decide the rate. */
    private Row spread(String load, double goal, Consumer<String> operation) {
        return spread(load, goal, operation, Map.of());
    }

    /** As {@link #spread}, each subject prepared first, unmeasured: {@code prepare} returns what is measured. */
    private Row spreadPrepared(String load, double goal, Function<String, Runnable> prepare) {
        prepare.apply(subject()).run();
        List<Map<String, double[]>> runs = new ArrayList<>();
        for (int i = 0; i < RUNS; i++) {
            Runnable measured = prepare.apply(subject());
            runs.add(charged(measured));
        }
        return rate(load, goal, runs, Map.of());
    }

    private Row spread(String load, double goal, Consumer<String> operation, Map<String, Integer> declared) {
        operation.accept(subject()); // warms the store's first look and the like, unmeasured
        List<Map<String, double[]>> runs = new ArrayList<>();
        for (int i = 0; i < RUNS; i++) {
            String subject = subject();
            runs.add(charged(() -> operation.accept(subject)));
        }
        return rate(load, goal, runs, declared);
    }

    /**
     * Refused guesses at one locked-out user: each reaching the store ({@code remembered} false: the clock stands
     * still, so the lock-out memory never confirms), or as shipped, once the memory has confirmed the lock-out (a
     * second later) and answers for this instance: then no guess reaches the store until its recheck, seconds later.
     */
    private Row attacked(boolean remembered) {
        String user = subject();
        require(verification.codes().issue(CodeRequest.of(user, CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL,
                user + "@example.com")) instanceof IssueResult.Issued);
        String wrong = sender.lastCode(user).equals("000000") ? "000001" : "000000";
        for (int i = 0; i < 10; i++) {
            verification.codes().verify(VerifyRequest.numeric(wrong, user, CodeType.EMAIL_VERIFICATION));
        }
        if (remembered) {
            CLOCK.advance(Duration.ofMillis(1_500));
            verification.codes().verify(VerifyRequest.numeric(wrong, user, CodeType.EMAIL_VERIFICATION));
        }
        List<Map<String, double[]>> runs = new ArrayList<>();
        for (int i = 0; i < RUNS; i++) {
            runs.add(charged(() -> verification.codes().verify(VerifyRequest.numeric(wrong, user,
                    CodeType.EMAIL_VERIFICATION))));
        }
        // Every key here is the attacked user's or shared: all of them take every guess.
        return firstToLimit(remembered ? "refused guesses at one user, per instance, once its lock-out memory answers"
                : "refused guesses at one user, each reaching the store", 5_000, mean(runs), Map.of());
    }

    private Webhooks webhooks() {
        return new Webhooks(store.webhooks(), EncryptionKeyRing.fromBase64(
                List.of(EncryptionKeyRing.generateBase64Key(new SecureRandom()))),
                new EndpointUrls(false, AddressResolver.system()), new SecureTokens(), CLOCK);
    }

    /** Events into one endpoint subscribed to them: its keys (and shared ones) decide. */
    private Row endpoint() {
        Clock clock = CLOCK;
        EndpointUrls urls = new EndpointUrls(false, AddressResolver.system());
        Webhooks webhooks = webhooks();
        WebhookRelay relay = new WebhookRelay(store.webhooks(), webhooks, urls,
                (url, headers, body, timeout) -> CompletableFuture.completedFuture(new WebhookTransport.Answered(204)),
                verification.audit(), RelayMetrics.none(), clock, "capacity");
        WebhookEndpoint endpoint = webhooks.register("http://localhost:9/capacity", List.of(), Optional.empty())
                .endpoint();
        Runnable drain = () -> {
            for (int batch = 0; batch < 1000 && relay.fanOut(100) > 0; batch++) {
                // the fan-out does the work
            }
            for (List<Delivery> due = relay.due(100); !due.isEmpty(); due = relay.due(100)) {
                due.forEach(relay::attempt);
            }
        };
        drain.run();
        List<Map<String, double[]>> runs = new ArrayList<>();
        for (int i = 0; i < RUNS; i++) {
            Map<String, double[]> batch = charged(() -> {
                for (int event = 0; event < EVENTS_PER_BATCH; event++) {
                    verification.audit().recordSuccess(subject(), AuditEventType.CODE_SENT, Map.of("codeType",
                            "EMAIL_VERIFICATION"), ClientContext.none());
                }
                drain.run();
            });
            batch.values().forEach(units -> {
                units[0] /= EVENTS_PER_BATCH;
                units[1] /= EVENTS_PER_BATCH;
            });
            runs.add(batch);
        }
        Map<String, Integer> families = new HashMap<>();
        families.put(family(TableKeys.deliveriesPartitions(endpoint.endpointId()).get(0)), TableKeys.DELIVERY_SHARDS);
        families.put(family(TableKeys.outboxDeliveryPartitions(endpoint.endpointId()).get(0)),
                TableKeys.DELIVERY_SHARDS);
        return rate("events into one webhook endpoint, relayed " + EVENTS_PER_BATCH + " at a time", 2_000, runs,
                families);
    }

    /**
     * The shared keys of the runs (of a family charged in more than one run, or one {@code declared} sharded), each's
     * mean units per operation divided over its family's shards, and the rate at which the first reaches its limit.
     */
    private Row rate(String load, double goal, List<Map<String, double[]>> runs, Map<String, Integer> declared) {
        Map<String, Integer> familyRuns = new HashMap<>();
        Map<String, Set<String>> familyKeys = new HashMap<>();
        for (Map<String, double[]> run : runs) {
            run.keySet().stream().map(CapacityRun::family).distinct()
                    .forEach(family -> familyRuns.merge(family, 1, Integer::sum));
            run.keySet().forEach(key -> familyKeys.computeIfAbsent(family(key), k -> new HashSet<>()).add(key));
        }
        Map<String, double[]> perShard = new LinkedHashMap<>();
        for (Map.Entry<String, Integer> family : familyRuns.entrySet()) {
            String name = family.getKey();
            boolean sharded = familyKeys.get(name).size() > 1 || shardsDeclared(name, declared) > 1;
            boolean shared = family.getValue() > 1 || shardsDeclared(name, declared) > 1;
            if (!shared) {
                continue;
            }
            double write = 0;
            double read = 0;
            for (Map<String, double[]> run : runs) {
                for (Map.Entry<String, double[]> charge : run.entrySet()) {
                    if (family(charge.getKey()).equals(name)) {
                        write += charge.getValue()[0];
                        read += charge.getValue()[1];
                    }
                }
            }
            int shards = sharded ? Math.max(shardsDeclared(name, declared), familyKeys.get(name).size()) : 1;
            String label = sharded ? name + "#<" + shards + " shards>" : familyKeys.get(name).iterator().next();
            perShard.put(label, new double[] {write / runs.size() / shards, read / runs.size() / shards});
        }
        return firstToLimit(load, goal, perShard, mean(runs));
    }

    private static Row firstToLimit(String load, double goal, Map<String, double[]> keys, Map<String, double[]> all) {
        Map<String, double[]> totals = all.isEmpty() ? keys : all;
        double write = totals.values().stream().mapToDouble(units -> units[0]).sum();
        double read = totals.values().stream().mapToDouble(units -> units[1]).sum();
        String first = "no key charged";
        double rate = Double.POSITIVE_INFINITY;
        for (Map.Entry<String, double[]> key : keys.entrySet()) {
            double[] units = key.getValue();
            double byWrite = units[0] > 0 ? PartitionLimits.DYNAMODB.writeUnitsPerSecond() / units[0]
                    : Double.POSITIVE_INFINITY;
            double byRead = units[1] > 0 ? PartitionLimits.DYNAMODB.readUnitsPerSecond() / units[1]
                    : Double.POSITIVE_INFINITY;
            double keyRate = Math.min(byWrite, byRead);
            if (keyRate < rate) {
                rate = keyRate;
                first = key.getKey();
            }
        }
        return new Row(load, write, read, first, rate, goal);
    }

    private static Map<String, double[]> mean(List<Map<String, double[]>> runs) {
        Map<String, double[]> mean = new LinkedHashMap<>();
        for (Map<String, double[]> run : runs) {
            run.forEach((key, units) -> {
                double[] sum = mean.computeIfAbsent(key, k -> new double[2]);
                sum[0] += units[0] / runs.size();
                sum[1] += units[1] / runs.size();
            });
        }
        return mean;
    }

    /** A key without its shard's number: the name of shard 0, which carries none. */
    static String family(String key) {
        return SHARD.matcher(key).replaceAll("");
    }

    /** The shards {@code TableKeys} declares for the family (the event shards, or those named), else 1. */
    private static int shardsDeclared(String family, Map<String, Integer> declared) {
        for (Map.Entry<String, Integer> named : declared.entrySet()) {
            if (family.endsWith(" " + named.getKey())) {
                return named.getValue();
            }
        }
        return family.endsWith(" " + family(TableKeys.outboxEventPartitions().get(1))) ? TableKeys.OUTBOX_SHARDS : 1;
    }

    private static void require(boolean outcome) {
        if (!outcome) {
            throw new IllegalStateException("an operation of the capacity run did not succeed");
        }
    }
}
