package dev.verificationservice.validation;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;
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

    /** Every bidi control and the invisible format characters; the red team's U+202E first. */
    @ParameterizedTest
    @ValueSource(ints = {0x202E, 0x202A, 0x202B, 0x202C, 0x202D, 0x2066, 0x2067, 0x2068, 0x2069, 0x200E, 0x200F,
            0x061C, 0x200B, 0xFEFF, 0x00AD, 0x2060, 0xE0041})
    void refusesHiddenFormatCharactersInTextAPersonReads(int codePoint) {
        String text = "Pay " + Character.toString(codePoint) + "0.01 EUR";
        assertThatThrownBy(() -> Inputs.optionalText("context", text, 200))
                .isInstanceOfSatisfying(InvalidInputException.class, e -> {
                    assertThat(e.field()).isEqualTo("context");
                    assertThat(e.reason()).contains("invisible format characters");
                });
        assertThat(Inputs.optionalRecordedText("userAgent", text, 200)).contains(text);
        assertThat(Inputs.visible(text)).isEqualTo(String.format("Pay <U+%04X>0.01 EUR", codePoint));
    }

    @Test
    void keepsTheJoinersThatEmojiAndScriptsNeed() {
        String family = "\ud83d\udc68\u200d\ud83d\udc69\u200d\ud83d\udc67 and \u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645";
        assertThat(Inputs.optionalText("deviceName", family, 100)).contains(family);
        assertThat(Inputs.visible(family)).isEqualTo(family);
    }

    @Test
    void showsControlCharactersOfStoredTextAsEscapesToo() {
        assertThat(Inputs.visible("a\u0000b\nc")).isEqualTo("a<U+0000>b<U+000A>c");
    }
}
