package dev.verificationservice.audit;

import java.util.List;
import java.util.Optional;

/** One page of a user's audit history, newest first; {@code nextCursor} is opaque to callers. */
public record AuditPage(List<AuditEntry> entries, Optional<String> nextCursor) {

    public AuditPage {
        entries = List.copyOf(entries);
    }
}
