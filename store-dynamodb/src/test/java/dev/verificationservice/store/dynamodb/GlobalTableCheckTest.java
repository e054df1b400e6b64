package dev.verificationservice.store.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.verificationservice.testsupport.dynamodb.Dynalite;
import dev.verificationservice.testsupport.dynamodb.faults.DynamoDbFaultProxy;
import dev.verificationservice.testsupport.dynamodb.faults.Fault;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * The start's check of a global table: dynalite knows no Regions, so the fault proxy in front of it rewrites the
 * {@code DescribeTable} answer into what DynamoDB answers for a replicated table ({@code Replicas},
 * {@code MultiRegionConsistency}, {@code GlobalTableVersion}); the table itself is real.
 */
class GlobalTableCheckTest {

    @RegisterExtension
    static final Dynalite.Extension DYNALITE = new Dynalite.Extension();

    private DynamoDbFaultProxy proxy;
    private DynamoDbClient client;
    private DynamoDbTableAdmin admin;

    @BeforeEach
    void tableBehindAProxy() {
        String tableName = "global-" + UUID.randomUUID();
        new DynamoDbTableAdmin(DYNALITE.get().client(), tableName).createTable();
        proxy = DynamoDbFaultProxy.start(DYNALITE.get().endpoint());
        client = Dynalite.client(proxy.endpoint());
        admin = new DynamoDbTableAdmin(client, tableName);
    }

    @AfterEach
    void close() {
        client.close();
        proxy.close();
    }

    @Test
    void aTableOfOneRegionPassesWhateverTheSetting() {
        assertThat(admin.requireSupportedReplication(GlobalTableMode.NONE)).isEmpty();
        assertThat(admin.requireSupportedReplication(GlobalTableMode.SINGLE_WRITER)).isEmpty();
    }

    @Test
    void anMrecGlobalTableIsRefusedNamingTheSettingAndRunsOnlyOnTheSingleWriterPromise() {
        describedAs(Map.of("Replicas", replicas("eu-west-1", "ap-southeast-2"), "GlobalTableVersion", "2019.11.21",
                "MultiRegionConsistency", "EVENTUAL"));

        assertThatThrownBy(() -> admin.requireSupportedReplication(GlobalTableMode.NONE))
                .isInstanceOf(GlobalTableException.class)
                .hasMessageContaining("replicas in eu-west-1, ap-southeast-2")
                .hasMessageContaining("last writer wins")
                .hasMessageContaining("VERIFICATION_DYNAMODB_GLOBAL_TABLE=single-writer");
        assertThat(admin.requireSupportedReplication(GlobalTableMode.SINGLE_WRITER))
                .containsExactly("eu-west-1", "ap-southeast-2");
    }

    /** A table made global without a consistency mode is MREC, DynamoDB's default. */
    @Test
    void aGlobalTableWithoutAConsistencyModeIsMrec() {
        describedAs(Map.of("Replicas", replicas("eu-west-1")));

        assertThatThrownBy(() -> admin.requireSupportedReplication(GlobalTableMode.NONE))
                .isInstanceOf(GlobalTableException.class).hasMessageContaining("MREC");
        assertThat(admin.requireSupportedReplication(GlobalTableMode.SINGLE_WRITER)).containsExactly("eu-west-1");
    }

    @Test
    void anMrscGlobalTableIsRefusedWhateverTheSetting() {
        describedAs(Map.of("Replicas", replicas("us-east-2", "us-west-2"), "GlobalTableVersion", "2019.11.21",
                "MultiRegionConsistency", "STRONG"));

        for (GlobalTableMode mode : GlobalTableMode.values()) {
            assertThatThrownBy(() -> admin.requireSupportedReplication(mode))
                    .isInstanceOf(GlobalTableException.class)
                    .hasMessageContaining("multi-Region strong consistency (MRSC)")
                    .hasMessageContaining("no setting allows it");
        }
    }

    /** A legacy (2017.11.29) global table lists no Replicas in DescribeTable; its version still says it is one. */
    @Test
    void aLegacyGlobalTableIsRefusedToo() {
        describedAs(Map.of("GlobalTableVersion", "2017.11.29"));

        assertThatThrownBy(() -> admin.requireSupportedReplication(GlobalTableMode.NONE))
                .isInstanceOf(GlobalTableException.class).hasMessageContaining("version 2017.11.29");
    }

    /** Every DescribeTable answer from now on: the engine's own, with these fields added to its Table. */
    @SuppressWarnings("unchecked")
    private void describedAs(Map<String, Object> fields) {
        proxy.inject(Fault.rewriteAnswer("DescribeTable", "a global table " + fields.keySet(), answer -> {
            Map<String, Object> rewritten = new HashMap<>(answer);
            Map<String, Object> table = new HashMap<>((Map<String, Object>) answer.get("Table"));
            table.putAll(fields);
            rewritten.put("Table", table);
            return rewritten;
        }).always());
    }

    private static List<Object> replicas(String... regions) {
        return List.of(regions).stream().<Object>map(region -> Map.of("RegionName", region, "ReplicaStatus", "ACTIVE"))
                .toList();
    }
}
