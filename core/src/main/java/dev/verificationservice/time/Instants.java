package dev.verificationservice.time;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.temporal.ChronoUnit;

/**
 * The domain's rules for instants: how precisely it keeps them and how it writes them into audit details.
 * How a store encodes an instant is the store layer's business and may differ.
 */
public final class Instants {

    /** ISO-8601 UTC with milliseconds and a fixed width, e.g. {@code 2026-11-30T04:57:57.123Z}. */
    private static final DateTimeFormatter ISO_MILLIS =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    private Instants() {
    }

    /** Milliseconds are the finest time the domain keeps: anything finer is dropped before it is stored. */
    public static Instant toMillis(Instant instant) {
        return instant.truncatedTo(ChronoUnit.MILLIS);
    }

    /**
     * The start of the instant's second. Expiry is stored in whole seconds ({@code ttl}), so an expiry is
     * rounded down before it is stored and reported: the caller is told exactly when validity ends.
     */
    public static Instant wholeSecond(Instant instant) {
        return instant.truncatedTo(ChronoUnit.SECONDS);
    }

    /** How an instant appears in audit details ({@code expiresAt}, {@code resetsAt}). */
    public static String iso(Instant instant) {
        return ISO_MILLIS.format(instant);
    }
}
