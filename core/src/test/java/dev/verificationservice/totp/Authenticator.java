package dev.verificationservice.totp;

import java.net.URI;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import java.util.stream.Collectors;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.apache.commons.codec.binary.Base32;

/**
 * An authenticator app for the tests, written from RFC 6238 and RFC 4226 without the code under test: it reads the
 * otpauth URI as an app does (secret, algorithm, digits, period from the query) and shows the code for an instant.
 */
final class Authenticator {

    private final byte[] secret;
    private final String macName;
    private final int digits;
    private final long period;

    private Authenticator(byte[] secret, String macName, int digits, long period) {
        this.secret = secret;
        this.macName = macName;
        this.digits = digits;
        this.period = period;
    }

    static Authenticator scan(String otpauthUri) {
        URI uri = URI.create(otpauthUri);
        if (!"otpauth".equals(uri.getScheme()) || !"totp".equals(uri.getHost())) {
            throw new IllegalArgumentException("not a TOTP key URI: " + otpauthUri);
        }
        Map<String, String> query = Arrays.stream(uri.getRawQuery().split("&"))
                .map(pair -> pair.split("=", 2)).collect(Collectors.toMap(pair -> pair[0], pair -> pair[1]));
        return new Authenticator(new Base32().decode(query.get("secret")), "Hmac" + query.get("algorithm"),
                Integer.parseInt(query.get("digits")), Long.parseLong(query.get("period")));
    }

    /** The code the app shows at {@code instant}. */
    String codeAt(Instant instant) {
        try {
            Mac mac = Mac.getInstance(macName);
            mac.init(new SecretKeySpec(secret, macName));
            byte[] hash = mac.doFinal(ByteBuffer.allocate(8).putLong(instant.getEpochSecond() / period).array());
            int offset = hash[hash.length - 1] & 0xf;
            int truncated = ByteBuffer.wrap(hash, offset, 4).getInt() & 0x7fffffff;
            return String.format("%0" + digits + "d", truncated % (int) Math.pow(10, digits));
        } catch (java.security.GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
