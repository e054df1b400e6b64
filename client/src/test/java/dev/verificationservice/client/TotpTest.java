package dev.verificationservice.client;

import static dev.verificationservice.client.TestServer.newUser;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.verificationservice.testsupport.totp.AuthenticatorApp;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Authenticator apps and recovery codes through the client, against the real server. */
class TotpTest {

    private final TestServer server = TestServer.shared();
    private final VerificationClient client = server.client();

    @BeforeEach
    void resetClock() {
        server.clock().set(TestServer.START);
    }

    @Test
    void enrolByTheQrCodeConfirmVerifyListAndRemove() {
        String user = newUser();
        TotpEnrolment enrolment = client.totp().enrol(user, Optional.of("phone"), Optional.of("Example"));
        assertThat(enrolment.toString()).doesNotContain(enrolment.secret());
        assertThat(enrolment.expiresAt()).isEqualTo(TestServer.START.plus(Duration.ofMinutes(15)));
        AuthenticatorApp app = AuthenticatorApp.scan(enrolment.qrCode());
        assertThat(app.label()).isEqualTo("phone");

        assertThat(client.totp().confirm(user, enrolment.factorId(), "000000".equals(now(app)) ? "111111" : "000000"))
                .isEqualTo(new TotpConfirmResult.NotConfirmed(TotpConfirmResult.Reason.INVALID_CODE));
        TotpConfirmResult confirmed = client.totp().confirm(user, enrolment.factorId(), now(app));
        assertThat(confirmed).isInstanceOfSatisfying(TotpConfirmResult.Confirmed.class, result -> {
            assertThat(result.recoveryCodes()).hasSize(10);
            assertThat(result.toString()).doesNotContain(result.recoveryCodes().get(0));
        });
        assertThat(client.totp().verify(user, now(app)))
                .isEqualTo(new TotpVerifyResult.Invalid(TotpVerifyResult.Reason.REPLAYED));
        server.clock().advance(Duration.ofSeconds(30));
        assertThat(client.totp().verify(user, now(app), ClientContext.of("203.0.113.9", "junit")))
                .isEqualTo(new TotpVerifyResult.Valid(enrolment.factorId()));

        List<TotpFactor> factors = client.totp().list(user);
        assertThat(factors).containsExactly(new TotpFactor(enrolment.factorId(), "phone", true, TestServer.START,
                Optional.of(TestServer.START.plus(Duration.ofSeconds(30)))));
        assertThat(client.totp().remove(user, enrolment.factorId())).isTrue();
        assertThat(client.totp().remove(user, enrolment.factorId())).isFalse();
        assertThat(client.totp().verify(user, now(app)))
                .isEqualTo(new TotpVerifyResult.Invalid(TotpVerifyResult.Reason.NO_FACTOR));
    }

    @Test
    void recoveryCodesAreIssuedOnlyWithAFactorAndWorkOnce() {
        String user = newUser();
        assertThatThrownBy(() -> client.totp().issueRecoveryCodes(user))
                .isInstanceOfSatisfying(ProblemException.class, e -> {
                    assertThat(e.status()).isEqualTo(409);
                    assertThat(e.code()).isEqualTo("NO_FACTOR");
                });
        TotpEnrolment enrolment = client.totp().enrol(user, Optional.empty(), Optional.empty());
        client.totp().confirm(user, enrolment.factorId(), now(AuthenticatorApp.fromUri(enrolment.otpauthUri())));

        RecoveryCodeIssue issued = client.totp().issueRecoveryCodes(user);
        assertThat(issued).isInstanceOf(RecoveryCodeIssue.Issued.class);
        List<String> codes = ((RecoveryCodeIssue.Issued) issued).recoveryCodes();
        assertThat(codes).hasSize(10);
        assertThat(issued.toString()).doesNotContain(codes.get(0));
        assertThat(client.totp().verifyRecoveryCode(user, codes.get(0)))
                .isEqualTo(new RecoveryCodeResult(true, Optional.empty(), 9));
        assertThat(client.totp().verifyRecoveryCode(user, codes.get(0)))
                .isEqualTo(new RecoveryCodeResult(false, Optional.of(RecoveryCodeResult.Reason.USED), 9));
        assertThatThrownBy(() -> client.totp().verify(user, "12345"))
                .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("code"));
    }

    /** Two new sets at once that read the user's set before either wrote: one is the user's, the other a conflict. */
    @Test
    void ofTwoSimultaneousNewSetsOneIsIssuedAndTheOtherAConflict() throws Exception {
        String user = newUser();
        TotpEnrolment enrolment = client.totp().enrol(user, Optional.empty(), Optional.empty());
        client.totp().confirm(user, enrolment.factorId(), now(AuthenticatorApp.fromUri(enrolment.otpauthUri())));
        server.meetAtRecoveryCodeRead(user, 2);

        ExecutorService pool = Executors.newFixedThreadPool(2);
        List<RecoveryCodeIssue> issues = new ArrayList<>();
        try {
            List<Future<RecoveryCodeIssue>> calls = List.of(pool.submit(() -> client.totp().issueRecoveryCodes(user)),
                    pool.submit(() -> client.totp().issueRecoveryCodes(user)));
            for (Future<RecoveryCodeIssue> call : calls) {
                issues.add(call.get(2, TimeUnit.MINUTES));
            }
        } finally {
            pool.shutdownNow();
        }

        assertThat(issues).filteredOn(RecoveryCodeIssue.Conflict.class::isInstance).singleElement()
                .satisfies(conflict -> assertThat(((RecoveryCodeIssue.Conflict) conflict).detail())
                        .contains("send this request again"));
        List<String> codes = issues.stream().filter(RecoveryCodeIssue.Issued.class::isInstance)
                .map(issue -> ((RecoveryCodeIssue.Issued) issue).recoveryCodes()).findFirst().orElseThrow();
        assertThat(client.totp().verifyRecoveryCode(user, codes.get(0)))
                .isEqualTo(new RecoveryCodeResult(true, Optional.empty(), 9));
    }

    private String now(AuthenticatorApp app) {
        return app.codeAt(server.clock().instant());
    }
}
