package dev.verificationservice.store.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.ConsumedCapacity;

class ConsumedCapacityRecorderTest {

    @Test
    void aFailedConditionalWriteIsBilledOneWriteUnit() {
        ConsumedCapacityRecorder recorder = new ConsumedCapacityRecorder();
        List<String> told = new ArrayList<>();
        recorder.addListener((pattern, kind, units) -> told.add(pattern + " " + kind.tag() + " " + units));

        recorder.recordFailedWrite(AccessPattern.IDEMPOTENCY, 1);

        assertThat(recorder.snapshot().get(AccessPattern.IDEMPOTENCY))
                .isEqualTo(new ConsumedCapacityRecorder.Usage(1, 1.0));
        assertThat(told).containsExactly("IDEMPOTENCY write 1.0");
    }

    @Test
    void aCancelledTransactionIsBilledOneWriteUnitPerAction() {
        ConsumedCapacityRecorder recorder = new ConsumedCapacityRecorder();
        List<Double> told = new ArrayList<>();
        recorder.addListener((pattern, kind, units) -> told.add(units));

        recorder.recordFailedWrite(AccessPattern.REGISTER_DEVICE, 3);
        recorder.record(AccessPattern.REGISTER_DEVICE, ConsumedCapacityRecorder.Kind.WRITE,
                ConsumedCapacity.builder().capacityUnits(6.0).build());

        assertThat(recorder.snapshot().get(AccessPattern.REGISTER_DEVICE))
                .isEqualTo(new ConsumedCapacityRecorder.Usage(2, 9.0));
        assertThat(told).containsExactly(3.0, 6.0);
    }

    @Test
    void aWriteWithNoActionIsNotAFailedWrite() {
        assertThatThrownBy(() -> new ConsumedCapacityRecorder().recordFailedWrite(AccessPattern.IDEMPOTENCY, 0))
                .isInstanceOf(IllegalArgumentException.class);
    }
}
