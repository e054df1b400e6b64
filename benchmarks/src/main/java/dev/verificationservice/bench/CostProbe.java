package dev.verificationservice.bench;

import dev.verificationservice.Verification;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.codes.CodeRequest;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.IssueResult;
import dev.verificationservice.codes.VerificationResult;
import dev.verificationservice.codes.VerifyRequest;
import dev.verificationservice.devices.DeviceRegistration;
import dev.verificationservice.devices.DeviceVerification;
import dev.verificationservice.devices.RegisteredDevice;
import dev.verificationservice.events.AddressResolver;
import dev.verificationservice.events.Delivery;
import dev.verificationservice.events.EndpointUrls;
import dev.verificationservice.events.RelayMetrics;
import dev.verificationservice.events.WebhookRelay;
import dev.verificationservice.events.WebhookTransport;
import dev.verificationservice.events.Webhooks;
import dev.verificationservice.security.EncryptionKeyRing;
import dev.verificationservice.security.SecureTokens;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import dev.verificationservice.store.dynamodb.ConsumedCapacityRecorder;
import dev.verificationservice.store.dynamodb.DynamoDbVerificationStore;
import dev.verificationservice.testsupport.dynamodb.faults.Exchange;
import dev.verificationservice.totp.Confirmation;
import dev.verificationservice.totp.Enrolment;
import dev.verificationservice.totp.Totp;
import dev.verificationservice.totp.TotpAlgorithm;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.commons.codec.binary.Base32;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * What each API operation asks of DynamoDB, on dynalite behind the recording, transaction-emulating proxy:
 * the requests ({@link dev.verificationservice.testsupport.dynamodb.faults.DynamoDbFaultProxy#exchanges()}), the
 * sequential steps (requests in flight at the same time are one step), and the capacity units DynamoDB would
 * bill ({@link Billing}). Each operation runs through the core exactly as the server's controller calls it
 * (the controllers only translate JSON), one at a time, {@value #RUNS} times after one unmeasured run: requests
 * and units are the mean, steps the median run (each run's count is kept).
 */
final class CostProbe {

    static final int RUNS = 5;

    /** One API operation's cost, averaged over the runs. */
    record Cost(String operation, double requests, double steps, double readUnits, double writeUnits,
                double reportedUnits, String shape, double consumeWriteUnits, double consumeWriteUnitsIfPlain,
                List<Integer> stepsPerRun) {

        double usdPerMillion() {
            return Billing.usdPerMillion(readUnits, writeUnits);
        }
    }

    private final BenchDynamo dynamo;
    private final Meter meter;
    private final Verification verification;
    private final DynamoDbVerificationStore store;
    private final Fixtures.KeepingSender sender = new Fixtures.KeepingSender();
    private final AtomicInteger users = new AtomicInteger();

    private CostProbe(BenchDynamo dynamo) {
        this.dynamo = dynamo;
        this.meter = new Meter(dynamo.rawClient(), BenchDynamo.TABLE);
        DynamoDbClient client = dynamo.client(List.of(meter));
        this.store = new DynamoDbVerificationStore(client, BenchDynamo.TABLE, new ConsumedCapacityRecorder(), false);
        this.verification = Fixtures.verification(store, sender);
    }

    static Map<String, Cost> run() {
        try (BenchDynamo dynamo = BenchDynamo.start()) {
            return new CostProbe(dynamo).all();
        }
    }

    /**
     * The operations are measured with every audit entry an event (an endpoint subscribed to every type, removed
     * before the relay's own is registered), the unkind case; the endpoints' view is read once, not every 30 s of
     * the run, as it is read once per interval and instance, not per request.
     */
    private Map<String, Cost> all() {
        Map<String, Cost> costs = new LinkedHashMap<>();
        store.eventSubscriptions().refreshEvery(Duration.ofDays(365));
        Webhooks everyType = new Webhooks(store.webhooks(), EncryptionKeyRing.fromBase64(
                List.of(EncryptionKeyRing.generateBase64Key(new SecureRandom()))),
                new EndpointUrls(false, AddressResolver.system()), new SecureTokens(), Clock.systemUTC());
        String everything = everyType.register("http://localhost:9/every-type", List.of(), Optional.empty())
                .endpoint().endpointId();
        costs.put(Operations.SEND, measure(Operations.SEND, user -> () -> require(verification.codes().issue(
                CodeRequest.of(user, CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL, user + "@example.com"))
                instanceof IssueResult.Issued)));
        costs.put(Operations.CHECK, measure(Operations.CHECK, user -> {
            String code = send(user, CodeType.EMAIL_VERIFICATION);
            return () -> require(verification.codes().check(VerifyRequest.numeric(code, user, CodeType.EMAIL_VERIFICATION))
                    instanceof VerificationResult.Valid);
        }));
        costs.put(Operations.VERIFY_NUMERIC, measure(Operations.VERIFY_NUMERIC, user -> {
            String code = send(user, CodeType.EMAIL_VERIFICATION);
            return () -> require(verification.codes().verify(VerifyRequest.numeric(code, user, CodeType.EMAIL_VERIFICATION))
                    instanceof VerificationResult.Valid);
        }));
        costs.put(Operations.VERIFY_LINK, measure(Operations.VERIFY_LINK, user -> {
            String code = send(user, CodeType.PASSWORD_RESET);
            return () -> require(verification.codes().verify(VerifyRequest.link(code)) instanceof VerificationResult.Valid);
        }));
        costs.put(Operations.DEVICE_REGISTER, measure(Operations.DEVICE_REGISTER, user -> () ->
                verification.devices().register(DeviceRegistration.of(user, "laptop-" + user, "WEB"))));
        costs.put(Operations.DEVICE_VERIFY, measure(Operations.DEVICE_VERIFY, user -> {
            RegisteredDevice device = verification.devices().register(DeviceRegistration.of(user, "laptop-" + user, "WEB"));
            return () -> require(verification.devices().verify(device.deviceId(), device.secret(), ClientContext.none())
                    instanceof DeviceVerification.Valid);
        }));
        costs.put(Operations.RATE_LIMITS, measure(Operations.RATE_LIMITS, user -> {
            String code = send(user, CodeType.EMAIL_VERIFICATION);
            verification.codes().verify(VerifyRequest.numeric(code.equals("000000") ? "000001" : "000000", user,
                    CodeType.EMAIL_VERIFICATION));
            return () -> require(verification.operator().rateLimits(user).size()
                    == verification.operator().userActions().size());
        }));
        costs.put(Operations.AUDIT_PAGE, measure(Operations.AUDIT_PAGE, user -> {
            for (int i = 0; i < 60; i++) {
                verification.audit().recordSuccess(user, AuditEventType.CODE_SENT, Map.of("codeType", "EMAIL_VERIFICATION",
                        "deliveryMethod", "EMAIL", "deliveryTarget", "b***@example.com"), ClientContext.none());
            }
            return () -> require(verification.audit().query(user, Optional.empty(), Optional.empty(), Optional.of(50),
                    Optional.empty()).entries().size() == 50);
        }));
        costs.put(Operations.AUDIT_ENTRY, measure(Operations.AUDIT_ENTRY, user -> () ->
                verification.audit().recordSuccess(user, AuditEventType.CODE_SENT, Map.of("codeType",
                        "EMAIL_VERIFICATION", "deliveryMethod", "EMAIL", "deliveryTarget", "b***@example.com"),
                        ClientContext.none())));
        everyType.delete(everything);
        costs.put(Operations.EVENT_RELAY, relayCost());
        totp(costs);
        return costs;
    }

    /**
     * The relay's store work for one event and one endpoint: fan-out (outbox read, endpoint list, the delivery written
     * and the entry taken out of the outbox in one transaction), the due-delivery read, the lease, the endpoint read
     * and the outcome. The receiver answers 204 without a network (only store requests are counted here); before each
     * run the outbox is emptied (unmeasured), then one audit entry is written (unmeasured) and relayed (measured).
     */
    private Cost relayCost() {
        Clock clock = Clock.systemUTC();
        EndpointUrls urls = new EndpointUrls(false, AddressResolver.system());
        Webhooks webhooks = new Webhooks(store.webhooks(), EncryptionKeyRing.fromBase64(
                List.of(EncryptionKeyRing.generateBase64Key(new SecureRandom()))), urls, new SecureTokens(), clock);
        WebhookRelay relay = new WebhookRelay(store.webhooks(), webhooks, urls,
                (url, headers, body, timeout) -> java.util.concurrent.CompletableFuture.completedFuture(
                        new WebhookTransport.Answered(204)), verification.audit(),
                RelayMetrics.none(), clock, "probe");
        webhooks.register("http://localhost:9/probe", List.of(), Optional.empty());
        Runnable relayAll = () -> {
            int fannedOut = relay.fanOut(100);
            List<Delivery> due = relay.due(100);
            due.forEach(relay::attempt);
            if (fannedOut != 1 || due.size() != 1) {
                throw new IllegalStateException("the relay found " + fannedOut + " events and " + due.size()
                        + " due deliveries, not the one measured");
            }
        };
        return measure(Operations.EVENT_RELAY, user -> {
            // Empties the outbox: events of the operations measured before, and deliveries still due.
            for (int batch = 0; batch < 1000 && relay.fanOut(100) > 0; batch++) {
                // the condition does the work
            }
            for (List<Delivery> due = relay.due(100); !due.isEmpty(); due = relay.due(100)) {
                due.forEach(relay::attempt);
            }
            verification.audit().recordSuccess(user, AuditEventType.CODE_SENT, Map.of("codeType",
                    "EMAIL_VERIFICATION"), ClientContext.none());
            return relayAll;
        });
    }

    /** Authenticator apps and recovery codes: each step of the tour on a fresh user, measured alone. */
    private void totp(Map<String, Cost> costs) {
        costs.put(Operations.TOTP_ENROL, measure(Operations.TOTP_ENROL, user -> () -> enrol(user)));
        costs.put(Operations.TOTP_CONFIRM, measure(Operations.TOTP_CONFIRM, user -> {
            Enrolment enrolment = enrol(user);
            return () -> require(verification.totp().confirm(user, enrolment.factorId(), code(enrolment, 0),
                    ClientContext.none()).confirmed());
        }));
        costs.put(Operations.TOTP_VERIFY, measure(Operations.TOTP_VERIFY, user -> {
            Enrolment enrolment = confirmed(user);
            // The next step's code: the confirming code's step is accepted already, the next one is within the window.
            return () -> require(verification.totp().verify(user, code(enrolment, 1), ClientContext.none()).valid());
        }));
        costs.put(Operations.RECOVERY_VERIFY, measure(Operations.RECOVERY_VERIFY, user -> {
            Enrolment enrolment = enrol(user);
            Confirmation confirmation = verification.totp().confirm(user, enrolment.factorId(), code(enrolment, 0),
                    ClientContext.none());
            String recoveryCode = ((Confirmation.Confirmed) confirmation).recoveryCodes().orElseThrow().codes().get(0);
            return () -> require(verification.recovery().verify(user, recoveryCode, ClientContext.none()).valid());
        }));
    }

    private Enrolment enrol(String user) {
        return verification.totp().enrol(user, Optional.empty(), Optional.empty(), ClientContext.none());
    }

    private Enrolment confirmed(String user) {
        Enrolment enrolment = enrol(user);
        require(verification.totp().confirm(user, enrolment.factorId(), code(enrolment, 0), ClientContext.none())
                .confirmed());
        return enrolment;
    }

    /** The app's code {@code stepsAhead} steps after now (RFC 6238; the probe runs on the system clock). */
    private static String code(Enrolment enrolment, int stepsAhead) {
        return Totp.code(new Base32().decode(enrolment.secret()), Totp.step(Instant.now(), Totp.DEFAULT_PERIOD)
                + stepsAhead, TotpAlgorithm.SHA1, Totp.DEFAULT_DIGITS);
    }

    private String send(String user, CodeType type) {
        require(verification.codes().issue(CodeRequest.of(user, type, DeliveryMethod.EMAIL, user + "@example.com"))
                instanceof IssueResult.Issued);
        return sender.lastCode(user);
    }

    private static void require(boolean outcome) {
        if (!outcome) {
            throw new IllegalStateException("the probed operation did not succeed");
        }
    }

    /** Prepares a fresh user (unmeasured), then measures the operation it returns. */
    private Cost measure(String name, Function<String, Runnable> prepare) {
        double requests = 0;
        double steps = 0;
        double read = 0;
        double write = 0;
        double reported = 0;
        double consume = 0;
        double consumePlain = 0;
        String shape = "";
        List<Integer> stepsPerRun = new ArrayList<>();
        List<String> shapes = new ArrayList<>();
        for (int run = 0; run <= RUNS; run++) {
            String user = "probe-" + users.incrementAndGet();
            Runnable operation = prepare.apply(user);
            meter.clear();
            dynamo.proxy().clearRecording();
            operation.run();
            List<Meter.Call> calls = meter.calls();
            List<Exchange> exchanges = dynamo.proxy().exchanges();
            if (exchanges.size() != calls.size()) {
                throw new IllegalStateException(name + ": the proxy recorded " + exchanges.size() + " requests, the client "
                        + calls.size());
            }
            if (run == 0) {
                continue; // the first run warms up the client and the engine
            }
            List<List<Meter.Call>> grouped = steps(calls);
            requests += exchanges.size();
            stepsPerRun.add(grouped.size());
            read += calls.stream().mapToDouble(Meter.Call::readUnits).sum();
            write += calls.stream().mapToDouble(Meter.Call::writeUnits).sum();
            reported += calls.stream().mapToDouble(Meter.Call::reportedUnits).sum();
            for (Meter.Call call : calls) {
                if (call.operation().equals("TransactWriteItems") && name.startsWith("verify")) {
                    consume += call.writeUnits();
                    consumePlain += call.writeUnitsIfPlain();
                }
            }
            shapes.add(grouped.stream().map(step -> step.stream().map(Meter.Call::operation).sorted()
                    .collect(Collectors.joining("‖"))).collect(Collectors.joining(" → ")));
        }
        // The median run: on a busy machine a thread sent off in parallel may start only after another request
        // has already ended, which once in a while makes one run look a step longer than the code is.
        List<Integer> sorted = new ArrayList<>(stepsPerRun);
        sorted.sort(Integer::compare);
        steps = sorted.get(sorted.size() / 2);
        shape = shapes.get(stepsPerRun.indexOf((int) steps));
        return new Cost(name, requests / RUNS, steps, read / RUNS, write / RUNS, reported / RUNS, shape,
                consume / RUNS, consumePlain / RUNS, stepsPerRun);
    }

    /** Requests whose spans overlap, transitively, are one step: sent in parallel, waited for together. */
    static List<List<Meter.Call>> steps(List<Meter.Call> calls) {
        List<Meter.Call> ordered = new ArrayList<>(calls);
        ordered.sort(Comparator.comparingLong(Meter.Call::startNanos));
        List<List<Meter.Call>> steps = new ArrayList<>();
        long stepEnd = Long.MIN_VALUE;
        for (Meter.Call call : ordered) {
            if (steps.isEmpty() || call.startNanos() > stepEnd) {
                steps.add(new ArrayList<>());
                stepEnd = call.endNanos();
            } else {
                stepEnd = Math.max(stepEnd, call.endNanos());
            }
            steps.get(steps.size() - 1).add(call);
        }
        return steps;
    }
}
