package dev.verificationservice.delivery.messages;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.delivery.messages.SmsSegments.Encoding;
import org.junit.jupiter.api.Test;

/** Segment counting by the rules of 3GPP TS 23.038 / 23.040, and the accents taken off for GSM-7. */
class SmsSegmentsTest {

    @Test
    void gsm7TakesOneHundredSixtyCharactersInOneSegmentAndOneHundredFiftyThreePerPart() {
        assertThat(SmsSegments.of("a".repeat(160))).isEqualTo(new SmsSegments(Encoding.GSM_7, 160, 1));
        assertThat(SmsSegments.of("a".repeat(161))).isEqualTo(new SmsSegments(Encoding.GSM_7, 161, 2));
        assertThat(SmsSegments.of("a".repeat(306)).segments()).isEqualTo(2);
        assertThat(SmsSegments.of("a".repeat(307)).segments()).isEqualTo(3);
        // The alphabet's own accented letters, Greek capitals and symbols stay GSM-7.
        assertThat(SmsSegments.of("Grüße, ñandú? é è à ÄÖÜß ΔΦΓΛΩΠΨΣΘΞ @£$¥ \n").encoding()).isEqualTo(Encoding.UCS_2);
        assertThat(SmsSegments.of("Grüße, ñ é è à ÄÖÜß ΔΦΓΛΩΠΨΣΘΞ @£$¥ \n").encoding()).isEqualTo(Encoding.GSM_7);
    }

    @Test
    void extensionCharactersCountTwo() {
        assertThat(SmsSegments.of("€")).isEqualTo(new SmsSegments(Encoding.GSM_7, 2, 1));
        assertThat(SmsSegments.of("{}[]~|^\\").units()).isEqualTo(16);
        assertThat(SmsSegments.of("€".repeat(80)).segments()).isEqualTo(1);
        assertThat(SmsSegments.of("€".repeat(80) + "a").segments()).isEqualTo(2);
    }

    @Test
    void anyOtherCharacterMakesTheWholeTextUcs2() {
        assertThat(SmsSegments.of("認証コード")).isEqualTo(new SmsSegments(Encoding.UCS_2, 5, 1));
        assertThat(SmsSegments.of("ó" + "a".repeat(69))).isEqualTo(new SmsSegments(Encoding.UCS_2, 70, 1));
        assertThat(SmsSegments.of("ó" + "a".repeat(70))).isEqualTo(new SmsSegments(Encoding.UCS_2, 71, 2));
        assertThat(SmsSegments.of("ó" + "a".repeat(133)).segments()).isEqualTo(2);
        assertThat(SmsSegments.of("ó" + "a".repeat(134)).segments()).isEqualTo(3);
        // An emoji is two UTF-16 units.
        assertThat(SmsSegments.of("\uD83D\uDE00").units()).isEqualTo(2);
    }

    @Test
    void accentsComeOffOnlyWhereTheAlphabetHasNoAccentedLetter() {
        assertThat(SmsSegments.toGsm7("Twój kod weryfikacyjny, hasło, ważny")).contains("Twoj kod weryfikacyjny, haslo, wazny");
        assertThat(SmsSegments.toGsm7("Şifrenizi sıfırlayın, doğrulama, İstanbul")).contains("Sifrenizi sifirlayin, dogrulama, Istanbul");
        assertThat(SmsSegments.toGsm7("código, número, não, ação, é, à, ü, ñ")).contains("codigo, numero, nao, acao, é, à, ü, ñ");
        assertThat(SmsSegments.toGsm7("«Ça va» – l’été…")).contains("\"Ça va\" - l'été...");
        assertThat(SmsSegments.toGsm7("認証コード")).isEmpty();
        assertThat(SmsSegments.toGsm7("\uD83D\uDE00")).isEmpty();
    }
}
