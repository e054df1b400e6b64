package dev.verificationservice.codes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.verificationservice.validation.InvalidInputException;
import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class DeliveryTargetsTest {

    @Test
    void masksEmailAndPhoneAsTheSpecShows() {
        assertThat(DeliveryTargets.mask(DeliveryMethod.EMAIL, "jane.doe@example.com")).isEqualTo("j***@example.com");
        assertThat(DeliveryTargets.mask(DeliveryMethod.SMS, "+441234561234")).isEqualTo("+44******1234");
        assertThat(DeliveryTargets.mask(DeliveryMethod.SMS, "+12345678")).isEqualTo("+12****78");
        assertThat(DeliveryTargets.mask(DeliveryMethod.SMS, "+15551234567")).isEqualTo("+15*******67");
    }

    @ParameterizedTest
    @ValueSource(strings = {"a@b.io", "first.last+tag@sub.example.co.uk", "o'brien@example.com"})
    void acceptsEmailAddresses(String address) {
        assertThat(DeliveryTargets.validate(DeliveryMethod.EMAIL, address)).isEqualTo(address);
    }

    @ParameterizedTest
    @ValueSource(strings = {"plain", "a@b", "a@@b.io", "a b@c.io", ".a@b.io", "a@b.io\r\nBcc: x@y.io", "a@-b.io"})
    void refusesWhatIsNotAnEmailAddress(String address) {
        assertThatThrownBy(() -> DeliveryTargets.validate(DeliveryMethod.EMAIL, address))
                .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("deliveryTarget"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"+12345678", "+441234561234", "+123456789012345"})
    void acceptsE164Numbers(String number) {
        assertThat(DeliveryTargets.validate(DeliveryMethod.SMS, number)).isEqualTo(number);
    }

    @ParameterizedTest
    @ValueSource(strings = {"441234561234", "+1234567", "+1234567890123456", "+0123456789", "+44 1234 561234", ""})
    void refusesWhatIsNotE164(String number) {
        assertThatThrownBy(() -> DeliveryTargets.validate(DeliveryMethod.SMS, number))
                .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("deliveryTarget"));
    }

    @Test
    void anOutgoingCodePrintsNeitherCodeNorTarget() {
        OutgoingCode message = new OutgoingCode("u1", CodeType.EMAIL_VERIFICATION, CodeFormat.NUMERIC,
                DeliveryMethod.EMAIL, "jane@example.com", "j***@example.com", "482913", Instant.EPOCH);
        assertThat(message.toString()).doesNotContain("482913", "jane@example.com").contains("<redacted>");
    }

    @Test
    void everyCodeTypeAllowsOnlyItsDeliveryMethods() {
        assertThat(CodeType.EMAIL_VERIFICATION.allows(DeliveryMethod.SMS)).isFalse();
        assertThat(CodeType.PHONE_VERIFICATION.allows(DeliveryMethod.EMAIL)).isFalse();
        assertThat(CodeType.PASSWORD_RESET.deliveryMethods()).containsExactlyInAnyOrder(DeliveryMethod.EMAIL, DeliveryMethod.SMS);
    }
}
