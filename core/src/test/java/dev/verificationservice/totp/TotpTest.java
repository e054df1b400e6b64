package dev.verificationservice.totp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

/** The RFCs' own test vectors. */
class TotpTest {

    /** RFC 6238 Appendix B: one seed per algorithm, the ASCII digits repeated to the hash's length. */
    private static byte[] seed(TotpAlgorithm algorithm) {
        String digits = switch (algorithm) {
            case SHA1 -> "12345678901234567890";
            case SHA256 -> "12345678901234567890123456789012";
            case SHA512 -> "1234567890123456789012345678901234567890123456789012345678901234";
        };
        return digits.getBytes(StandardCharsets.US_ASCII);
    }

    @ParameterizedTest(name = "RFC 6238 at {0} s with {2}")
    @CsvSource({
            "59, 0000000000000001, SHA1, 94287082",
            "59, 0000000000000001, SHA256, 46119246",
            "59, 0000000000000001, SHA512, 90693936",
            "1111111109, 00000000023523EC, SHA1, 07081804",
            "1111111109, 00000000023523EC, SHA256, 68084774",
            "1111111109, 00000000023523EC, SHA512, 25091201",
            "1111111111, 00000000023523ED, SHA1, 14050471",
            "1111111111, 00000000023523ED, SHA256, 67062674",
            "1111111111, 00000000023523ED, SHA512, 99943326",
            "1234567890, 000000000273EF07, SHA1, 89005924",
            "1234567890, 000000000273EF07, SHA256, 91819424",
            "1234567890, 000000000273EF07, SHA512, 93441116",
            "2000000000, 0000000003F940AA, SHA1, 69279037",
            "2000000000, 0000000003F940AA, SHA256, 90698825",
            "2000000000, 0000000003F940AA, SHA512, 38618901",
            "20000000000, 0000000027BC86AA, SHA1, 65353130",
            "20000000000, 0000000027BC86AA, SHA256, 77737706",
            "20000000000, 0000000027BC86AA, SHA512, 47863826"})
    void rfc6238AppendixB(long seconds, String stepHex, TotpAlgorithm algorithm, String expected) {
        long step = Totp.step(Instant.ofEpochSecond(seconds), Duration.ofSeconds(30));

        assertThat(step).isEqualTo(Long.parseLong(stepHex, 16));
        assertThat(Totp.code(seed(algorithm), step, algorithm, 8)).isEqualTo(expected);
    }

    @ParameterizedTest(name = "RFC 4226 count {0}")
    @CsvSource({"0, 755224", "1, 287082", "2, 359152", "3, 969429", "4, 338314", "5, 254676", "6, 287922",
            "7, 162583", "8, 399871", "9, 520489"})
    void rfc4226AppendixD(long count, String expected) {
        assertThat(Totp.hotp(seed(TotpAlgorithm.SHA1), count, TotpAlgorithm.SHA1, 6)).isEqualTo(expected);
    }

    @Test
    void stepsStartAtTheEpochAndLastOnePeriod() {
        Duration period = Totp.DEFAULT_PERIOD;
        assertThat(Totp.step(Instant.ofEpochSecond(0), period)).isZero();
        assertThat(Totp.step(Instant.ofEpochSecond(29), period)).isZero();
        assertThat(Totp.step(Instant.ofEpochSecond(30), period)).isOne();
    }

    @Test
    void refusesFewerThanSixOrMoreThanEightDigits() {
        assertThatThrownBy(() -> Totp.code(seed(TotpAlgorithm.SHA1), 1, TotpAlgorithm.SHA1, 5))
                .hasMessageContaining("6 to 8");
        assertThatThrownBy(() -> Totp.code(seed(TotpAlgorithm.SHA1), 1, TotpAlgorithm.SHA1, 9))
                .hasMessageContaining("6 to 8");
    }
}
