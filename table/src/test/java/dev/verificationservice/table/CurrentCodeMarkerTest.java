package dev.verificationservice.table;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.codes.CodeFormat;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.VerificationCode;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class CurrentCodeMarkerTest {

    private static final Instant SENT = Instant.parse("2026-12-01T10:00:00Z");

    /**
     * A 5-minute login link made current a moment after a 15-minute code: if the older code's delete failed, the
     * marker must still be there when the link expires, or TTL would let the older code be consumed again.
     */
    @Test
    void theMarkerOutlivesACodeItReplacedThatLivesLongerThanTheCodeItNames() {
        VerificationCode older = code("older", SENT, Duration.ofMinutes(15));
        VerificationCode link = code("link", SENT.plusSeconds(1), Duration.ofMinutes(5));

        long markerTtl = (Long) CodeItems.currentCodeItem(link).get(ItemAttributes.TTL);

        assertThat(markerTtl).isGreaterThan(older.expiresAt().getEpochSecond());
        assertThat(markerTtl).isEqualTo(link.expiresAt().plus(Duration.ofDays(1)).getEpochSecond());
    }

    private static VerificationCode code(String digest, Instant createdAt, Duration lifetime) {
        return new VerificationCode(digest, "ann", CodeType.EMAIL_VERIFICATION, CodeFormat.LINK, DeliveryMethod.EMAIL,
                "a***@example.com", false, createdAt, createdAt.plus(lifetime));
    }
}
