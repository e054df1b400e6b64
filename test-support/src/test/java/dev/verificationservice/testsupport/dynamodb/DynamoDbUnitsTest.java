package dev.verificationservice.testsupport.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;

class DynamoDbUnitsTest {

    private static AttributeValue s(String value) {
        return AttributeValue.fromS(value);
    }

    @Test
    void anItemIsItsNamesPlusItsValues() {
        // "PK" 2 + "USER#a" 6, "n" 1 + 12345 (5 digits: 3 + 1), "b" 1 + true 1, "m" 1 + map (3 + "k" 1 + "v" 1 + 1)
        Map<String, AttributeValue> item = Map.of(
                "PK", s("USER#a"),
                "n", AttributeValue.fromN("12345"),
                "b", AttributeValue.fromBool(true),
                "m", AttributeValue.fromM(Map.of("k", s("v"))));
        assertThat(DynamoDbUnits.itemSize(item)).isEqualTo(8 + 5 + 2 + 7);
        assertThat(DynamoDbUnits.numberSize("0")).isEqualTo(2);
        assertThat(DynamoDbUnits.numberSize("1000")).isEqualTo(2);
    }

    @Test
    void writesAreStartedKilobytesAndReadsStartedFourKilobytes() {
        assertThat(DynamoDbUnits.writeUnits(0)).isEqualTo(1);
        assertThat(DynamoDbUnits.writeUnits(1024)).isEqualTo(1);
        assertThat(DynamoDbUnits.writeUnits(1025)).isEqualTo(2);
        assertThat(DynamoDbUnits.readUnits(4097, true)).isEqualTo(2.0);
        assertThat(DynamoDbUnits.readUnits(10, false)).isEqualTo(0.5);
        assertThat(DynamoDbUnits.readUnits(List.of(Map.of("a", s("x".repeat(3000))), Map.of("a", s("y".repeat(3000)))),
                true)).isEqualTo(2.0);
    }

    @Test
    void anIndexIsChargedOnlyForItemsItHoldsAndTwiceWhenTheirKeyMoves() {
        Map<String, AttributeValue> counter = Map.of("PK", s("RATE#a"), "SK", s("W#1"));
        assertThat(DynamoDbUnits.indexWriteUnits(null, counter)).isZero();

        Map<String, AttributeValue> indexed = new HashMap<>(counter);
        indexed.put(DynamoDbUnits.GSI1PK, s("CODE#x"));
        indexed.put(DynamoDbUnits.GSI1SK, s("1"));
        assertThat(DynamoDbUnits.indexWriteUnits(null, indexed)).isEqualTo(1);
        assertThat(DynamoDbUnits.indexWriteUnits(indexed, null)).isEqualTo(1);
        assertThat(DynamoDbUnits.indexWriteUnits(indexed, indexed)).isZero();

        Map<String, AttributeValue> moved = new HashMap<>(indexed);
        moved.put(DynamoDbUnits.GSI1SK, s("2"));
        assertThat(DynamoDbUnits.indexWriteUnits(indexed, moved)).isEqualTo(2);

        Map<String, AttributeValue> changed = new HashMap<>(indexed);
        changed.put("x", s("y"));
        assertThat(DynamoDbUnits.indexWriteUnits(indexed, changed)).isEqualTo(1);
    }
}
