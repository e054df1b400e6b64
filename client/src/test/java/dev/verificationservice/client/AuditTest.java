package dev.verificationservice.client;

import static dev.verificationservice.client.TestServer.newUser;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The audit log through the client: one page, every page, every entry, a range. */
class AuditTest {

    private final TestServer server = TestServer.shared();
    private final VerificationClient client = server.client();

    @BeforeEach
    void resetClock() {
        server.clock().set(TestServer.START);
    }

    /** Five DEVICE_ADDED entries a minute apart: device-0 at START ... device-4 at START + 4 minutes. */
    private String userWithFiveEntries() {
        String user = newUser();
        for (int i = 0; i < 5; i++) {
            client.devices().register(DeviceRegistration.builder(user, "device-" + i, "WEB")
                    .client(ClientContext.of("192.0.2." + (i + 1), "agent-" + i)).build());
            server.clock().advance(Duration.ofMinutes(1));
        }
        return user;
    }

    @Test
    void onePageIsTheNewestEntriesWithACursorWhenMoreExist() {
        String user = userWithFiveEntries();

        AuditPage first = client.audit().page(AuditQuery.builder(user).pageSize(2).build());

        assertThat(first.events()).hasSize(2);
        assertThat(first.hasMore()).isTrue();
        AuditEvent newest = first.events().get(0);
        assertThat(newest.eventType()).isEqualTo("DEVICE_ADDED");
        assertThat(newest.success()).isTrue();
        assertThat(newest.timestamp()).isEqualTo(TestServer.START.plus(Duration.ofMinutes(4)));
        assertThat(newest.ipAddress()).contains("192.0.2.5");
        assertThat(newest.userAgent()).contains("agent-4");
        assertThat(newest.failureReason()).isEmpty();
        assertThat(newest.deviceId()).contains("device-4");
        assertThat(newest.details()).containsEntry("deviceType", "WEB").containsKey("tokenId");

        AuditPage second = client.audit().page(AuditQuery.builder(user).pageSize(2).build()
                .withCursor(first.nextCursor().orElseThrow()));
        assertThat(second.events().get(0).timestamp()).isEqualTo(TestServer.START.plus(Duration.ofMinutes(2)));
    }

    @Test
    void pagesFollowTheCursorToTheEnd() {
        String user = userWithFiveEntries();
        List<Integer> sizes = new ArrayList<>();
        for (AuditPage page : client.audit().pages(AuditQuery.builder(user).pageSize(2).build())) {
            sizes.add(page.events().size());
        }
        assertThat(sizes).containsExactly(2, 2, 1);
    }

    @Test
    void eventsRunAcrossPagesNewestFirstAndOnlyAsFarAsRead() {
        String user = userWithFiveEntries();
        List<Instant> times = client.audit().events(AuditQuery.builder(user).pageSize(2).build())
                .map(AuditEvent::timestamp).toList();
        assertThat(times).hasSize(5).isSortedAccordingTo((a, b) -> b.compareTo(a));
        assertThat(client.audit().events(AuditQuery.builder(user).pageSize(2).build()).limit(3).count()).isEqualTo(3);
    }

    @Test
    void aRangeSelectsItsEntries() {
        String user = userWithFiveEntries();
        List<AuditEvent> middle = client.audit().events(AuditQuery.builder(user)
                .from(TestServer.START.plus(Duration.ofMinutes(1))).to(TestServer.START.plus(Duration.ofMinutes(3)))
                .build()).toList();
        assertThat(middle).extracting(event -> event.deviceId().orElseThrow())
                .containsExactly("device-3", "device-2", "device-1");
    }

    @Test
    void aBadCursorOrPageSizeNamesTheField() {
        String user = newUser();
        assertThatThrownBy(() -> client.audit().page(AuditQuery.builder(user).cursor("not-a-cursor").build()))
                .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("cursor"));
        assertThatThrownBy(() -> client.audit().page(AuditQuery.builder(user).pageSize(101).build()))
                .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("limit"));
    }
}
