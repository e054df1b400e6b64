package dev.verificationservice.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.audit.AuditEventType;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class TimelineQueryTest {

    private static final Instant NOW = Instant.parse("2026-11-30T10:15:30.250Z");

    @Test
    void anEmptyQueryReadsTheLastDayOfEveryType() {
        TimelineQuery.Range range = range(new TimelineQuery(null, null, null, null, null));

        assertThat(range.start()).isEqualTo(NOW.minus(Duration.ofDays(1)));
        assertThat(range.end()).isEqualTo(NOW);
        assertThat(range.types()).isEmpty();
        assertThat(range.position()).isEmpty();
        assertThat(range.filter()).isEqualTo(new TimelineQuery.Filter("", "P1D", "", ""));
    }

    @Test
    void aDateAloneMeansItsStartForFromAndItsEndForTo() {
        TimelineQuery.Range range = range(new TimelineQuery(" CODE_SENT ", "P7D", "2026-11-01", "2026-11-02", "c1"));

        assertThat(range.start()).isEqualTo(Instant.parse("2026-11-01T00:00:00Z"));
        assertThat(range.end()).isEqualTo(Instant.parse("2026-11-03T00:00:00Z"));
        assertThat(range.types()).isEqualTo(Set.of(AuditEventType.CODE_SENT));
        assertThat(range.position()).isEqualTo(Optional.of("c1"));
    }

    @Test
    void eachFieldToCorrectIsNamedWithWhatToDo() {
        TimelineQuery.Refused refused = (TimelineQuery.Refused) new TimelineQuery("NOPE", "P9Y", "yesterday",
                "2026-11-30 25:00", null).resolve(NOW);

        assertThat(refused.errors()).containsOnlyKeys("type", "period", "from", "to");
        assertThat(refused.errors().get("from")).contains("2026-11-30 09:30");
        assertThat(refused.filter().type()).isEqualTo("NOPE");
    }

    @Test
    void aRangeMustRunForwardAndStayWithinTheLongestRange() {
        assertThat(errors(new TimelineQuery(null, null, "2026-11-30 12:00", "2026-11-30 11:00", null)))
                .containsEntry("from", "From must be before To.");
        assertThat(errors(new TimelineQuery(null, null, "2026-01-01", "2026-11-30", null)).get("from"))
                .contains("at most " + TimelineQuery.MAX_RANGE.toDays() + " days");
    }

    @Test
    void olderPagesCarryTheResolvedRangeSoEveryPageReadsTheSameOne() {
        TimelineQuery.Range range = range(new TimelineQuery("CODE_SENT", "PT1H", null, null, null));

        assertThat(range.newestUrl("u 1")).isEqualTo("/console/users/u%201?type=CODE_SENT&period=PT1H#timeline");
        assertThat(range.olderUrl("u 1", "next"))
                .contains("from=" + ConsoleViews.time(Instant.parse("2026-11-30T09:15:30Z")).replace(" ", "%20"))
                .contains("to=" + ConsoleViews.time(Instant.parse("2026-11-30T10:15:31Z")).replace(" ", "%20"))
                .contains("cursor=next");
        assertThat(range.bucket()).isEqualTo(Duration.ofMinutes(5));
    }

    private static TimelineQuery.Range range(TimelineQuery query) {
        return (TimelineQuery.Range) query.resolve(NOW);
    }

    private static java.util.Map<String, String> errors(TimelineQuery query) {
        return ((TimelineQuery.Refused) query.resolve(NOW)).errors();
    }
}
