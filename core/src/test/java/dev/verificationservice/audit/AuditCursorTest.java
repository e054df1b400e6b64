package dev.verificationservice.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.verificationservice.audit.AuditRepository.AuditPosition;
import dev.verificationservice.validation.InvalidInputException;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class AuditCursorTest {

    @Test
    void aCursorReadsBackToItsPositionAndIsUrlSafe() {
        AuditPosition position = new AuditPosition(Instant.parse("2026-11-30T10:00:00.123Z"), "00000000002a0f1e2d3c4b5a6978");
        String cursor = AuditCursor.encode(position);

        assertThat(cursor).matches("[A-Za-z0-9_-]+");
        assertThat(AuditCursor.decode(cursor)).isEqualTo(position);
    }

    @Test
    void aForgedCursorIsRefusedNamingTheField() {
        // Not base64; "AUDIT#"; "USER#bob"; a store sort key instead of a cursor; an entry id holding a key
        // separator; no entry id; a month 13.
        for (String forged : new String[] {"%%%", "QVVESVQj", "VVNFUiNib2I", "QVVESVQjMjAyNi0xMS0zMFQxMDowMDowMC4wMDBaI2EjYg",
                "MjAyNi0xMS0zMFQxMDowMDowMC4wMDBafGEjYg", "MjAyNi0xMS0zMFQxMDowMDowMC4wMDBa", "MjAyNi0xMy0zMFQxMDowMDowMC4wMDBafDBh"}) {
            assertThatThrownBy(() -> AuditCursor.decode(forged)).isInstanceOfSatisfying(InvalidInputException.class,
                    e -> assertThat(e.field()).isEqualTo("cursor"));
        }
    }
}
