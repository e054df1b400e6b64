package dev.verificationservice.spring.hostapp;

import dev.verificationservice.store.dynamodb.DynamoDbTableAdmin;
import dev.verificationservice.testsupport.dynamodb.Dynalite;
import org.springframework.test.context.DynamicPropertyRegistry;

/** The starter's settings for a new table on dynalite, for a test whose application brings its own client. */
public final class DynamoDbHost {

    private DynamoDbHost() {
    }

    /** Creates {@code table} on the transactional proxy of {@code dynalite} and points the starter at it. */
    public static void settings(DynamicPropertyRegistry registry, Dynalite.Extension dynalite, String table) {
        new DynamoDbTableAdmin(dynalite.get().transactional().client(), table).createTable();
        registry.add("verification.store", () -> "dynamodb");
        registry.add("verification.dynamodb.table", () -> table);
        // dynalite has no UpdateTimeToLive: the one setting made for such engines.
        registry.add("verification.dynamodb.require-ttl", () -> "false");
        registry.add("verification.secret-keys", () -> "SDTbhBfe5I9Wj1iT38oxkwrifLjf+nSS0eiTOIo68PA=");
        registry.add("verification.encryption-keys", () -> "6zNRoqN42GRIublz9bAf+g9uqpvm2DUFi1keiY/33xY=");
        // No delivery channel: the codes are read from the development outbox, which DynamoDB runs only when asked.
        registry.add("verification.dev-outbox", () -> "true");
    }
}
