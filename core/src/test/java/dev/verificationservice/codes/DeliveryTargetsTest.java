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
        assertThat(DeliveryTargets.normalize(DeliveryMethod.SMS, "+447700123456", Set.of("GB", "IE"), Set.of()))
                .isEqualTo("+447700123456");
        assertThatThrownBy(() -> DeliveryTargets.normalize(DeliveryMethod.SMS, "+33612345678", Set.of("GB", "IE"), Set.of()))
                .isInstanceOfSatisfying(InvalidInputException.class, e -> {
                    assertThat(e.field()).isEqualTo("deliveryTarget");
                    assertThat(e.getMessage()).contains("FR").contains("[GB, IE]");
                });
    }

    /** Mobile numbers of satellite and international networks, which belong to no country. */
    @ParameterizedTest
    @CsvSource({"+870301234567,870", "+881612345678,881", "+881712345678,881", "+8823421234,882"})
    void aNumberOfAnInternationalNetworkIsRefusedByDefaultNamingTheSettingThatAllowsIt(String number, int network) {
        assertThatThrownBy(() -> DeliveryTargets.validate(DeliveryMethod.SMS, number))
                .isInstanceOfSatisfying(InvalidInputException.class, e -> {
                    assertThat(e.field()).isEqualTo("deliveryTarget");
                    assertThat(e.getMessage()).contains("international network +" + network)
                            .contains("VERIFICATION_LIMITS_SMS_NON_GEOGRAPHIC=" + network);
                });
        // Refused with a country allowlist too: such a number is of no country.
        assertThatThrownBy(() -> DeliveryTargets.normalize(DeliveryMethod.SMS, number, Set.of("GB"), Set.of()))
                .isInstanceOf(InvalidInputException.class);
    }

    @Test
    void anInternationalNetworkOptedInReceivesSmsAndOnlyThatOne() {
        assertThat(DeliveryTargets.normalize(DeliveryMethod.SMS, "+870301234567", Set.of(), Set.of(870)))
                .isEqualTo("+870301234567");
        // The opt-in is its own: a country allowlist does not take it away, and it opens no other network.
        assertThat(DeliveryTargets.normalize(DeliveryMethod.SMS, "+870301234567", Set.of("GB"), Set.of(870)))
                .isEqualTo("+870301234567");
        assertThatThrownBy(() -> DeliveryTargets.normalize(DeliveryMethod.SMS, "+881612345678", Set.of(), Set.of(870)))
                .isInstanceOfSatisfying(InvalidInputException.class,
                        e -> assertThat(e.getMessage()).contains("international network +881"));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "+979123456789|premium rate number of 001",            // international premium rate
            "+883510012345|voip number of 001",                   // an international VoIP network
            "+80012345678|toll free number of 001",
            "+449012345678|premium rate number of GB",
            "+33884012345|shared cost number of FR",
            "+4918012345|shared cost number of DE"})
    void premiumRateSharedCostAndOtherKindsStayRefusedEvenWithEveryNetworkOptedIn(String number, String why) {
        Set<Integer> everyNetwork = Set.of(800, 808, 870, 878, 881, 882, 883, 888, 979);
        assertThatThrownBy(() -> DeliveryTargets.normalize(DeliveryMethod.SMS, number, Set.of(), everyNetwork))
                .isInstanceOfSatisfying(InvalidInputException.class, e -> {
                    assertThat(e.field()).isEqualTo("deliveryTarget");
                    assertThat(e.getMessage()).contains(why);
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
