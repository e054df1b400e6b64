package dev.verificationservice.client;

import java.util.Iterator;
import java.util.NoSuchElementException;
import java.util.Objects;
import java.util.Optional;
import java.util.Spliterator;
import java.util.Spliterators;
import java.util.stream.Stream;
import java.util.stream.StreamSupport;

/**
 * A user's security history, newest first: {@code GET /v1/users/{userId}/audit}. From
 * {@link VerificationClient#audit()}. {@link #page} reads one page; {@link #pages} and {@link #events} follow
 * {@code nextCursor} lazily, one request per page, as far as the caller reads.
 */
public final class AuditClient {

    private final Transport transport;

    AuditClient(Transport transport) {
        this.transport = transport;
    }

    /** One page: the newest entries of the range, or those after the query's cursor. */
    public AuditPage page(AuditQuery query) {
        Objects.requireNonNull(query, "query");
        StringBuilder parameters = new StringBuilder();
        query.from().ifPresent(from -> parameters.append(Transport.parameter("from", from.toString())));
        query.to().ifPresent(to -> parameters.append(Transport.parameter("to", to.toString())));
        query.pageSize().ifPresent(size -> parameters.append(Transport.parameter("limit", Integer.toString(size))));
        query.cursor().ifPresent(cursor -> parameters.append(Transport.parameter("cursor", cursor)));
        String path = "/v1/users/" + Transport.segment(query.userId()) + "/audit"
                + (parameters.length() == 0 ? "" : "?" + parameters.substring(1));
        Fields answer = transport.get(Operation.AUDIT, path).json();
        return new AuditPage(answer.objects("events").stream()
                .map(event -> new AuditEvent(event.instant("timestamp"), event.text("eventType"), event.bool("success"),
                        event.optionalText("failureReason"), event.textMap("details"), event.optionalText("ipAddress"),
                        event.optionalText("userAgent"), event.optionalText("deviceId")))
                .toList(), answer.optionalText("nextCursor"));
    }

    /**
     * Every page of the query, the first one included, following {@code nextCursor}. Each iterator starts
     * afresh; a page is requested when the iterator is asked for it.
     */
    public Iterable<AuditPage> pages(AuditQuery query) {
        Objects.requireNonNull(query, "query");
        return () -> new PageIterator(query);
    }

    /** Every entry of the query, newest first, across pages; lazily, so {@code limit(n)} reads only what it needs. */
    public Stream<AuditEvent> events(AuditQuery query) {
        return StreamSupport.stream(Spliterators.spliteratorUnknownSize(new PageIterator(query),
                Spliterator.ORDERED | Spliterator.NONNULL), false).flatMap(page -> page.events().stream());
    }

    private final class PageIterator implements Iterator<AuditPage> {
        private Optional<AuditQuery> next;

        PageIterator(AuditQuery query) {
            this.next = Optional.of(Objects.requireNonNull(query, "query"));
        }

        @Override
        public boolean hasNext() {
            return next.isPresent();
        }

        @Override
        public AuditPage next() {
            AuditQuery query = next.orElseThrow(NoSuchElementException::new);
            AuditPage page = page(query);
            next = page.nextCursor().map(query::withCursor);
            return page;
        }
    }
}
