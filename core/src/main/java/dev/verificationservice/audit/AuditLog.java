package dev.verificationservice.audit;

import dev.verificationservice.audit.AuditRepository.AuditPosition;
import dev.verificationservice.security.SecureTokens;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.time.Instants;
import dev.verificationservice.validation.InvalidInputException;
import dev.verificationservice.validation.Inputs;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The per-user security audit log: appends entries that never overwrite each other, and reads a time
 * range newest first with an opaque cursor, leaving out entries past their retention.
 */
public final class AuditLog {

    public static final int DEFAULT_PAGE_SIZE = 50;
    public static final int MAX_PAGE_SIZE = 100;
    /** 64 random bits in every entryId keep entries of different service instances apart. */
    static final int ENTRY_ID_RANDOM_BYTES = 8;
    private static final int MAX_APPEND_ATTEMPTS = 5;

    private final AuditRepository entries;
    private final Clock clock;
    private final Optional<Duration> retention;
    private final SecureTokens tokens;
    /** Orders this instance's entries of one millisecond by when they were recorded. */
    private final AtomicLong sequence = new AtomicLong();

    /**
     * @param retention how long entries are kept; empty means forever (the entries carry no ttl)
     */
    public AuditLog(AuditRepository entries, Clock clock, Optional<Duration> retention, SecureTokens tokens) {
        this.entries = entries;
        this.clock = clock;
        this.retention = retention;
        this.tokens = tokens;
    }

    /** Builds an entry stamped now, without writing it (for writes that must carry it in a transaction). */
    public AuditEntry newEntry(String userId, AuditEventType type, boolean success, Optional<String> failureReason,
                               Map<String, String> details, ClientContext client) {
        Instant timestamp = Instants.toMillis(clock.instant());
        return new AuditEntry(userId, timestamp, nextEntryId(), type, details,
                client.ipAddress(), client.userAgent(), client.deviceId(), success, failureReason,
                retention.map(timestamp::plus));
    }

    /**
     * A fixed-width hex sequence number, then random hex: entries of one millisecond sort in the order this
     * instance recorded them, and two instances never produce the same id.
     */
    private String nextEntryId() {
        return String.format("%012x", sequence.incrementAndGet() & 0xFFFF_FFFF_FFFFL)
                + tokens.randomHex(ENTRY_ID_RANDOM_BYTES);
    }

    /** Records one event now. */
    public AuditEntry record(String userId, AuditEventType type, boolean success, Optional<String> failureReason,
                             Map<String, String> details, ClientContext client) {
        Inputs.userId(userId);
        for (int attempt = 0; attempt < MAX_APPEND_ATTEMPTS; attempt++) {
            AuditEntry entry = newEntry(userId, type, success, failureReason, details, client);
            if (entries.appendAudit(entry)) {
                return entry;
            }
        }
        throw new StoreException("could not find a free audit key for user " + userId + " after "
                + MAX_APPEND_ATTEMPTS + " attempts");
    }

    /**
     * Records an entry built earlier ({@link #newEntry}), so that it keeps its moment and its place among the
     * entries of that moment; on a taken key, the same event as a new entry.
     */
    public AuditEntry record(AuditEntry built) {
        if (entries.appendAudit(built)) {
            return built;
        }
        return record(built.userId(), built.eventType(), built.success(), built.failureReason(), built.details(),
                new ClientContext(built.ipAddress(), built.userAgent(), built.deviceId()));
    }

    public AuditEntry recordSuccess(String userId, AuditEventType type, Map<String, String> details,
                                    ClientContext client) {
        return record(userId, type, true, Optional.empty(), details, client);
    }

    public AuditEntry recordFailure(String userId, AuditEventType type, String failureReason,
                                    Map<String, String> details, ClientContext client) {
        return record(userId, type, false, Optional.of(failureReason), details, client);
    }

