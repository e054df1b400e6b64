package dev.verificationservice.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.verificationservice.Verification;
import dev.verificationservice.VerificationSettings;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.codes.CodeRequest;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.DevelopmentOutbox;
import dev.verificationservice.codes.FailureReason;
import dev.verificationservice.codes.IssueResult;
import dev.verificationservice.codes.VerificationResult;
import dev.verificationservice.codes.VerifyRequest;
import dev.verificationservice.devices.DeviceRegistration;
import dev.verificationservice.devices.DeviceVerification;
import dev.verificationservice.devices.RegisteredDevice;
import dev.verificationservice.recovery.RecoveryVerification;
import dev.verificationservice.security.EncryptionKeyRing;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.store.UnitOfWork;
import dev.verificationservice.testsupport.time.MutableClock;
import dev.verificationservice.totp.Confirmation;
import dev.verificationservice.totp.Enrolment;
import dev.verificationservice.totp.Totp;
import dev.verificationservice.totp.TotpAlgorithm;
import dev.verificationservice.totp.TotpVerification;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import org.apache.commons.codec.binary.Base32;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The commits a request makes on the embedded store, counted on its writer: each operation's steps are one unit
 * of work, one transaction ({@link SqliteUnitOfWork}); delivery and what follows it are one more.
 */
class SqliteUnitOfWorkTest {

    private static final ClientContext CLIENT = ClientContext.of("203.0.113.9", "Safari", null);

    @TempDir
    Path dataDirectory;

    private final MutableClock clock = new MutableClock(Instant.parse("2026-12-01T10:00:00Z"));
    private final DevelopmentOutbox outbox = new DevelopmentOutbox(clock);
    private SqliteVerificationStore store;
    private Verification verification;

    @BeforeEach
    void open() {
        store = SqliteVerificationStore.open(dataDirectory, clock, Duration.ofDays(1), Duration.ofHours(1));
        verification = Verification.builder().store(store)
                .keys(SecretKeyRing.fromBase64(List.of(SecretKeyRing.generateBase64Key(new SecureRandom()))))
                .encryption(EncryptionKeyRing.fromBase64(List.of(EncryptionKeyRing.generateBase64Key(new SecureRandom()))))
                .sender(outbox).clock(clock).settings(VerificationSettings.defaults()).build();
    }

    @AfterEach
    void close() {
        store.close();
    }

    private long commits() {
        return store.writer().commits();
    }

    private IssueResult send(String userId) {
        return verification.codes().issue(CodeRequest.of(userId, CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL,
                userId + "@example.com").withClient(CLIENT));
    }

    private VerificationResult verify(String code, String userId) {
        return verification.codes().verify(VerifyRequest.numeric(code, userId, CodeType.EMAIL_VERIFICATION));
    }

    @Test
    void aSendIsOneCommitBeforeItsDeliveryAndOneForCodeSent() {
        long before = commits();

        assertThat(send("alice")).isInstanceOf(IssueResult.Issued.class);

        assertThat(commits() - before).as("places, cooldown, insert, current marker; then CODE_SENT").isEqualTo(2);
        assertThat(store.writer().transactions()).isEqualTo(commits());
        // The code waits for its sync before it goes out; CODE_SENT is answered at its COMMIT (contract, faults).
        assertThat(store.writer().answeredAtCommit()).isOne();
        assertThat(verify(outbox.messages().get(0).code(), "alice")).isInstanceOf(VerificationResult.Valid.class);
        assertThat(store.writer().answeredAtCommit()).as("a verification waits for its sync").isOne();
    }

    @Test
    void aNumericVerificationIsOneCommitRightOrWrong() {
        send("alice");
        String code = outbox.messages().get(0).code();

        long before = commits();
        assertThat(reasonOf(verify(code.equals("000000") ? "111111" : "000000", "alice")))
                .isEqualTo(FailureReason.NOT_FOUND);
        assertThat(commits() - before).as("the counted guess and its audit entry").isEqualTo(1);

        before = commits();
        assertThat(verify(code, "alice").valid()).isTrue();
        assertThat(commits() - before).as("count, look-back, consume with CODE_VERIFIED and the give-back")
                .isEqualTo(1);
    }

    @Test
    void aLinkVerificationIsOneCommit() {
        verification.codes().issue(CodeRequest.of("alice", CodeType.PASSWORD_RESET, DeliveryMethod.EMAIL,
                "alice@example.com"));
        String link = outbox.messages().get(0).code();

        long before = commits();
        assertThat(verification.codes().verify(new VerifyRequest(link, Optional.empty(), Optional.empty(), CLIENT))
                .valid()).isTrue();

        assertThat(commits() - before).isEqualTo(1);
    }

    @Test
    void aDeviceVerificationIsOneCommit() {
        RegisteredDevice device = verification.devices().register(new DeviceRegistration("alice", "phone-1", "IOS",
                Optional.empty(), Optional.empty(), CLIENT));

        long before = commits();
        assertThat(verification.devices().verify("phone-1", device.secret(), CLIENT))
                .isInstanceOf(DeviceVerification.Valid.class);

        assertThat(commits() - before).as("read, use and DEVICE_VERIFIED").isEqualTo(1);
    }

