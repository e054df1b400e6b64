package dev.verificationservice.testsupport.dynamodb.faults;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The items and ClientRequestTokens of the emulated transactions that are running, as DynamoDB keeps them while
 * a transaction is in progress: from the moment it is accepted until it has answered. What the emulation answers
 * with it:
 * <ul>
 *   <li>a plain write ({@code PutItem}, {@code UpdateItem}, {@code DeleteItem}, any item of a
 *   {@code BatchWriteItem}) to a held item: {@code TransactionConflictException}, nothing written;</li>
 *   <li>a second transaction with an action on a held item: cancelled, reason {@code TransactionConflict} on
 *   those actions (the later one loses, as on DynamoDB);</li>
 *   <li>a transaction whose ClientRequestToken is running: {@code TransactionInProgressException}.</li>
 * </ul>
 * Reads are never refused (DynamoDB's GetItem and Query read committed items beside a transaction). Thread-safe.
 */
final class RunningTransactions {

    /** An item: its table and its key (attribute -> JSON value, canonical text). */
    record Item(String table, Map<String, String> key) {

        static Item of(String table, Map<String, Object> key) {
            Map<String, String> canonical = new HashMap<>();
            key.forEach((attribute, value) -> canonical.put(attribute, Json.canonical(value)));
            return new Item(table, Map.copyOf(canonical));
        }

        /** Whether a whole item (a PutItem's Item) is this one: every key attribute equal. */
        boolean isKeyOf(String itemTable, Map<String, Object> wholeItem) {
            if (!table.equals(itemTable)) {
                return false;
            }
            for (Map.Entry<String, String> attribute : key.entrySet()) {
                Object value = wholeItem.get(attribute.getKey());
                if (value == null || !attribute.getValue().equals(Json.canonical(value))) {
                    return false;
                }
            }
            return true;
        }
    }

    /** What a transaction that asks to start meets. */
    sealed interface Start {
        /** Started: its items and token are held until {@link #finish}. */
        record Started(Object owner) implements Start {
        }

        /** Another transaction with this token is running. */
        record InProgress() implements Start {
        }

        /** The indexes of its actions whose items another running transaction holds. */
        record Conflicts(Set<Integer> actions) implements Start {
        }
    }

    private final Map<Object, List<Item>> items = new HashMap<>(); // guarded by this
    private final Map<String, Object> tokens = new HashMap<>(); // guarded by this

    synchronized Start start(List<Item> actionItems, Optional<String> token) {
        if (token.isPresent() && tokens.containsKey(token.get())) {
            return new Start.InProgress();
        }
        Set<Integer> conflicts = new java.util.TreeSet<>();
        for (int i = 0; i < actionItems.size(); i++) {
            if (isHeld(actionItems.get(i))) {
                conflicts.add(i);
            }
        }
        if (!conflicts.isEmpty()) {
            return new Start.Conflicts(conflicts);
        }
        Object owner = new Object();
        items.put(owner, new ArrayList<>(actionItems));
        token.ifPresent(text -> tokens.put(text, owner));
        return new Start.Started(owner);
    }

    synchronized void finish(Object owner) {
        items.remove(owner);
        tokens.values().removeIf(owner::equals);
    }

    synchronized boolean isHeld(Item item) {
        return items.values().stream().anyMatch(held -> held.contains(item));
    }

    /** Whether a running transaction holds the item that a PutItem of {@code wholeItem} would write. */
    synchronized boolean isHeld(String table, Map<String, Object> wholeItem) {
        return items.values().stream().flatMap(List::stream).anyMatch(held -> held.isKeyOf(table, wholeItem));
    }
}
