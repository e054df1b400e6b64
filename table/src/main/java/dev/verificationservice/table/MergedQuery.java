package dev.verificationservice.table;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;

/**
 * One query over the shards of a key: each shard's partition is asked for the first {@code limit} items in the
 * order, and the answers are merged, so the caller gets what one partition holding them all would have answered (a
 * store asks the shards in parallel where it can). Each shard must be asked for the full {@code limit}: any one of
 * them may hold every item of the answer.
 */
public final class MergedQuery {

    private MergedQuery() {
    }

    /** The first {@code limit} items of the shards' answers, each already in {@code order}. */
    public static <T> List<T> merge(List<List<T>> answers, Comparator<? super T> order, int limit) {
        List<T> all = new ArrayList<>();
        answers.forEach(all::addAll);
        all.sort(order);
        return List.copyOf(all.size() > limit ? all.subList(0, limit) : all);
    }

    /** Oldest first by their outbox sort key (the next attempt): the order of an outbox partition. */
    public static Comparator<Map<String, Object>> byOutboxSortKey() {
        return Comparator.comparing(item -> TableItems.string(item, ItemAttributes.OUTBOX_SK));
    }

    /** Newest first by sort key (event time, then event id): the order an endpoint's deliveries are listed in. */
    public static Comparator<Map<String, Object>> bySortKeyNewestFirst() {
        return Comparator.<Map<String, Object>, String>comparing(item -> TableItems.string(item, ItemAttributes.SK))
                .reversed();
    }
}
