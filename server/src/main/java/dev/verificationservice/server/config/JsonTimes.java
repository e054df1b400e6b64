package dev.verificationservice.server.config;

import dev.verificationservice.time.Instants;
import java.time.Instant;

/**
 * How the HTTP API writes instants: ISO-8601 UTC with milliseconds and a fixed width
 * ({@code 2026-11-30T10:00:00.000Z}), the same text the domain puts into audit details (which the API shows
 * too), so a client parses one format. Never the table's storage format: that belongs to the stores.
 */
public final class JsonTimes {

    private JsonTimes() {
    }

    public static String format(Instant instant) {
        return Instants.iso(instant);
    }
}
