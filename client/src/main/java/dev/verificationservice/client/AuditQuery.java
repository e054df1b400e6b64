package dev.verificationservice.client;

import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalInt;

/**
 * {@code GET /v1/users/{userId}/audit}: a user's security history, newest first.
 *
 * @param userId   whose history
 * @param from     the earliest entry (inclusive); empty: from the start
 * @param to       the latest entry (inclusive); empty: until now
 * @param pageSize entries per page, 1 to 100; empty: the service's default (50)
 * @param cursor   where to continue: a page's {@link AuditPage#nextCursor()}; empty: the newest entry
 */
public record AuditQuery(String userId, Optional<Instant> from, Optional<Instant> to, OptionalInt pageSize,
                         Optional<String> cursor) {

    public AuditQuery {
        Objects.requireNonNull(userId, "userId");
        Objects.requireNonNull(from, "from");
        Objects.requireNonNull(to, "to");
        Objects.requireNonNull(pageSize, "pageSize");
        Objects.requireNonNull(cursor, "cursor");
    }

    /** The whole retained history of the user, in pages of the service's default size. */
    public static AuditQuery of(String userId) {
        return builder(userId).build();
    }

    public static Builder builder(String userId) {
        return new Builder(userId);
    }

    /** The same query continuing at {@code cursor}. */
    public AuditQuery withCursor(String cursor) {
        return new AuditQuery(userId, from, to, pageSize, Optional.of(cursor));
    }

    /** Builds an {@link AuditQuery}. Not thread-safe. */
    public static final class Builder {
        private final String userId;
        private Optional<Instant> from = Optional.empty();
        private Optional<Instant> to = Optional.empty();
        private OptionalInt pageSize = OptionalInt.empty();
        private Optional<String> cursor = Optional.empty();

        private Builder(String userId) {
            this.userId = userId;
        }

        public Builder from(Instant from) {
            this.from = Optional.of(from);
            return this;
        }

        public Builder to(Instant to) {
            this.to = Optional.of(to);
            return this;
        }

        public Builder pageSize(int entries) {
            this.pageSize = OptionalInt.of(entries);
            return this;
        }

        public Builder cursor(String cursor) {
            this.cursor = Optional.of(cursor);
            return this;
        }

        public AuditQuery build() {
            return new AuditQuery(userId, from, to, pageSize, cursor);
        }
    }
}
