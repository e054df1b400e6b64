package dev.verificationservice.testsupport.dynamodb.faults;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * A {@code TransactWriteItems} request as the {@link TransactionEmulator} reads it: checked as DynamoDB checks it
 * before doing anything (1 to {@value #MAX_ACTIONS} actions, each exactly one of Put, Update, Delete or
 * ConditionCheck, a ClientRequestToken of 1 to {@value #MAX_TOKEN_LENGTH} characters), and each action turned into
 * the single-item request that applies it.
 */
final class TransactionRequests {

    /** DynamoDB's limit on the actions of one transaction. */
    static final int MAX_ACTIONS = 100;
    /** DynamoDB's limit on the length of a ClientRequestToken. */
    static final int MAX_TOKEN_LENGTH = 36;
    /** The placeholder and attribute of a ConditionCheck's update: removing an attribute that never exists. */
    private static final String NEVER_PLACEHOLDER = "#faultProxyConditionCheck";
    private static final String NEVER_ATTRIBUTE = "fault-proxy-condition-check-never-stored";

    private TransactionRequests() {
    }

    /** A request DynamoDB refuses before doing anything: the message of its ValidationException. */
    static final class InvalidRequest extends Exception {
        InvalidRequest(String message) {
            super(message);
        }
    }

    /** An answer of the engine that ends the transaction before anything was written (an unknown table, say). */
    static final class EngineAnswer extends Exception {
        final transient Http.Message answer;

        EngineAnswer(Http.Message answer) {
            super(answer.head().startLine());
            this.answer = answer;
        }
    }

    @FunctionalInterface
    interface KeySchemas {
        List<String> of(String table) throws IOException, EngineAnswer;
    }

    /** The request as a whole; {@code hash} identifies it without its ClientRequestToken. */
    record Transaction(List<Map<String, Object>> items, Optional<String> token, boolean returnsCapacity,
                               String hash, List<String> tables) {

        static Transaction of(Map<String, Object> body) throws InvalidRequest {
            if (!(body.get("TransactItems") instanceof List<?> list)) {
                throw new InvalidRequest("1 validation error detected: Value null at 'transactItems' failed to "
                        + "satisfy constraint: Member must not be null");
            }
            if (list.isEmpty() || list.size() > MAX_ACTIONS) {
                throw new InvalidRequest("1 validation error detected: Value '" + list.size() + " items' at "
                        + "'transactItems' failed to satisfy constraint: Member must have length "
                        + (list.isEmpty() ? "greater than or equal to 1" : "less than or equal to " + MAX_ACTIONS));
            }
            List<Map<String, Object>> items = new ArrayList<>();
            List<String> tables = new ArrayList<>();
            for (Object element : list) {
                try {
                    Map<String, Object> item = Json.object(element, "a TransactItems element");
                    items.add(item);
                    Map<String, Object> action = Json.object(item.values().stream().findFirst().orElse(null), "action");
                    tables.add(String.valueOf(action.get("TableName")));
                } catch (Json.ParseException e) {
                    throw new InvalidRequest("TransactItems can only contain one of Check, Put, Update or Delete");
                }
            }
            Optional<String> token = Optional.empty();
            Object tokenValue = body.get("ClientRequestToken");
            if (tokenValue instanceof String text) {
                if (text.isEmpty() || text.length() > MAX_TOKEN_LENGTH) {
                    throw new InvalidRequest("1 validation error detected: Value '" + text + "' at "
                            + "'clientRequestToken' failed to satisfy constraint: Member must have length "
                            + (text.isEmpty() ? "greater than or equal to 1" : "less than or equal to " + MAX_TOKEN_LENGTH));
                }
                token = Optional.of(text);
            }
            Object capacity = body.get("ReturnConsumedCapacity");
            boolean returnsCapacity = "TOTAL".equals(capacity) || "INDEXES".equals(capacity);
            Map<String, Object> withoutToken = Json.copy(body);
            withoutToken.remove("ClientRequestToken");
            return new Transaction(items, token, returnsCapacity, sha256(Json.canonical(withoutToken)), tables);
        }

        private static String sha256(String text) {
            try {
                return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256")
                        .digest(text.getBytes(StandardCharsets.UTF_8)));
            } catch (NoSuchAlgorithmException e) {
                throw new IllegalStateException("every JDK has SHA-256", e);
            }
        }
    }

    enum Kind {
        PUT("Put", "PutItem"), UPDATE("Update", "UpdateItem"), DELETE("Delete", "DeleteItem"),
        CONDITION_CHECK("ConditionCheck", "UpdateItem");

        final String member;
        final String operation;

        Kind(String member, String operation) {
            this.member = member;
            this.operation = operation;
        }
    }

    /** One action of the transaction: the item it targets and the single-item request that applies it. */
    record Action(Kind kind, String table, Map<String, Object> key, Map<String, Object> fields) {

        static Action of(Map<String, Object> item, KeySchemas schemas) throws InvalidRequest, IOException, EngineAnswer {
            List<Kind> kinds = new ArrayList<>();
            for (Kind kind : Kind.values()) {
                if (item.get(kind.member) != null && item.get(kind.member) != Json.NULL) {
                    kinds.add(kind);
                }
            }
            if (kinds.size() != 1 || item.size() != 1) {
                throw new InvalidRequest("TransactItems can only contain one of Check, Put, Update or Delete");
            }
            Kind kind = kinds.get(0);
            Map<String, Object> fields;
            try {
                fields = Json.object(item.get(kind.member), kind.member);
            } catch (Json.ParseException e) {
                throw new InvalidRequest(e.getMessage());
            }
            if (!(fields.get("TableName") instanceof String table)) {
                throw new InvalidRequest("1 validation error detected: Value null at 'transactItems." + kind.member
                        + ".tableName' failed to satisfy constraint: Member must not be null");
            }
            Map<String, Object> key;
            if (kind == Kind.PUT) {
                if (!(fields.get("Item") instanceof Map<?, ?> stored)) {
                    throw new InvalidRequest("1 validation error detected: Value null at 'transactItems.Put.item' "
                            + "failed to satisfy constraint: Member must not be null");
                }
                key = new LinkedHashMap<>();
                for (String attribute : schemas.of(table)) {
                    Object value = stored.get(attribute);
                    if (value == null) {
                        throw new InvalidRequest("One or more parameter values were invalid: Missing the key "
                                + attribute + " in the item");
                    }
                    key.put(attribute, value);
                }
            } else {
                try {
                    key = Json.object(fields.get("Key"), "Key");
                } catch (Json.ParseException e) {
                    throw new InvalidRequest("1 validation error detected: Value null at 'transactItems."
                            + kind.member + ".key' failed to satisfy constraint: Member must not be null");
                }
            }
            return new Action(kind, table, key, fields);
        }

        String operation() {
            return kind.operation;
        }

        boolean returnsOldItem() {
            return "ALL_OLD".equals(fields.get("ReturnValuesOnConditionCheckFailure"));
        }

        /** The action as its own request; a ConditionCheck becomes an UpdateItem that changes nothing. */
        Map<String, Object> singleItemRequest(boolean returnCapacity) {
            Map<String, Object> request = Json.copy(fields);
            if (kind == Kind.CONDITION_CHECK) {
                @SuppressWarnings("unchecked")
                Map<String, Object> names = request.get("ExpressionAttributeNames") instanceof Map<?, ?> given
                        ? new LinkedHashMap<>((Map<String, Object>) given) : new LinkedHashMap<>();
                names.put(NEVER_PLACEHOLDER, NEVER_ATTRIBUTE);
                request.put("ExpressionAttributeNames", names);
                request.put("UpdateExpression", "REMOVE " + NEVER_PLACEHOLDER);
            }
            if (returnCapacity) {
                request.put("ReturnConsumedCapacity", "TOTAL");
            }
            return request;
        }
    }
}
