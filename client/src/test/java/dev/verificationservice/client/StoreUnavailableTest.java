package dev.verificationservice.client;

import static dev.verificationservice.client.TestServer.emailOf;
import static dev.verificationservice.client.TestServer.newUser;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.sql.Connection;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The real server's 503 {@code STORE_UNAVAILABLE}: the test holds the embedded database's write lock
 * ({@code BEGIN EXCLUSIVE}), so every write of the service gives up after its 0.3-second lock wait and answers
 * 503 with {@code Retry-After: 5}.
 */
class StoreUnavailableTest {

    private final TestServer server = TestServer.shared();

    @BeforeEach
    void resetClock() {
        server.clock().set(TestServer.START);
    }

    @Test
    void aLockedStoreIsAStoreUnavailableExceptionWithRetryAfterAndNoWriteIsRetried() throws Exception {
        VerificationClient client = server.client();
        String user = newUser();
        long failuresBefore = server.storeFailures();
        try (Connection lock = server.lockDatabase()) {
            assertThat(lock.isClosed()).isFalse();
            assertThatThrownBy(() -> client.codes().send(SendCodeRequest.of(user, CodeType.EMAIL_VERIFICATION,
                    DeliveryMethod.EMAIL, emailOf(user))))
                    .isInstanceOfSatisfying(StoreUnavailableException.class, e -> {
                        assertThat(e.status()).isEqualTo(503);
                        assertThat(e.code()).isEqualTo("STORE_UNAVAILABLE");
                        assertThat(e.retryAfter()).contains(Duration.ofSeconds(5));
                    });
            assertThatThrownBy(() -> client.codes().verify(PresentedCode.numeric("123456", user,
                    CodeType.EMAIL_VERIFICATION))).isInstanceOf(StoreUnavailableException.class);
            assertThatThrownBy(() -> client.devices().register(DeviceRegistration.of(user, "d-1", "WEB")))
                    .isInstanceOf(StoreUnavailableException.class);
            // Each write reached the store once: a retry (after Retry-After, the lock still held) would fail again.
            assertThat(server.storeFailures() - failuresBefore).as("no write was retried").isEqualTo(3);

            VerificationClient noRetries = server.clientBuilder().retryPolicy(RetryPolicy.none()).build();
            assertThatThrownBy(() -> noRetries.codes().check(PresentedCode.numeric("123456", user,
                    CodeType.EMAIL_VERIFICATION))).isInstanceOf(StoreUnavailableException.class);
        }
        assertThat(server.client().codes().send(SendCodeRequest.of(user, CodeType.EMAIL_VERIFICATION,
                DeliveryMethod.EMAIL, emailOf(user))).sent()).as("recovered").isTrue();
    }

    @Test
    void aCheckIsRetriedAfterRetryAfterAndAnswersOnceTheStoreIsBack() throws Exception {
        VerificationClient client = server.client();
        String user = newUser();
        CompletableFuture<CheckResult> check;
        long started;
        long failuresBefore = server.storeFailures();
        try (Connection lock = server.lockDatabase()) {
            assertThat(lock.isClosed()).isFalse();
            started = System.nanoTime();
            // A failed check is counted (a write), so it waits for the lock: 503, then the client's retry.
            check = CompletableFuture.supplyAsync(() -> client.codes().check(PresentedCode.numeric("123456", user,
                    CodeType.EMAIL_VERIFICATION)));
            // Once the store has failed the first attempt, its answer is a 503 whatever the lock does next.
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (server.storeFailures() == failuresBefore) {
                assertThat(System.nanoTime()).as("the first attempt fails within its lock wait").isLessThan(deadline);
                LockSupport.parkNanos(TimeUnit.MILLISECONDS.toNanos(10));
            }
            assertThat(check).as("waiting for its retry").isNotDone();
        }
        assertThat(check.get(20, TimeUnit.SECONDS)).isEqualTo(new CheckResult.Invalid(InvalidCodeReason.NOT_FOUND));
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("after Retry-After")
                .isGreaterThanOrEqualTo(Duration.ofSeconds(5));
    }
}
