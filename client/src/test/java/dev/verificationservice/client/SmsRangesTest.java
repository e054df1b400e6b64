package dev.verificationservice.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** The SMS range operator calls through the client, against the real server. */
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
}
