package dev.verificationservice.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.DateTimeException;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/**
 * The table's timestamps, written and read digit by digit, are exactly what {@link DateTimeFormatter} writes and
 * {@link Instant#parse} reads: same text, same instant, same refusals.
 */
class TimestampsProperties {

    /** The pattern the table has always written, spelled out here independently of the production code. */
    private static final DateTimeFormatter REFERENCE =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);

    @Provide
    Arbitrary<Instant> instants() {
        // Year 0 to year 10,100: the digit-by-digit range and beyond it.
        long first = Instant.parse("0000-01-01T00:00:00Z").toEpochMilli();
        long last = Instant.parse("+10100-12-31T23:59:59.999Z").toEpochMilli();
        return Arbitraries.oneOf(
                Arbitraries.longs().between(first, last),
                Arbitraries.longs().between(Instant.parse("2020-01-01T00:00:00Z").toEpochMilli(),
                        Instant.parse("2040-01-01T00:00:00Z").toEpochMilli()))
                .map(Instant::ofEpochMilli);
    }

    @Property(tries = 3000)
    void formatWritesWhatTheFormatterWritesAndParseReadsItBack(@ForAll("instants") Instant instant) {
        String text = Timestamps.format(instant);
        assertThat(text).isEqualTo(REFERENCE.format(instant));
        assertThat(Timestamps.parse(text)).isEqualTo(instant).isEqualTo(Instant.parse(text));
    }

    /** Fixed-width texts of any digits, valid dates or not (month 13, 31 February, hour 24, second 60, ...). */
    @Provide
    Arbitrary<String> fixedWidthTexts() {
        Arbitrary<String> two = Arbitraries.integers().between(0, 99).map(n -> String.format("%02d", n));
        return Combinators.combine(Arbitraries.integers().between(0, 9999).map(n -> String.format("%04d", n)),
                        two, two, two, two, two, Arbitraries.integers().between(0, 999).map(n -> String.format("%03d", n)))
                .as((year, month, day, hour, minute, second, millis) ->
                        year + "-" + month + "-" + day + "T" + hour + ":" + minute + ":" + second + "." + millis + "Z");
    }

    @Property(tries = 3000)
    void anyFixedWidthTextIsReadAsInstantParseReadsIt(@ForAll("fixedWidthTexts") String text) {
        Instant expected;
        try {
            expected = Instant.parse(text);
        } catch (DateTimeException refused) {
            assertThatThrownBy(() -> Timestamps.parse(text)).isInstanceOf(refused.getClass());
            return;
        }
        assertThat(Timestamps.parse(text)).isEqualTo(expected);
    }

    @Example
    void otherIsoFormsAndNonDigitsStillGoThroughInstantParse() {
        assertThat(Timestamps.parse("2026-11-30T04:57:57Z")).isEqualTo(Instant.parse("2026-11-30T04:57:57Z"));
        assertThatThrownBy(() -> Timestamps.parse("2026-1a-30T04:57:57.123Z")).isInstanceOf(DateTimeException.class);
        assertThatThrownBy(() -> Timestamps.parse("+026-11-30T04:57:57.123Z")).isInstanceOf(DateTimeException.class);
    }
}
