package dev.verificationservice.totp;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.HashSet;
import java.util.Set;
import org.apache.commons.codec.binary.Base32;
import org.junit.jupiter.api.Test;

class EnrolmentValuesTest {

    private final TotpSecrets secrets = new TotpSecrets(new SecureRandom());

    @Test
    void aSecretIs160RandomBitsInUnpaddedBase32() {
        Set<String> seen = new HashSet<>();
        for (int i = 0; i < 100; i++) {
            byte[] secret = secrets.newSecret();
            String encoded = TotpSecrets.base32(secret);
            assertThat(secret).hasSize(20);
            assertThat(encoded).matches("[A-Z2-7]{32}");
            assertThat(new Base32().decode(encoded)).isEqualTo(secret);
            seen.add(encoded);
        }
        assertThat(seen).hasSize(100);
    }

    @Test
    void theUriIsTheKeyUriFormatWithIssuerAndLabelPercentEncoded() {
        String uri = OtpAuthUri.of("Acme Corp", "ada@example.com", "JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP",
                TotpAlgorithm.SHA1, 6, Duration.ofSeconds(30));

        assertThat(uri).isEqualTo("otpauth://totp/Acme%20Corp:ada%40example.com?secret=JBSWY3DPEHPK3PXPJBSWY3DPEHPK3PXP"
                + "&issuer=Acme%20Corp&algorithm=SHA1&digits=6&period=30");
    }

    @Test
    void percentEncodingKeepsOnlyUnreservedCharactersAndEncodesUtf8() {
        assertThat(OtpAuthUri.percentEncode("a-b.c_d~e")).isEqualTo("a-b.c_d~e");
        assertThat(OtpAuthUri.percentEncode("a b+c&d=e?f/g#h%")).isEqualTo("a%20b%2Bc%26d%3De%3Ff%2Fg%23h%25");
        assertThat(OtpAuthUri.percentEncode("Zoë")).isEqualTo("Zo%C3%AB");
    }

    @Test
    void theQrCodeIsAPngThatDecodesBackToTheUri() throws Exception {
        String uri = OtpAuthUri.of("Acme Corp", "zoë@example.com", TotpSecrets.base32(secrets.newSecret()),
                TotpAlgorithm.SHA1, 6, Duration.ofSeconds(30));

        assertThat(QrScanner.scan(QrCodes.pngDataUri(uri))).isEqualTo(uri);
    }
}
