package dev.verificationservice.store.dynamodb;

import dev.verificationservice.store.StoreException;

/** The configured table is a global table of a kind the store does not run on; says which, and what would allow it. */
public final class GlobalTableException extends StoreException {

    public GlobalTableException(String tableName, String reason) {
        super("DynamoDB table '" + tableName + "' " + reason);
    }
}