    @Test
    void aTotpVerificationIsOneCommitRightOrWrong() {
        Enrolment enrolment = verification.totp().enrol("alice", Optional.empty(), Optional.empty(), CLIENT);
        long before = commits();
        assertThat(verification.totp().confirm("alice", enrolment.factorId(), totpCode(enrolment, 0), CLIENT)
                .confirmed()).isTrue();
        assertThat(commits() - before).as("count, test, confirming write and the recovery codes").isEqualTo(1);

        String right = totpCode(enrolment, 1);
        // A code no step within the accepted skew shows.
        List<String> shown = List.of(totpCode(enrolment, -1), totpCode(enrolment, 0), right, totpCode(enrolment, 2));
        String wrong = java.util.stream.Stream.of("000000", "111111", "222222", "333333", "444444")
                .filter(candidate -> !shown.contains(candidate)).findFirst().orElseThrow();
        before = commits();
        assertThat(verification.totp().verify("alice", wrong, CLIENT))
                .isEqualTo(new TotpVerification.Invalid(TotpVerification.Reason.INVALID_CODE));
        assertThat(commits() - before).as("the counted guess and its audit entry").isEqualTo(1);

        clock.advance(Duration.ofSeconds(30));
        before = commits();
        assertThat(verification.totp().verify("alice", right, CLIENT)).isInstanceOf(TotpVerification.Valid.class);
        assertThat(commits() - before).as("count, read, accepted step with TOTP_VERIFIED and the reset")
                .isEqualTo(1);
    }

    @Test
    void aRecoveryCodeUseIsOneCommit() {
        Enrolment enrolment = verification.totp().enrol("alice", Optional.empty(), Optional.empty(), CLIENT);
        Confirmation.Confirmed confirmed = (Confirmation.Confirmed) verification.totp().confirm("alice",
                enrolment.factorId(), totpCode(enrolment, 0), CLIENT);
        String code = confirmed.recoveryCodes().orElseThrow().codes().get(0);

        long before = commits();
        assertThat(verification.recovery().verify("alice", code, CLIENT)).isInstanceOf(RecoveryVerification.Valid.class);
        assertThat(commits() - before).as("count, read, the use with RECOVERY_CODE_USED and the reset").isEqualTo(1);
    }

    /** The authenticator's code {@code stepsAhead} periods from now. */
    private String totpCode(Enrolment enrolment, int stepsAhead) {
        return Totp.code(new Base32().decode(enrolment.secret()), Totp.step(clock.instant(), Totp.DEFAULT_PERIOD)
                + stepsAhead, TotpAlgorithm.SHA1, Totp.DEFAULT_DIGITS);
    }

    @Test
    void revokingEveryDeviceAndInvalidatingCodesAreOneCommitEach() {
        verification.devices().register(new DeviceRegistration("alice", "phone-1", "IOS", Optional.empty(),
                Optional.empty(), CLIENT));
        send("alice");

        long before = commits();
        assertThat(verification.devices().revokeAll("alice", CLIENT)).isEqualTo(1);
        assertThat(commits() - before).as("marker, deletion and DEVICES_REVOKED").isEqualTo(1);

        before = commits();
        assertThat(verification.codes().invalidateAll("alice", "SUPPORT", java.util.Map.of(), CLIENT)).isEqualTo(1);
        assertThat(commits() - before).as("every type's deletion and CODES_INVALIDATED").isEqualTo(1);
    }

    @Test
    void aRefusedSendIsOneCommitThatLeavesOnlyItsAuditEntry() {
        send("alice");
        List<String> counters = counterItems();

        long before = commits();
        // The cooldown refuses it after the user's, the target's and the address's places were taken.
        assertThat(send("alice")).isInstanceOf(IssueResult.RateLimited.class);

        assertThat(commits() - before).as("the places taken and given back, and RATE_LIMITED").isEqualTo(1);
        // A give-back leaves its attempt id in one of a counter's 16 give-back slots: bounded, and all it leaves.
        assertThat(counterItems()).extracting(item -> item.replaceAll(",\"back_\\d+\":\"[^\"]*\"", ""))
                .as("every place given back").isEqualTo(counters);
        assertThat(String.join("\n", counterItems())).as("the give-back marks").contains("\"back_");
        assertThat(verification.audit().query("alice", Optional.empty(), Optional.empty(), Optional.of(10),
                Optional.empty()).entries().get(0).eventType().name()).isEqualTo("RATE_LIMITED");
    }

    @Test
    void aUnitThatFailsLeavesNothingOfItsSteps() {
        List<String> counters = counterItems();
        UnitOfWork units = store.units();

        assertThatThrownBy(() -> units.run("fail after a step", () -> {
            verification.rateLimiter().acquire("alice", "SEND_EMAIL_VERIFICATION",
                    VerificationSettings.DEFAULT_SEND_LIMIT);
            assertThat(store.writer().holdsCallingThread()).isTrue();
            throw new IllegalStateException("the operation failed after its first step");
        })).hasMessageContaining("after its first step");

        assertThat(counterItems()).isEqualTo(counters);
        assertThat(store.writer().holdsCallingThread()).isFalse();
    }

    /** The rate-limit counters and cooldowns as stored (rows of the items table), in key order. */
    private List<String> counterItems() {
        try (var connection = java.sql.DriverManager.getConnection("jdbc:sqlite:"
                + dataDirectory.resolve(SqliteVerificationStore.DATABASE_FILE));
             var statement = connection.createStatement();
             var rows = statement.executeQuery("SELECT pk || ' ' || sk || ' ' || item FROM items "
                     + "WHERE pk LIKE 'RATELIMIT#%' "
                     + "ORDER BY pk, sk")) {
            List<String> items = new java.util.ArrayList<>();
            while (rows.next()) {
                items.add(rows.getString(1));
            }
            return items;
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    private static FailureReason reasonOf(VerificationResult result) {
        assertThat(result).isInstanceOf(VerificationResult.Invalid.class);
        return ((VerificationResult.Invalid) result).reason();
    }
}
