package dev.verificationservice.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.idempotency.IdempotencyRecord;
import dev.verificationservice.idempotency.IdempotentRequests;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Idempotency-Key: one run per key, its answer replayed, a dead request's key taken over. */
public abstract class IdempotencyContract extends ContractPart {

    protected IdempotencyContract(ContractFixture fixture) {
        super(fixture);
    }

    private static final byte[] SEND_BODY = "POST /v1/codes {\"userId\":\"ida\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8);

    @Test
    void theSameKeyAndRequestReplaysTheFirstAnswerAndAnotherRequestIsRefused() {
        IdempotentRequests requests = verification().idempotency();
        IdempotentRequests.Begin first = requests.begin("client-a", "key-1", SEND_BODY, Duration.ofSeconds(5));
        assertThat(first).isInstanceOf(IdempotentRequests.Begin.Proceed.class);
        requests.finish(((IdempotentRequests.Begin.Proceed) first).ticket(), 201, "{\"secret\":\"s3cr3t-device-secret\"}");

        assertThat(requests.begin("client-a", "key-1", SEND_BODY, Duration.ofSeconds(5)))
                .isEqualTo(new IdempotentRequests.Begin.Replay(201, "{\"secret\":\"s3cr3t-device-secret\"}"));
        assertThat(requests.begin("client-a", "key-1", "POST /v1/codes {}".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                Duration.ofSeconds(5))).isInstanceOf(IdempotentRequests.Begin.KeyReused.class);
        assertThat(requests.begin("client-b", "key-1", SEND_BODY, Duration.ofSeconds(5)))
                .as("another client's key of the same name").isInstanceOf(IdempotentRequests.Begin.Proceed.class);
        // The answer is sealed: a device secret in it is never in the table in clear, nor the key itself.
        assertThat(allRawItems().toString()).doesNotContain("s3cr3t-device-secret", "key-1");
    }

    @Test
    void anAnswerHoldingASecretShownOnceIsNotKeptAndItsReplayIsRefused() {
        IdempotentRequests requests = verification().idempotency();
        IdempotentRequests.Begin first = requests.begin("client-a", "key-once", SEND_BODY, Duration.ofSeconds(5));
        requests.finishShownOnce(((IdempotentRequests.Begin.Proceed) first).ticket(), 201);

        assertThat(requests.begin("client-a", "key-once", SEND_BODY, Duration.ofSeconds(5)))
                .isInstanceOf(IdempotentRequests.Begin.ShownOnce.class);
        assertThat(requests.begin("client-a", "key-once", "POST /v1/codes {}".getBytes(java.nio.charset.StandardCharsets.UTF_8),
                Duration.ofSeconds(5))).isInstanceOf(IdempotentRequests.Begin.KeyReused.class);
        // Nothing of the answer is stored, sealed or not: only that the request ran.
        assertThat(allRawItems().toString()).contains(IdempotencyRecord.StoredAnswer.WITHHELD);
    }

    /**
     * A claim that arrives again after its request has answered (an SDK retry of an attempt whose answer was lost,
     * reaching the store late) leaves the stored answer, and hands it back: the request must not run twice.
     */
    @Test
    void aClaimArrivingAgainAfterItsAnswerWasStoredLeavesTheAnswer() {
        Instant now = clock().instant();
        IdempotencyRecord pending = new IdempotencyRecord("late-claim-digest", "request-digest", "claim-late", now,
                Optional.empty(), now.plus(Duration.ofHours(24)));
        IdempotencyRecord.StoredAnswer answer = new IdempotencyRecord.StoredAnswer(201,
                "c2VhbGVkLWFuc3dlci1ib2R5LW9mLWEtdGVzdC1yZXF1ZXN0");
        assertThat(store().idempotency().claimIdempotencyKey(pending, now.minus(Duration.ofMinutes(1)))).isEmpty();
        store().idempotency().completeIdempotencyKey(pending.keyDigest(), pending.claimedBy(), answer);

        Optional<IdempotencyRecord> again = store().idempotency().claimIdempotencyKey(pending, now.minus(Duration.ofMinutes(1)));

        assertThat(again).as("the late claim is answered with the record that holds the answer")
                .hasValueSatisfying(record -> assertThat(record.answer()).contains(answer));
        assertThat(store().idempotency().findIdempotencyKey(pending.keyDigest(), now).flatMap(IdempotencyRecord::answer))
                .as("the stored answer").contains(answer);
    }

    @Test
    void aFailedRequestGivesItsKeyUpAndAKeyLeftPendingByADeadRequestIsTakenOver() {
        IdempotentRequests requests = verification().idempotency();
        IdempotentRequests.Begin first = requests.begin("client-a", "key-2", SEND_BODY, Duration.ZERO);
        requests.abandon(((IdempotentRequests.Begin.Proceed) first).ticket());
        assertThat(requests.begin("client-a", "key-2", SEND_BODY, Duration.ZERO))
                .isInstanceOf(IdempotentRequests.Begin.Proceed.class);

        assertThat(requests.begin("client-a", "key-2", SEND_BODY, Duration.ZERO))
                .as("still running").isInstanceOf(IdempotentRequests.Begin.StillRunning.class);
        clock().advance(IdempotentRequests.STALE_AFTER.plusSeconds(1));
        assertThat(requests.begin("client-a", "key-2", SEND_BODY, Duration.ZERO))
                .as("its request died").isInstanceOf(IdempotentRequests.Begin.Proceed.class);
    }

    @Test
    void ofEightSimultaneousRequestsWithOneKeyOneRunsAndAllGiveItsAnswer() throws Exception {
        IdempotentRequests requests = verification().idempotency();
        AtomicInteger ran = new AtomicInteger();
        List<String> answers = runConcurrently(8, () -> {
            IdempotentRequests.Begin begin = requests.begin("client-a", "key-3", SEND_BODY, Duration.ofSeconds(20));
            if (begin instanceof IdempotentRequests.Begin.Proceed proceed) {
                String body = "{\"run\":" + ran.incrementAndGet() + "}";
                requests.finish(proceed.ticket(), 202, body);
                return body;
            }
            return ((IdempotentRequests.Begin.Replay) begin).body();
        });

        assertThat(ran.get()).isEqualTo(1);
        assertThat(answers).containsOnly("{\"run\":1}").hasSize(8);
    }
}
