package dev.verificationservice.store.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.Verification;
import dev.verificationservice.VerificationStore;
import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.codes.DevelopmentOutbox;
import dev.verificationservice.ratelimit.CounterWindow;
import dev.verificationservice.ratelimit.Place;
import dev.verificationservice.ratelimit.RateLimitPolicy;
import dev.verificationservice.ratelimit.RateLimiter;
import dev.verificationservice.recovery.RecoveryCode;
import dev.verificationservice.recovery.RecoveryCodeIssue;
import dev.verificationservice.recovery.RecoveryCodeUse;
import dev.verificationservice.recovery.RecoveryUseOutcome;
import dev.verificationservice.security.EncryptionKeyRing;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.testsupport.dynamodb.Dynalite;
import dev.verificationservice.testsupport.dynamodb.faults.DynamoDbFaultProxy;
import dev.verificationservice.testsupport.dynamodb.faults.Exchange;
import dev.verificationservice.testsupport.dynamodb.faults.Fault;
import dev.verificationservice.testsupport.time.MutableClock;
import dev.verificationservice.totp.Enrolment;
import dev.verificationservice.totp.StepAcceptance;
import dev.verificationservice.totp.StepOutcome;
import dev.verificationservice.totp.Totp;
import dev.verificationservice.totp.TotpAlgorithm;
import dev.verificationservice.totp.TotpService;
import dev.verificationservice.totp.TotpVerification;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.commons.codec.binary.Base32;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * A lost answer to a TOTP or recovery-code write, retried: still one acceptance, one audit entry, one give-back. The
 * fault proxy drops the answer of the first TransactWriteItems after the engine applied it; the SDK sends it again.
 * With DynamoDB's token memory the retry is answered "done"; without it (a retry after ten minutes) the store
 * recognises its own write by the attempt id stored with it.
 */
class DynamoDbTotpRetryTest {

    @RegisterExtension
    static final Dynalite.Extension DYNALITE = new Dynalite.Extension();

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final Instant START = Instant.parse("2026-11-30T10:00:00Z");
    private static final RateLimitPolicy FIVE = new RateLimitPolicy(5, Duration.ofMinutes(15));

    private final MutableClock clock = new MutableClock(START);
    private final List<AutoCloseable> closeAfterTest = new ArrayList<>();
    private final SecretKeyRing keys = SecretKeyRing.fromBase64(List.of(SecretKeyRing.generateBase64Key(RANDOM)));
    private final EncryptionKeyRing encryption =
            EncryptionKeyRing.fromBase64(List.of(EncryptionKeyRing.generateBase64Key(RANDOM)));
    private String tableName;
    private VerificationStore store;
    private Verification verification;

    @BeforeEach
    void openStore() {
        tableName = "verification-" + UUID.randomUUID();
        DynamoDbClient client = DYNALITE.get().transactional().client();
        new DynamoDbTableAdmin(client, tableName).createTable();
        store = new DynamoDbVerificationStore(client, tableName, new ConsumedCapacityRecorder(), false);
        verification = on(store);
    }

    @AfterEach
    void close() throws Exception {
        for (AutoCloseable closeable : closeAfterTest) {
            closeable.close();
        }
    }

    @Test
    void aLostAnswerToTheStepWriteRetriedByTheSdkIsStillExactlyOneValid() {
        Enrolment enrolment = confirmed("ana");
        DynamoDbFaultProxy proxy = proxy(DynamoDbFaultProxy.Options.defaults().emulatingTransactions());
        Verification lossy = on(storeThrough(proxy));
        clock.advance(Duration.ofSeconds(30));
        proxy.inject(Fault.dropAnswer("TransactWriteItems"));

        assertThat(lossy.totp().verify("ana", codeNow(enrolment), ClientContext.none()))
                .isEqualTo(new TotpVerification.Valid(enrolment.factorId()));

        assertThat(transactionOutcomes(proxy)).containsExactly(Exchange.Outcome.ANSWER_DROPPED,
                Exchange.Outcome.FORWARDED);
        assertThat(verification.totp().verify("ana", codeNow(enrolment), ClientContext.none()))
                .isEqualTo(new TotpVerification.Invalid(TotpVerification.Reason.REPLAYED));
        assertThat(entries("ana", AuditEventType.TOTP_VERIFIED)).isEqualTo(1);
        assertThat(verification.rateLimiter().current("ana", TotpService.VERIFY_ACTION, FIVE).count()).isZero();
    }

