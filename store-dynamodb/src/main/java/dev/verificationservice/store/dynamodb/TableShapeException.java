package dev.verificationservice.store.dynamodb;

import dev.verificationservice.store.StoreException;
import java.util.List;

/** The configured DynamoDB table is missing or differs from the single-table layout; says every difference. */
public final class TableShapeException extends StoreException {

    private final List<String> differences;

    public TableShapeException(String tableName, List<String> differences) {
        super("DynamoDB table '" + tableName + "' does not have the expected shape: " + String.join("; ", differences)
                + ". Run the create-table command to create it, or fix the table to match the layout in the README.");
        this.differences = List.copyOf(differences);
    }

    public List<String> differences() {
        return differences;
    }
}