    /**
     * One page of the user's history in {@code [from, to]}, newest first.
     *
     * @param from   default: the beginning of time
     * @param to     default: now
     * @param limit  1 to {@value #MAX_PAGE_SIZE}; default {@value #DEFAULT_PAGE_SIZE}
     * @param cursor the {@code nextCursor} of the previous page
     */
    public AuditPage query(String userId, Optional<Instant> from, Optional<Instant> to, Optional<Integer> limit,
                           Optional<String> cursor) {
        Inputs.userId(userId);
        Instant now = clock.instant();
        Instant rangeStart = from.orElse(Instant.EPOCH);
        Instant rangeEnd = to.orElse(now);
        requireStorable("from", rangeStart);
        requireStorable("to", rangeEnd);
        if (rangeStart.isAfter(rangeEnd)) {
            throw new InvalidInputException("from", "must not be after 'to'");
        }
        int pageSize = limit.orElse(DEFAULT_PAGE_SIZE);
        if (pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
            throw new InvalidInputException("limit", "must be between 1 and " + MAX_PAGE_SIZE);
        }
        Optional<AuditPosition> before = cursor.map(AuditCursor::decode);
        if (before.isPresent() && before.get().timestamp().isAfter(rangeEnd)) {
            throw new InvalidInputException("cursor", "belongs to another time range; pass the same 'from' and 'to' "
                    + "as for the first page, or leave the cursor out to start again");
        }
        if (before.isPresent() && before.get().timestamp().isBefore(rangeStart)) {
            // The previous page ended before the range starts: nothing is left.
            return new AuditPage(List.of(), Optional.empty());
        }

        // One more than asked tells whether another page exists, so nextCursor never leads to an empty page.
        List<AuditEntry> found = entries.queryAudit(userId, rangeStart, rangeEnd, before, pageSize + 1, now);
        List<AuditEntry> page = new ArrayList<>();
        for (AuditEntry entry : found) {
            if (entry.isRetainedAt(now) && page.size() <= pageSize) {
                page.add(entry);
            }
        }
        Optional<String> nextCursor = Optional.empty();
        if (page.size() > pageSize) {
            page = page.subList(0, pageSize);
            AuditEntry last = page.get(pageSize - 1);
            nextCursor = Optional.of(AuditCursor.encode(new AuditPosition(last.timestamp(), last.entryId())));
        }
        return new AuditPage(page, nextCursor);
    }

    /** How many entries one filtered page reads at most before it answers with what it found. */
    public static final int MAX_FILTER_SCAN = 1000;

    /**
     * One page of the user's history in {@code [from, to]}, newest first, holding only entries of the given
     * types (all types when {@code types} is empty). The store has no index by type, so the log reads the
     * range newest first, a batch at a time, and keeps the matching entries. A page reads at most
     * {@value #MAX_FILTER_SCAN} entries: when that runs out first, the page holds fewer than {@code limit}
     * entries (maybe none) and its {@code nextCursor} continues after the last entry read, so paging on goes
     * through the whole range without any one page reading all of it.
     */
    public AuditPage query(String userId, Optional<Instant> from, Optional<Instant> to, Optional<Integer> limit,
                           Optional<String> cursor, Set<AuditEventType> types) {
        if (types.isEmpty() || types.size() == AuditEventType.values().length) {
            return query(userId, from, to, limit, cursor);
        }
        int pageSize = limit.orElse(DEFAULT_PAGE_SIZE);
        if (pageSize < 1 || pageSize > MAX_PAGE_SIZE) {
            throw new InvalidInputException("limit", "must be between 1 and " + MAX_PAGE_SIZE);
        }
        List<AuditEntry> matching = new ArrayList<>();
        Optional<String> position = cursor;
        int scanned = 0;
        while (true) {
            AuditPage batch = query(userId, from, to, Optional.of(MAX_PAGE_SIZE), position);
            List<AuditEntry> read = batch.entries();
            for (int i = 0; i < read.size(); i++) {
                AuditEntry entry = read.get(i);
                scanned++;
                if (types.contains(entry.eventType())) {
                    matching.add(entry);
                }
                if (matching.size() == pageSize || scanned >= MAX_FILTER_SCAN) {
                    // Whether anything older is left in the range: the rest of this batch, or another batch.
                    boolean more = i < read.size() - 1 || batch.nextCursor().isPresent();
                    return new AuditPage(matching, more ? Optional.of(cursorAfter(entry)) : Optional.empty());
                }
            }
            if (batch.nextCursor().isEmpty()) {
                return new AuditPage(matching, Optional.empty());
            }
            position = batch.nextCursor();
        }
    }

    private static String cursorAfter(AuditEntry entry) {
        return AuditCursor.encode(new AuditPosition(entry.timestamp(), entry.entryId()));
    }

    /** Timestamps are kept as fixed-width text, which holds the years 1970 to 9999. */
    /** A 400 naming {@code field} for an instant no store keeps (before 1970 or after 9999): never an overflow. */
    public static void requireStorable(String field, Instant instant) {
        if (instant.isBefore(Instant.EPOCH) || instant.isAfter(LATEST)) {
            throw new InvalidInputException(field, "must be between 1970-01-01T00:00:00Z and 9999-12-31T23:59:59Z");
        }
    }

    private static final Instant LATEST = Instant.parse("9999-12-31T23:59:59.999Z");
}
