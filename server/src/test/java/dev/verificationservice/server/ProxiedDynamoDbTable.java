package dev.verificationservice.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.server.store.CreateTableCommand;
import dev.verificationservice.spring.VerificationProperties;
import dev.verificationservice.testsupport.dynamodb.faults.DynamoDbFaultProxy;
import java.time.Duration;
import org.springframework.test.context.DynamicPropertyRegistry;

/** A service table made by {@code create-table} behind a fault proxy, and the service's settings to use it. */
final class ProxiedDynamoDbTable {

    private ProxiedDynamoDbTable() {
    }

    /**
     * Makes {@code table} through the proxy and points the service at it there. dynalite has no UpdateTimeToLive, so
     * TTL is not required (the one setting made for such engines).
     */
    static void register(DynamicPropertyRegistry registry, DynamoDbFaultProxy proxy, String table) {
        String endpoint = proxy.endpoint().toString();
        // Generous timeouts: they bound a hang only, and dynalite on a loaded machine may take seconds to make a table.
        assertThat(CreateTableCommand.create(new VerificationProperties.Dynamodb(table, endpoint, false,
                Duration.ofSeconds(60), Duration.ofSeconds(20), 3))).as("create-table's exit code").isZero();
        registry.add("verification.store", () -> "dynamodb");
        registry.add("verification.dynamodb.table", () -> table);
        registry.add("verification.dynamodb.endpoint", () -> endpoint);
        registry.add("verification.dynamodb.require-ttl", () -> "false");
    }
}
