package dev.verificationservice.validation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class InputsTest {

    @ParameterizedTest
    @ValueSource(strings = {"203.0.113.9", "0.0.0.0", "255.255.255.255", "2001:db8::1", "::1", "::",
            "2001:0db8:0000:0000:0000:ff00:0042:8329", "::ffff:192.0.2.128", "fe80::1:2:3:4:5:6"})
    void acceptsIpAddresses(String address) {
        assertThat(Inputs.optionalIpAddress(address)).contains(address);
    }

    @ParameterizedTest
    @ValueSource(strings = {":", ":::", "1:2:3:4:5:6:7:8:9", "1::2::3", "256.1.1.1", "1.2.3", "01.2.3.4x", "2001:db8::g",
            "12345::1", "localhost", "1.2.3.4:80", "1:2:3:4:5:6:7"})
    void refusesWhatIsNotAnIpAddress(String address) {
        assertThatThrownBy(() -> Inputs.optionalIpAddress(address))
                .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("ipAddress"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"tab\there", "nul\u0000", "lone \ud800 surrogate"})
    void refusesTextThatIsNotPrintableUnicode(String text) {
        assertThatThrownBy(() -> Inputs.optionalText("userAgent", text, 100))
                .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("userAgent"));
    }
}
