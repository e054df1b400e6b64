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
    void anEventIdNamesItsTimeAndNothingOfItsUser() {
        String id = EventIds.of(ENTRY);

        assertThat(EventIds.parse(id)).isEqualTo(new EventIds.EventKey(id, ENTRY.timestamp()));
        assertThat(id).matches("evt_[A-Za-z0-9_-]{30}").doesNotContainIgnoringCase("user")
                .doesNotContain(base64("user@example.com")).doesNotContain(ENTRY.entryId());
        assertThat(new String(Base64.getUrlDecoder().decode(id.substring(4)), StandardCharsets.ISO_8859_1))
                .doesNotContain("user", "example", ENTRY.entryId());
        assertThat(EventIds.of(ENTRY)).as("a function of the entry alone").isEqualTo(id);
    }

    @Test
    void entriesThatDifferOnlyInTheirUserHaveDifferentIds() {
        AuditEntry other = new AuditEntry("user@example.org", ENTRY.timestamp(), ENTRY.entryId(), ENTRY.eventType(),
                ENTRY.details(), ENTRY.ipAddress(), ENTRY.userAgent(), ENTRY.deviceId(), ENTRY.success(),
                ENTRY.failureReason(), ENTRY.expiresAt());

        assertThat(EventIds.of(other)).isNotEqualTo(EventIds.of(ENTRY));
    }

    @ParameterizedTest
    @ValueSource(strings = {"evt_", "msg_abc", "evt_!!!!", "evt_dXNlciNQSyMxfDIwMjYtMTEtMzBUMTA6MDA6MDAuMDAwWnwwMGZm",
            // the readable form of earlier versions: base64url of user, time and entry id
            "evt_dXNlckBleGFtcGxlLmNvbXwyMDI2LTExLTMwVDEwOjAwOjAwLjEyM1p8MDAwMDAwMDAwMDAxNjhhZDYyYzc4Y2JjOTIxMg",
            "evt_AZTcAAAAAAAAAAAAAAAAAAAAAAAAA#", "evt_AZTcAAAAAAAAAAAAAAAAAAAAAAAAAAA"})
    void anythingElseIsRefusedNamingEventId(String forged) {
        assertThatThrownBy(() -> EventIds.parse(forged)).isInstanceOfSatisfying(InvalidInputException.class,
                e -> assertThat(e.field()).isEqualTo("eventId"));
    }

    @Test
    void anIdWhoseTimeNoEntryCanHaveIsRefused() {
        String beyond = "evt_" + Base64.getUrlEncoder().withoutPadding().encodeToString(new byte[] {
                (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF, (byte) 0xFF,
                0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0});

        assertThatThrownBy(() -> EventIds.parse(beyond)).isInstanceOfSatisfying(InvalidInputException.class,
                e -> assertThat(e.field()).isEqualTo("eventId"));
    }

    private static String base64(String text) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.UTF_8));
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
