package dev.verificationservice.codes;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.verificationservice.validation.InvalidInputException;
import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;
import java.util.Set;
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
    @ValueSource(strings = {"+447700123456", "+4915112345678", "+33612345678", "+14155550100", "+819012345678"})
    void acceptsMobileNumbersOfTheirCountry(String number) {
        assertThat(DeliveryTargets.validate(DeliveryMethod.SMS, number)).isEqualTo(number);
    }

    @Test
    void anEmailAddressKeepsItsLocalPartAndGetsALowerCaseDomainAndCountsAsOneWhateverTheCase() {
        String normalized = DeliveryTargets.validate(DeliveryMethod.EMAIL, "Jane.Doe@Example.COM");
        assertThat(normalized).isEqualTo("Jane.Doe@example.com");
        assertThat(DeliveryTargets.countingKey(DeliveryMethod.EMAIL, normalized, Mailboxes.EVERY_DOMAIN))
                .isEqualTo(DeliveryTargets.countingKey(DeliveryMethod.EMAIL, "jane.doe@example.com", Mailboxes.EVERY_DOMAIN));
        // Dots are Gmail's rule only: on another domain they make other addresses.
        assertThat(DeliveryTargets.countingKey(DeliveryMethod.EMAIL, "janedoe@example.com", Mailboxes.EVERY_DOMAIN))
                .isNotEqualTo(DeliveryTargets.countingKey(DeliveryMethod.EMAIL, "jane.doe@example.com", Mailboxes.EVERY_DOMAIN));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "+447700900123|is not a valid phone number",           // Ofcom's range for drama: no real number
            "+442079460000|fixed line number of GB",               // a London landline
            "+19005550123|premium rate number of US",              // the toll-fraud target
            "+18005550199|toll free number of US",
            "+99912345678|the country code is unknown"})
    void refusesNumbersThatCannotReceiveAVerificationSmsAndSaysWhy(String number, String why) {
        assertThatThrownBy(() -> DeliveryTargets.validate(DeliveryMethod.SMS, number))
                .isInstanceOfSatisfying(InvalidInputException.class, e -> {
                    assertThat(e.field()).isEqualTo("deliveryTarget");
                    assertThat(e.getMessage()).contains(why);
                });
    }

    @Test
    void aCountryOutsideTheAllowListIsRefusedNamingTheAllowedOnes() {
        assertThat(DeliveryTargets.normalize(DeliveryMethod.SMS, "+447700123456", Set.of("GB", "IE")))
                .isEqualTo("+447700123456");
        assertThatThrownBy(() -> DeliveryTargets.normalize(DeliveryMethod.SMS, "+33612345678", Set.of("GB", "IE")))
                .isInstanceOfSatisfying(InvalidInputException.class, e -> {
                    assertThat(e.field()).isEqualTo("deliveryTarget");
                    assertThat(e.getMessage()).contains("FR").contains("[GB, IE]");
                });
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
