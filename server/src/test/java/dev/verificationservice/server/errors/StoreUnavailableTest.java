package dev.verificationservice.server.errors;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.store.StoreException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;

/** A 503 says what happened to the store; an engine answering what it should not is named in the log, at ERROR. */
@ExtendWith(OutputCaptureExtension.class)
class StoreUnavailableTest {

    @Test
    void theDetailSaysWhatHappenedForEveryKind() {
        for (StoreException.Kind kind : StoreException.Kind.values()) {
            ResponseEntity<ProblemDetail> answer = StoreUnavailable.answer(new StoreException(kind, "internal", null));

            assertThat(answer.getStatusCode().value()).isEqualTo(503);
            assertThat(answer.getBody().getDetail()).startsWith(kind.description())
                    .endsWith("Retry after the time in Retry-After.").doesNotContain("internal");
        }
        assertThat(StoreUnavailable.detail(new StoreException(StoreException.Kind.THROTTLED, "x", null)))
                .doesNotContain("in time");
    }

    @Test
    void anUnexpectedAnswerIsAnErrorInTheLogThatNamesTheEngineAnswer(CapturedOutput output) {
        StoreUnavailable.answer(new StoreException(StoreException.Kind.UNEXPECTED_ANSWER,
                "DynamoDB could not consume a code on table 't': UnknownOperationException - ...", null));
        StoreUnavailable.answer(new StoreException(StoreException.Kind.TIMED_OUT, "DynamoDB could not read", null));

        assertThat(output.getAll()).containsPattern("ERROR .*does not expect.*UnknownOperationException")
                .containsPattern("WARN .*Store unavailable \\(TIMED_OUT\\)");
    }
}