    /** After DynamoDB's ten minutes the engine runs the retry again: the store recognises its own acceptedBy. */
    @Test
    void aStepWriteRetriedAfterTheTokenIsForgottenIsRecognisedByItsAttemptId() {
        Enrolment enrolment = confirmed("ben");
        DynamoDbFaultProxy proxy = proxy(DynamoDbFaultProxy.Options.defaults().emulatingTransactions()
                .withoutClientRequestTokenMemory());
        VerificationStore lossy = storeThrough(proxy);
        long step = Totp.step(clock.instant(), Totp.DEFAULT_PERIOD) + 1;
        Place place = placeOf("ben", TotpService.VERIFY_ACTION, attempt("accept-1"));
        assertThat(lossy.counters().takePlace(place, 5)).isEqualTo(1);
        StepAcceptance acceptance = new StepAcceptance("ben", enrolment.factorId(), step, clock.instant(), attempt("accept-1"),
                newEntry("ben", AuditEventType.TOTP_VERIFIED), Optional.of(place), Optional.empty());
        proxy.inject(Fault.dropAnswer("TransactWriteItems"));

        assertThat(lossy.totp().acceptStep(acceptance)).isEqualTo(new StepOutcome.Accepted());

        assertThat(transactionOutcomes(proxy)).startsWith(Exchange.Outcome.ANSWER_DROPPED, Exchange.Outcome.FORWARDED);
        assertThat(store.totp().findFactor("ben", enrolment.factorId()).orElseThrow().lastAcceptedStep()).isEqualTo(step);
        assertThat(store.totp().acceptStep(new StepAcceptance("ben", enrolment.factorId(), step, clock.instant(), attempt("accept-2"),
                newEntry("ben", AuditEventType.TOTP_VERIFIED), Optional.empty(), Optional.empty())))
                .as("another attempt at the same step").isInstanceOf(StepOutcome.Refused.class);
        assertThat(entries("ben", AuditEventType.TOTP_VERIFIED)).isEqualTo(1);
        assertThat(verification.rateLimiter().current("ben", TotpService.VERIFY_ACTION, FIVE).count()).isZero();
    }

    @Test
    void aRecoveryCodeUseRetriedAfterTheTokenIsForgottenIsOneUse() {
        confirmed("cal");
        RecoveryCode code = store.recoveryCodes().findRecoveryCodes("cal").get(0);
        DynamoDbFaultProxy proxy = proxy(DynamoDbFaultProxy.Options.defaults().emulatingTransactions()
                .withoutClientRequestTokenMemory());
        VerificationStore lossy = storeThrough(proxy);
        RecoveryCodeUse use = new RecoveryCodeUse("cal", code.digest(), code.setId(), clock.instant(), attempt("use-1"),
                newEntry("cal", AuditEventType.RECOVERY_CODE_USED), Optional.empty());
        proxy.inject(Fault.dropAnswer("TransactWriteItems"));

        assertThat(lossy.recoveryCodes().useRecoveryCode(use)).isEqualTo(new RecoveryUseOutcome.Used());

        assertThat(transactionOutcomes(proxy)).startsWith(Exchange.Outcome.ANSWER_DROPPED, Exchange.Outcome.FORWARDED);
        assertThat(verification.recovery().remaining("cal")).isEqualTo(9);
        assertThat(entries("cal", AuditEventType.RECOVERY_CODE_USED)).isEqualTo(1);
    }

