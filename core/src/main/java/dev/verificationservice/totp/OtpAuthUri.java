package dev.verificationservice.totp;

import java.nio.charset.StandardCharsets;
import java.time.Duration;

/**
 * The Key Uri Format authenticator apps read ({@code otpauth://totp/<issuer>:<label>?secret=…&issuer=…&algorithm=SHA1
 * &digits=6&period=30}). Issuer and label are percent-encoded as RFC 3986 encodes a path segment or query value: a
 * space is {@code %20} (never {@code +}, which apps show as a plus), and the colon between them is the only literal
 * one (neither may hold one of its own, which {@link TotpService} refuses). The secret is base32 without padding.
 */
public final class OtpAuthUri {

    private OtpAuthUri() {
    }

    public static String of(String issuer, String label, String base32Secret, TotpAlgorithm algorithm, int digits,
                            Duration period) {
        String encodedIssuer = percentEncode(issuer);
        return "otpauth://totp/" + encodedIssuer + ":" + percentEncode(label)
                + "?secret=" + base32Secret
                + "&issuer=" + encodedIssuer
                + "&algorithm=" + algorithm.name()
                + "&digits=" + digits
                + "&period=" + period.getSeconds();
    }

    /** RFC 3986: every octet of the UTF-8 form but the unreserved characters is written as {@code %XX}. */
    static String percentEncode(String text) {
        StringBuilder encoded = new StringBuilder();
        for (byte b : text.getBytes(StandardCharsets.UTF_8)) {
            int c = b & 0xff;
            if (c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.'
                    || c == '_' || c == '~') {
                encoded.append((char) c);
            } else {
                encoded.append('%').append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
                        .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
            }
        }
        return encoded.toString();
    }
}
