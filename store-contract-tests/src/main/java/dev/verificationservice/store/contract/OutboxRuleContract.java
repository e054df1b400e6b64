package dev.verificationservice.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.VerificationStore;
import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.codes.CodeConsumption;
import dev.verificationservice.codes.CodeFormat;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.ConsumeOutcome;
import dev.verificationservice.devices.DeviceToken;
import dev.verificationservice.events.EventIds;
import dev.verificationservice.events.WebhookRepository;
import dev.verificationservice.recovery.RecoveryCode;
import dev.verificationservice.recovery.RecoveryCodeReplacement;
import dev.verificationservice.recovery.RecoveryCodeUse;
import dev.verificationservice.recovery.RecoveryUseOutcome;
import dev.verificationservice.security.SealedSecret;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.table.AuditItems;
import dev.verificationservice.table.ItemAttributes;
import dev.verificationservice.table.TableKeys;
import dev.verificationservice.totp.StepAcceptance;
import dev.verificationservice.totp.StepOutcome;
import dev.verificationservice.totp.Totp;
import dev.verificationservice.totp.TotpAlgorithm;
import dev.verificationservice.totp.TotpFactor;
import dev.verificationservice.totp.TotpService;
import java.time.Duration;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * While an endpoint subscribes to every type, every audit entry is an event. For each write of the storage SPI that carries an audit entry,
 * the store holds the entry and exactly one undelivered event for it, in the outbox shard of the id the relay gives
 * the event ({@link EventIds#of}):
 * after the write (on a store that can lose an answer, {@link #answerLosingStore}, a write whose answer was lost and
 * which its client sent again), after the same write again (a retry of a lost answer, through this store and through
 * another instance), and, once the event was fanned out, a retry puts no event back in the outbox.
 */
public abstract class OutboxRuleContract extends ContractPart {

    private final String run = HexFormat.of().formatHex(randomBytes(4));

    protected OutboxRuleContract(ContractFixture fixture) {
        super(fixture);
    }

    @BeforeEach
    void anEndpointTakesEveryType() {
        subscribe(store());
    }

    @Test
    void anAppendedEntryIsOneEvent() {
        AuditEntry entry = newEntry("ana", AuditEventType.CODE_SENT);

        holdsTheRule(entry, target -> assertThat(target.audit().appendAudit(entry)).isTrue());
    }

    @Test
    void theEntryOfAConsumedCodeIsOneEvent() {
        sendEmailCode("ben");
        indexCatchesUp();
        String digest = store().codes().findCodes("ben", CodeType.EMAIL_VERIFICATION).get(0).digest();
        CodeConsumption consumption = new CodeConsumption(digest, "ben", CodeType.EMAIL_VERIFICATION, CodeFormat.NUMERIC,
                now(),
                attempt("consume"), newEntry("ben", AuditEventType.CODE_VERIFIED), Optional.empty());

        holdsTheRule(consumption.verified(),
                target -> assertThat(target.codes().consumeCode(consumption)).isEqualTo(new ConsumeOutcome.Consumed()));
    }

    @Test
    void theEntryOfARegisteredDeviceIsOneEvent() {
        DeviceToken token = new DeviceToken("laptop-" + run, "token-" + run, "cy", "WEB", Optional.empty(),
                Optional.empty(), now(), Optional.empty(), Optional.empty(), now(), now().plus(Duration.ofDays(30)));
        AuditEntry added = newEntry("cy", AuditEventType.DEVICE_ADDED);

        holdsTheRule(added, target -> target.devices().registerDevice(token, added),
                target -> doneOrRefused(() -> target.devices().registerDevice(token, added)));
    }

    @Test
    void theEntryOfAnEnrolledFactorIsOneEvent() {
        TotpFactor factor = pendingFactor("di");
        AuditEntry enrolled = newEntry("di", AuditEventType.TOTP_ENROLLED);

        holdsTheRule(enrolled,
                target -> assertThat(target.totp().insertFactor(factor, enrolled, TotpService.MAX_FACTORS)).isTrue(),
                target -> doneOrRefused(() -> target.totp().insertFactor(factor, enrolled, TotpService.MAX_FACTORS)));
    }

    @Test
    void theEntryOfAConfirmedFactorIsOneEvent() {
        TotpFactor factor = enrolled("ed");
        StepAcceptance confirmation = acceptance(factor, currentStep(), "confirm", AuditEventType.TOTP_CONFIRMED);

        holdsTheRule(confirmation.entry(),
                target -> assertThat(target.totp().confirmFactor(confirmation)).isEqualTo(new StepOutcome.Accepted()));
    }

    @Test
    void theEntryOfAnAcceptedStepIsOneEvent() {
        TotpFactor factor = enrolled("flo");
        assertThat(store().totp().confirmFactor(acceptance(factor, currentStep(), "confirm", AuditEventType.TOTP_CONFIRMED)))
                .isEqualTo(new StepOutcome.Accepted());
        StepAcceptance acceptance = acceptance(factor, currentStep() + 1, "accept", AuditEventType.TOTP_VERIFIED);

        holdsTheRule(acceptance.entry(),
                target -> assertThat(target.totp().acceptStep(acceptance)).isEqualTo(new StepOutcome.Accepted()));
    }

    @Test
    void theEntryOfAnIssuedRecoverySetIsOneEvent() {
        RecoveryCodeReplacement replacement = firstSet("gus");

        holdsTheRule(replacement.issuedEntry(),
                target -> assertThat(target.recoveryCodes().replaceRecoveryCodes(replacement)).isTrue());
    }

    @Test
    void theEntryOfAUsedRecoveryCodeIsOneEvent() {
        RecoveryCodeReplacement replacement = firstSet("hal");
        assertThat(store().recoveryCodes().replaceRecoveryCodes(replacement)).isTrue();
        RecoveryCode code = replacement.issued().get(0);
        RecoveryCodeUse use = new RecoveryCodeUse("hal", code.digest(), code.setId(), now(), attempt("use"),
                newEntry("hal", AuditEventType.RECOVERY_CODE_USED), Optional.empty());

        holdsTheRule(use.used(),
                target -> assertThat(target.recoveryCodes().useRecoveryCode(use)).isEqualTo(new RecoveryUseOutcome.Used()));
    }

    // The rule, for one write

    private void holdsTheRule(AuditEntry entry, Consumer<VerificationStore> write) {
        holdsTheRule(entry, write, write);
    }

    /**
     * Runs {@code write} once (through a store that loses its answer, where the provider has one), then {@code retry}
     * on this store and on another instance, then fans the event out and runs {@code retry} once more.
     */
    private void holdsTheRule(AuditEntry entry, Consumer<VerificationStore> write, Consumer<VerificationStore> retry) {
        Optional<AnswerLosingStore> losing = answerLosingStore();
        if (losing.isPresent()) {
            losing.get().loseNextAnswer();
            write.accept(losing.get().store());
            assertThat(losing.get().answersLost()).as("the write's answer was lost").isEqualTo(1);
        } else {
            write.accept(store());
        }
        AuditEntry stored = oneEntryAndOneEvent(entry, "after the write");

        retry.accept(store());
        oneEntryAndOneEvent(entry, "after the write again");
        retry.accept(anotherInstance());
        oneEntryAndOneEvent(entry, "after the write again through another instance");

        store().webhooks().fanOut(List.of(new WebhookRepository.FanOut(stored, List.of())));
        retry.accept(store());
        assertThat(eventsOf(entry)).as("the event of a fanned-out entry, after the write again").isEmpty();
        assertThat(entriesLike(entry)).as("the entry, after the write again once fanned out").hasSize(1);
    }

    /** The entry as the audit log holds it, after checking it is there once and is in the outbox once. */
    private AuditEntry oneEntryAndOneEvent(AuditEntry entry, String when) {
        List<AuditEntry> entries = entriesLike(entry);
        assertThat(entries).as("the entry, " + when).containsExactly(entry);
        assertThat(eventsOf(entry)).as("its undelivered event, " + when).containsExactly(entries.get(0));
        return entries.get(0);
    }

    /**
     * The undelivered events with the entry's event id, as the store holds them: items in the outbox's event
     * partition of the event's shard. Read raw, since a look of the relay ({@code undeliveredEvents}) may read only
     * some shards.
     */
    private List<AuditEntry> eventsOf(AuditEntry entry) {
        String eventId = EventIds.of(entry);
        String shard = TableKeys.outboxEventPartition(TableKeys.outboxShard(eventId));
        List<Map<String, Object>> events = allRawItems().stream()
                .filter(item -> item.get(ItemAttributes.OUTBOX_PK) instanceof String pk
                        && pk.startsWith(TableKeys.outboxEventsPrefix()))
                .filter(item -> EventIds.of(AuditItems.audit(item)).equals(eventId)).toList();
        assertThat(events).as("in the event's shard").allSatisfy(item ->
                assertThat(item.get(ItemAttributes.OUTBOX_PK)).isEqualTo(shard));
        return events.stream().map(AuditItems::audit).toList();
    }

    /** The user's audit entries with the entry's key (the same event id). */
    private List<AuditEntry> entriesLike(AuditEntry entry) {
        String eventId = EventIds.of(entry);
        return verification().audit().query(entry.userId(), Optional.empty(), Optional.empty(), Optional.of(100),
                Optional.empty()).entries().stream().filter(stored -> EventIds.of(stored).equals(eventId)).toList();
    }

    /**
     * A registration or enrolment sent again may be answered done, or refused because its key is taken (the store
     * cannot tell its own earlier write from another's there); either way it writes nothing more.
     */
    private static void doneOrRefused(Runnable retry) {
        try {
            retry.run();
        } catch (StoreException refused) {
            assertThat(refused).hasMessageContaining("nothing was written");
        }
    }

    // Fixtures

    private AuditEntry newEntry(String userId, AuditEventType type) {
        return verification().audit().newEntry(userId, type, true, Optional.empty(), Map.of("run", run),
                ClientContext.none());
    }

    /**
     * An attempt id of this test alone: a DynamoDB store sends it as a ClientRequestToken, which the engine remembers
     * for ten minutes across tables.
     */
    private String attempt(String name) {
        return name + "-" + run;
    }

    private Instant now() {
        return clock().instant();
    }

    private long currentStep() {
        return Totp.step(now(), Totp.DEFAULT_PERIOD);
    }

    /** A pending factor; the store never opens its sealed secret, so any sealed text will do. */
    private TotpFactor pendingFactor(String userId) {
        return new TotpFactor(userId, HexFormat.of().formatHex(randomBytes(12)), userId, "Example", TotpAlgorithm.SHA1,
                Totp.DEFAULT_DIGITS, Totp.DEFAULT_PERIOD, new SealedSecret("key-1", "bm9uY2U", "c2VhbGVkLXNlY3JldA"),
                false, now(), Optional.of(now().plus(Duration.ofMinutes(15))), TotpFactor.NO_STEP, Optional.empty());
    }

    private TotpFactor enrolled(String userId) {
        TotpFactor factor = pendingFactor(userId);
        assertThat(store().totp().insertFactor(factor, newEntry(userId, AuditEventType.TOTP_ENROLLED), TotpService.MAX_FACTORS))
                .isTrue();
        return factor;
    }

    private StepAcceptance acceptance(TotpFactor factor, long step, String attempt, AuditEventType type) {
        return new StepAcceptance(factor.userId(), factor.factorId(), step, now(), attempt(attempt),
                newEntry(factor.userId(), type), Optional.empty(), Optional.empty());
    }

    /** The user's first set of recovery codes (the user had none). */
    private RecoveryCodeReplacement firstSet(String userId) {
        String setId = "set-" + run;
        List<RecoveryCode> issued = List.of(
                new RecoveryCode(userId, "recovery-digest-1-" + run, setId, now(), false, Optional.empty()),
                new RecoveryCode(userId, "recovery-digest-2-" + run, setId, now(), false, Optional.empty()));
        return new RecoveryCodeReplacement(userId, Optional.empty(), setId, List.of(), issued,
                newEntry(userId, AuditEventType.RECOVERY_CODES_ISSUED));
    }

    private static byte[] randomBytes(int count) {
        byte[] bytes = new byte[count];
        RANDOM.nextBytes(bytes);
        return bytes;
    }
}
