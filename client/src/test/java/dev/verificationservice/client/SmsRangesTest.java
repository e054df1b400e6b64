package dev.verificationservice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** The SMS range and country operator calls through the client, against the real server. */
class SmsRangesTest {

    private final TestServer server = TestServer.shared();
    private final VerificationClient admin = server.adminClient();

    @Test
    void anOperatorAllowsARangeListsItAndRemovesTheAllow() {
        assertThat(admin.smsRanges().allow("+447488")).as("not allowed before").isFalse();
        assertThat(admin.smsRanges().allow("+447488")).as("a repeat").isTrue();

        SmsRanges listed = admin.smsRanges().list();
        assertThat(listed.allowed()).filteredOn(allowed -> allowed.range().equals("+447488")).singleElement()
                .satisfies(allowed -> {
                    assertThat(allowed.country()).isEqualTo("GB");
                    assertThat(allowed.operatorKeyId()).isNotBlank();
                });
        assertThat(listed.openBreakers()).noneMatch(open -> open.range().equals("+447488"));

        assertThat(admin.smsRanges().disallow("+447488")).isTrue();
        assertThat(admin.smsRanges().disallow("+447488")).as("a repeat").isFalse();
        assertThat(admin.smsRanges().list().allowed()).noneMatch(allowed -> allowed.range().equals("+447488"));
        assertThat(admin.smsRanges().liftBreaker("+447488")).as("never open").isFalse();
        assertThatThrownBy(() -> admin.smsRanges().allow("447488")).isInstanceOfSatisfying(
                InvalidInputException.class, refused -> assertThat(refused.field()).isEqualTo("prefix"));
    }

    @Test
    void anOperatorListsACountrysOpenBreakerAndLiftsIt() {
        server.openCountryBreaker(List.of("+33610345678", "+33611345678", "+33612345678", "+33613345678"));

        assertThat(admin.smsCountries().openBreakers()).filteredOn(open -> open.country().equals("FR"))
                .singleElement().satisfies(open -> {
                    assertThat(open.sent()).isEqualTo(4);
                    assertThat(open.verified()).isZero();
                    assertThat(open.conversion()).isZero();
                    assertThat(open.openedAt()).isEqualTo(server.clock().instant());
                    assertThat(open.openUntil()).isAfter(open.openedAt());
                });
        assertThat(admin.smsCountries().liftBreaker("FR")).isTrue();
        assertThat(admin.smsCountries().liftBreaker("FR")).as("a repeat").isFalse();
        assertThat(admin.smsCountries().openBreakers()).noneMatch(open -> open.country().equals("FR"));
        assertThatThrownBy(() -> admin.smsCountries().liftBreaker("fr")).isInstanceOfSatisfying(
                InvalidInputException.class, refused -> assertThat(refused.field()).isEqualTo("country"));
    }
}
