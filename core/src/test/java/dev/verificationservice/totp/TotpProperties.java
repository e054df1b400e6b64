package dev.verificationservice.totp;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import net.jqwik.api.constraints.Size;

/**
 * Beyond the RFCs' few vectors: for any secret and any time, an app that reads the enrolment URI (the test's own
 * implementation of the RFCs) shows the code the service computes.
 */
class TotpProperties {

    @Property(tries = 300)
    void anAppReadingTheUriShowsTheCodeTheServiceComputes(@ForAll @Size(20) byte[] secret,
                                                          @ForAll @LongRange(max = 1L << 34) long epochSecond) {
        Instant instant = Instant.ofEpochSecond(epochSecond);
        String uri = OtpAuthUri.of("Acme", "ada", TotpSecrets.base32(secret), TotpAlgorithm.SHA1, 6,
                Duration.ofSeconds(30));

        assertThat(Authenticator.scan(uri).codeAt(instant))
                .isEqualTo(Totp.code(secret, Totp.step(instant, Duration.ofSeconds(30)), TotpAlgorithm.SHA1, 6));
    }
}
