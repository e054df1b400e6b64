package dev.verificationservice.store.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.WarmThroughput;

/** The CreateTable request {@code create-table} sends with and without warm throughput (dynalite ignores the field). */
class WarmThroughputRequestTest {

    @Test
    void unsetSendsNoWarmThroughput() {
        assertThat(DynamoDbTableAdmin.warmThroughput(null, null)).isNull();
        CreateTableRequest request = DynamoDbTableAdmin.createTableRequest("t", null);
        assertThat(request.warmThroughput()).isNull();
        assertThat(request.globalSecondaryIndexes()).extracting(GlobalSecondaryIndex::warmThroughput).containsOnlyNulls();
        assertThat(request).isEqualTo(DynamoDbTableAdmin.createTableRequest("t"));
    }

    @Test
    void setValuesGoToTheTableAndEachIndex() {
        WarmThroughput warm = DynamoDbTableAdmin.warmThroughput(20_000L, null);
        CreateTableRequest request = DynamoDbTableAdmin.createTableRequest("t", warm);
        assertThat(request.warmThroughput().writeUnitsPerSecond()).isEqualTo(20_000L);
        assertThat(request.warmThroughput().readUnitsPerSecond()).isNull();
        assertThat(request.globalSecondaryIndexes()).hasSize(2)
                .allSatisfy(index -> assertThat(index.warmThroughput()).isEqualTo(warm));
    }

    @Test
    void valuesNoHigherThanANewTablesStartAreRefusedByName() {
        assertThatThrownBy(() -> DynamoDbTableAdmin.warmThroughput(DynamoDbTableAdmin.START_WRITE_UNITS, null))
                .hasMessageContaining("warm write units").hasMessageContaining("4000");
        assertThatThrownBy(() -> DynamoDbTableAdmin.warmThroughput(null, 0L)).hasMessageContaining("warm read units");
        assertThat(DynamoDbTableAdmin.warmThroughput(null, DynamoDbTableAdmin.START_READ_UNITS + 1).readUnitsPerSecond())
                .isEqualTo(12_001L);
    }
}
