package dev.verificationservice.table;

import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * Timestamps as the table stores them: ISO-8601 UTC with milliseconds and a fixed width
 * ({@code 2026-11-30T04:57:57.123Z}), so that comparing them as text compares them as times.
 */
public final class Timestamps {

    private static final DateTimeFormatter FIXED_WIDTH =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    private Timestamps() {
    }

    public static String format(Instant instant) {
        return FIXED_WIDTH.format(instant);
    }

    public static Instant parse(String text) {
        return Instant.parse(text);
    }
}
