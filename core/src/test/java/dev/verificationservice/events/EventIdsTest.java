package dev.verificationservice.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.validation.InvalidInputException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class EventIdsTest {

    private static final AuditEntry ENTRY = new AuditEntry("user@example.com", Instant.parse("2026-11-30T10:00:00.123Z"),
            "00000000000168ad62c78cbc9212", AuditEventType.CODE_VERIFIED, Map.of("codeType", "EMAIL_VERIFICATION",
            "note", "a \"quoted\"\nline"), Optional.of("203.0.113.9"), Optional.empty(), Optional.empty(), true,
            Optional.empty(), Optional.empty());

    @Test
    void anEventIdNamesItsAuditEntry() {
        EventIds.EventKey key = EventIds.parse(EventIds.of(ENTRY));

        assertThat(key).isEqualTo(new EventIds.EventKey(ENTRY.userId(), ENTRY.timestamp(), ENTRY.entryId()));
    }

    @ParameterizedTest
    @ValueSource(strings = {"evt_", "msg_abc", "evt_!!!!", "evt_dXNlciNQSyMxfDIwMjYtMTEtMzBUMTA6MDA6MDAuMDAwWnwwMGZm"})
    void anythingElseIsRefusedNamingEventId(String forged) {
        assertThatThrownBy(() -> EventIds.parse(forged)).isInstanceOfSatisfying(InvalidInputException.class,
                e -> assertThat(e.field()).isEqualTo("eventId"));
    }

    @Test
    void anIdWhoseUserWouldForgeAKeyIsRefused() {
        String forged = "evt_" + Base64.getUrlEncoder().withoutPadding().encodeToString(
                "u#AUDIT#x|2026-11-30T10:00:00.000Z|00ff".getBytes(StandardCharsets.UTF_8));

        assertThatThrownBy(() -> EventIds.parse(forged)).isInstanceOf(InvalidInputException.class);
    }

    @Test
    void theBodyHoldsTheEntryAsJsonWithItsTypeInDots() {
        WebhookEvent event = WebhookEvent.of(ENTRY);

        assertThat(event.type()).isEqualTo("code.verified");
        assertThat(event.body()).isEqualTo("{\"type\":\"code.verified\",\"timestamp\":\"2026-11-30T10:00:00.123Z\","
                + "\"data\":{\"userId\":\"user@example.com\",\"success\":true,\"details\":{\"codeType\":"
                + "\"EMAIL_VERIFICATION\",\"note\":\"a \\\"quoted\\\"\\nline\"},\"ipAddress\":\"203.0.113.9\"}}");
    }

    @Test
    void theScheduleRetriesSevenTimesThenGivesUp() {
        Instant failed = Instant.parse("2026-11-30T10:00:00Z");

        assertThat(RetrySchedule.nextAttempt(1, failed)).contains(failed.plusSeconds(5));
        assertThat(RetrySchedule.nextAttempt(2, failed)).contains(failed.plus(Duration.ofMinutes(5)));
        assertThat(RetrySchedule.nextAttempt(7, failed)).contains(failed.plus(Duration.ofHours(10)));
        assertThat(RetrySchedule.nextAttempt(8, failed)).isEmpty();
    }
}
