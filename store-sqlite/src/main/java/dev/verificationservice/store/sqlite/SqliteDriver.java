package dev.verificationservice.store.sqlite;

import dev.verificationservice.store.StoreException;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.sqlite.SQLiteJDBCLoader;

/**
 * The SQLite JDBC driver the embedded store opens with: it refuses one older than {@link #MINIMUM}, naming the
 * version it found, the one it needs and the property that sets it, before it opens anything.
 *
 * <p><b>Why the tested version is the minimum.</b> The statements themselves need SQLite 3.35 ({@code RETURNING};
 * {@code ON CONFLICT DO NOTHING} and the JSON functions are older). But the store's guarantees go beyond the SQL:
 * the writer syncs the write-ahead log itself and commits with {@code synchronous=NORMAL} ({@link WriteAheadLog}),
 * it relies on SQLite's checkpoint inside the writer's {@code COMMIT} and on the driver's pragmas and busy
 * handling, and the contract suite, the fault tests and the benchmarks proved all of it on one driver only: the
 * one the build pins ({@code sqlite-jdbc.version} in the parent POM). An older driver is one nothing has tested,
 * and a host's dependency management picks one silently (Spring Boot's manages sqlite-jdbc), so the start
 * refuses it rather than run untested. A newer driver is accepted: the driver's patch releases carry SQLite's
 * fixes, and the contract holds across them. A driver whose version cannot be read (a jar repackaged without its
 * Maven metadata) is accepted with a warning.
 */
final class SqliteDriver {

    /** The sqlite-jdbc version the store is tested with; kept equal to the build's by SqliteDriverTest. */
    static final String MINIMUM = "3.54.1.0";

    /** The property a host's POM sets to choose the driver (Spring Boot's dependency management reads it too). */
    static final String VERSION_PROPERTY = "sqlite-jdbc.version";

    private static final Logger LOG = LoggerFactory.getLogger(SqliteVerificationStore.class);
    private static final Pattern VERSION = Pattern.compile("(\\d+)(?:\\.(\\d+))?(?:\\.(\\d+))?(?:\\.(\\d+))?");

    private SqliteDriver() {
    }

    /** Throws a {@link StoreException} saying what to set when the driver on the class path is older than {@link #MINIMUM}. */
    static void requireSupported() {
        String found = SQLiteJDBCLoader.getVersion();
        Optional<String> refusal = refusal(found);
        if (refusal.isPresent()) {
            throw new StoreException(refusal.get());
        }
        if (parse(found).isEmpty()) {
            LOG.warn("Cannot tell the version of the SQLite JDBC driver (it says \"{}\"); the embedded store is tested"
                    + " with org.xerial:sqlite-jdbc {}", found, MINIMUM);
        }
    }

    /** Why the store refuses the driver of version {@code found}, or empty when it accepts it. */
    static Optional<String> refusal(String found) {
        Optional<int[]> version = parse(found);
        if (version.isEmpty() || compare(version.get(), parse(MINIMUM).orElseThrow()) >= 0) {
            return Optional.empty();
        }
        return Optional.of("The embedded store needs org.xerial:sqlite-jdbc " + MINIMUM + " or newer (the version it"
                + " is tested with), but the class path has " + found + ". A dependency management chose the older"
                + " driver (Spring Boot's does): set <" + VERSION_PROPERTY + ">" + MINIMUM + "</" + VERSION_PROPERTY
                + "> in the properties of your application's POM, or use verification.store=dynamodb");
    }

    /** The numbers of a version such as 3.54.1.0 (missing parts are 0), or empty when it has none. */
    static Optional<int[]> parse(String version) {
        if (version == null) {
            return Optional.empty();
        }
        Matcher matcher = VERSION.matcher(version.strip());
        if (!matcher.matches()) {
            return Optional.empty();
        }
        int[] parts = new int[4];
        for (int i = 0; i < parts.length; i++) {
            String part = matcher.group(i + 1);
            parts[i] = part == null ? 0 : Integer.parseInt(part);
        }
        return Optional.of(parts);
    }

    private static int compare(int[] a, int[] b) {
        for (int i = 0; i < a.length; i++) {
            if (a[i] != b[i]) {
                return Integer.compare(a[i], b[i]);
            }
        }
        return 0;
    }
}
