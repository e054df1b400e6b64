package dev.verificationservice.console;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.devices.DeviceToken;
import dev.verificationservice.passkeys.PasskeySummary;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * Entries stored before hidden format characters were refused may still hold them: the console shows them as
 * escapes, so a bidi override cannot turn what support staff read around.
 */
class ConsoleViewsTest {

    private static final Instant NOW = Instant.parse("2026-11-30T10:00:00Z");

    @Test
    void anOldAuditEntryShowsItsBidiOverridesAsEscapes() {
        AuditEntry old = new AuditEntry("ivy", NOW, "e1", AuditEventType.DEVICE_ADDED,
                Map.of("deviceName", "Laptop \u202egnp.exe"), Optional.of("203.0.113.9"),
                Optional.of("Agent \u2067evil\u2069"), Optional.of("pc-1"), true, Optional.empty(), Optional.empty());

        ConsoleViews.EventRow row = ConsoleViews.EventRow.of(old);

        assertThat(row.details()).isEqualTo("deviceName=Laptop <U+202E>gnp.exe");
        assertThat(row.client()).isEqualTo("device pc-1 · 203.0.113.9 · Agent <U+2067>evil<U+2069>");
    }

    @Test
    void anOldDeviceNameShowsItsBidiOverridesAsEscapes() {
        DeviceToken old = new DeviceToken("pc-1", "t1", "ivy", "WEB", Optional.of("Laptop \u202egnp.exe"),
                Optional.empty(), NOW, Optional.empty(), Optional.empty(), NOW, NOW.plusSeconds(60));

        assertThat(ConsoleViews.DeviceRow.of(old).deviceName()).isEqualTo("Laptop <U+202E>gnp.exe");
    }

    @Test
    void aPasskeyRowShowsItsLabelEscapedWhereItIsKeptAndNeverItsKey() {
        PasskeySummary passkey = new PasskeySummary("cred-1", "Phone \u202egnp.exe", Set.of("internal"), true, true,
                "00000000-0000-0000-0000-000000000000", NOW, Optional.empty());

        ConsoleViews.PasskeyRow row = ConsoleViews.PasskeyRow.of(passkey);

        assertThat(row.label()).isEqualTo("Phone <U+202E>gnp.exe");
        assertThat(row.synced()).isEqualTo("synced");
        assertThat(row.lastUsedAt()).isEqualTo("never");
    }
}
