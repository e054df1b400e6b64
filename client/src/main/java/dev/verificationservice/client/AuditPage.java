package dev.verificationservice.client;

import java.util.List;
import java.util.Optional;

/**
 * One page of a user's history, newest first. {@code nextCursor} is present only when another entry exists;
 * pass it to {@link AuditQuery#withCursor}, or let {@link AuditClient#pages} follow it.
 */
public record AuditPage(List<AuditEvent> events, Optional<String> nextCursor) {

    public AuditPage {
        events = List.copyOf(events);
    }

    public boolean hasMore() {
        return nextCursor.isPresent();
    }
}
