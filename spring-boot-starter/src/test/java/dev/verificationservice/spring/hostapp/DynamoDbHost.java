package dev.verificationservice.spring.hostapp;

import dev.verificationservice.store.dynamodb.DynamoDbTableAdmin;
import dev.verificationservice.testsupport.dynamodb.Dynalite;
import java.util.LinkedHashMap;
import java.util.Map;
import org.springframework.test.context.DynamicPropertyRegistry;

/** The starter's settings for a new table on dynalite, for a test whose application brings its own client. */
public final class DynamoDbHost {

    private DynamoDbHost() {
    }

    /** Creates {@code table} on the transactional proxy of {@code dynalite} and points the starter at it. */
    public static void settings(DynamicPropertyRegistry registry, Dynalite.Extension dynalite, String table) {
        new DynamoDbTableAdmin(dynalite.get().transactional().client(), table).createTable();
        properties(table).forEach((name, value) -> registry.add(name, () -> value));
    }

    /** The settings of an application on {@code table}, made already: for a second instance on the same table. */
    public static Map<String, String> properties(String table) {
        Map<String, String> properties = new LinkedHashMap<>();
        properties.put("verification.store", "dynamodb");
        properties.put("verification.dynamodb.table", table);
        // dynalite has no UpdateTimeToLive: the one setting made for such engines.
        properties.put("verification.dynamodb.require-ttl", "false");
        properties.put("verification.secret-keys", "SDTbhBfe5I9Wj1iT38oxkwrifLjf+nSS0eiTOIo68PA=");
        properties.put("verification.encryption-keys", "6zNRoqN42GRIublz9bAf+g9uqpvm2DUFi1keiY/33xY=");
        // No delivery channel: the codes are read from the development outbox, which DynamoDB runs only when asked.
        properties.put("verification.dev-outbox", "true");
        return properties;
    }
}