    /**
     * A new set whose answer was lost, retried after the token is forgotten: the engine runs the retry again, the
     * marker already names this set, and the store recognises its own entry: one set, done, never a conflict with
     * itself.
     */
    @Test
    void aReplacementRetriedAfterTheTokenIsForgottenIsDoneNotAConflict() {
        confirmed("dan");
        DynamoDbFaultProxy proxy = proxy(DynamoDbFaultProxy.Options.defaults().emulatingTransactions()
                .withoutClientRequestTokenMemory());
        Verification lossy = on(storeThrough(proxy));
        proxy.inject(Fault.dropAnswer("TransactWriteItems"));

        RecoveryCodeIssue issue = lossy.recovery().issue("dan", ClientContext.none());

        assertThat(issue).isInstanceOf(RecoveryCodeIssue.Issued.class);
        assertThat(transactionOutcomes(proxy)).startsWith(Exchange.Outcome.ANSWER_DROPPED, Exchange.Outcome.FORWARDED);
        assertThat(store.recoveryCodes().findRecoveryCodes("dan")).hasSize(10);
        String code = ((RecoveryCodeIssue.Issued) issue).codes().codes().get(0);
        assertThat(verification.recovery().verify("dan", code, ClientContext.none()).valid()).isTrue();
        assertThat(entries("dan", AuditEventType.RECOVERY_CODES_ISSUED)).as("the confirmation's and this one")
                .isEqualTo(2);
    }

    /** An attempt id of this test alone: ClientRequestTokens are remembered across tables. */
    private String attempt(String name) {
        return name + "-" + tableName.substring(tableName.length() - 8);
    }

    private Enrolment confirmed(String userId) {
        Enrolment enrolment = verification.totp().enrol(userId, Optional.empty(), Optional.empty(), ClientContext.none());
        assertThat(verification.totp().confirm(userId, enrolment.factorId(), codeNow(enrolment), ClientContext.none())
                .confirmed()).isTrue();
        return enrolment;
    }

    private String codeNow(Enrolment enrolment) {
        return Totp.code(new Base32().decode(enrolment.secret()), Totp.step(clock.instant(), Totp.DEFAULT_PERIOD),
                TotpAlgorithm.SHA1, Totp.DEFAULT_DIGITS);
    }

    private Verification on(VerificationStore target) {
        return Verification.builder().store(target).keys(keys).encryption(encryption)
                .sender(new DevelopmentOutbox(clock)).clock(clock).build();
    }

    private AuditEntry newEntry(String userId, AuditEventType type) {
        return verification.audit().newEntry(userId, type, true, Optional.empty(), Map.of(), ClientContext.none());
    }

    private long entries(String userId, AuditEventType type) {
        return verification.audit().query(userId, Optional.empty(), Optional.empty(), Optional.of(100), Optional.empty())
                .entries().stream().filter(entry -> entry.eventType() == type).count();
    }

    private static Place placeOf(String userId, String action, String attemptId) {
        Instant windowStart = RateLimiter.windowStart(START, FIVE.window());
        return new Place(new CounterWindow(userId, action, windowStart, windowStart.plus(Duration.ofHours(2))),
                attemptId);
    }

    private static List<Exchange.Outcome> transactionOutcomes(DynamoDbFaultProxy proxy) {
        return proxy.exchanges().stream().filter(exchange -> exchange.operation().equals("TransactWriteItems"))
                .map(Exchange::outcome).toList();
    }

    /** A proxy of this test only, in front of the same engine and table; closed after the test. */
    private DynamoDbFaultProxy proxy(DynamoDbFaultProxy.Options options) {
        DynamoDbFaultProxy proxy = DynamoDbFaultProxy.start(DYNALITE.get().endpoint(), options);
        closeAfterTest.add(proxy);
        return proxy;
    }

    /** The store on this test's table through another proxy, with the SDK's default retries. */
    private VerificationStore storeThrough(DynamoDbFaultProxy proxy) {
        DynamoDbClient client = Dynalite.client(proxy.endpoint());
        closeAfterTest.add(0, client);
        return new DynamoDbVerificationStore(client, tableName, new ConsumedCapacityRecorder(), false);
    }
}
