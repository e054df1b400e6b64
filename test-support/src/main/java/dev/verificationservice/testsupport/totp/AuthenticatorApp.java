package dev.verificationservice.testsupport.totp;

import com.google.zxing.BinaryBitmap;
import com.google.zxing.DecodeHintType;
import com.google.zxing.RGBLuminanceSource;
import com.google.zxing.common.HybridBinarizer;
import com.google.zxing.qrcode.QRCodeReader;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.time.Instant;
import java.util.Base64;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import javax.imageio.ImageIO;

/**
 * An authenticator app, as the tests need one: it takes an {@code otpauth://totp/...} URI (typed, opened as a link
 * or scanned from the QR code's PNG) and shows the code for an instant. Written here from RFC 6238 and RFC 4226
 * (and RFC 4648 for base32), sharing nothing with the service's own implementation, so that a test which enrols
 * this app proves that a real app, which knows nothing of the service, gets codes the service accepts.
 */
public final class AuthenticatorApp {

    private static final String BASE32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
    private static final String PNG_DATA_URI = "data:image/png;base64,";

    private final byte[] key;
    private final String algorithm;
    private final int digits;
    private final long periodSeconds;
    private final String issuer;
    private final String label;

    private AuthenticatorApp(byte[] key, String algorithm, int digits, long periodSeconds, String issuer,
                             String label) {
        this.key = key;
        this.algorithm = algorithm;
        this.digits = digits;
        this.periodSeconds = periodSeconds;
        this.issuer = issuer;
        this.label = label;
    }

    /** The app after opening an otpauth URI (Google's Key URI Format: the parameters every app reads). */
    public static AuthenticatorApp fromUri(String otpauthUri) {
        URI uri = URI.create(otpauthUri);
        if (!"otpauth".equals(uri.getScheme()) || !"totp".equals(uri.getHost())) {
            throw new IllegalArgumentException("not an otpauth://totp URI: " + otpauthUri);
        }
        Map<String, String> query = new LinkedHashMap<>();
        for (String pair : uri.getRawQuery().split("&")) {
            int equals = pair.indexOf('=');
            query.put(pair.substring(0, equals), URLDecoder.decode(pair.substring(equals + 1), StandardCharsets.UTF_8));
        }
        String path = URLDecoder.decode(uri.getRawPath().substring(1), StandardCharsets.UTF_8);
        int colon = path.indexOf(':');
        return new AuthenticatorApp(base32(query.get("secret")),
                "Hmac" + query.getOrDefault("algorithm", "SHA1").toUpperCase(Locale.ROOT),
                Integer.parseInt(query.getOrDefault("digits", "6")), Long.parseLong(query.getOrDefault("period", "30")),
                query.get("issuer"), colon < 0 ? path : path.substring(colon + 1));
    }

    /** The app after its camera read the QR code of a {@code data:image/png;base64,...} URI. */
    public static AuthenticatorApp scan(String qrCodeDataUri) {
        return fromUri(decodeQr(qrCodeDataUri));
    }

    /** What the QR code holds, read as a phone camera would: the PNG's pixels, then ZXing's reader. */
    public static String decodeQr(String qrCodeDataUri) {
        if (!qrCodeDataUri.startsWith(PNG_DATA_URI)) {
            throw new IllegalArgumentException("not a PNG data URI");
        }
        try {
            byte[] png = Base64.getDecoder().decode(qrCodeDataUri.substring(PNG_DATA_URI.length()));
            BufferedImage image = ImageIO.read(new ByteArrayInputStream(png));
            int[] pixels = image.getRGB(0, 0, image.getWidth(), image.getHeight(), null, 0, image.getWidth());
            BinaryBitmap bitmap = new BinaryBitmap(new HybridBinarizer(
                    new RGBLuminanceSource(image.getWidth(), image.getHeight(), pixels)));
            // A pure barcode (nothing else in the picture): read by its modules, as the core's test does; the
            // camera-frame detector misses a few synthetic images that a phone, seeing a photo, would not.
            return new QRCodeReader().decode(bitmap, Map.of(DecodeHintType.PURE_BARCODE, Boolean.TRUE)).getText();
        } catch (Exception e) {
            throw new IllegalStateException("the QR code does not scan", e);
        }
    }

    /** The code the app shows at {@code now}. */
    public String codeAt(Instant now) {
        return code(Math.floorDiv(now.getEpochSecond(), periodSeconds));
    }

    /** RFC 4226 §5.3 HOTP of the counter, as RFC 6238 uses it with T = floor(unix time / period). */
    public String code(long counter) {
        try {
            Mac mac = Mac.getInstance(algorithm);
            mac.init(new SecretKeySpec(key, algorithm));
            byte[] hash = mac.doFinal(ByteBuffer.allocate(Long.BYTES).putLong(counter).array());
            int offset = hash[hash.length - 1] & 0x0f;
            int binary = ((hash[offset] & 0x7f) << 24) | ((hash[offset + 1] & 0xff) << 16)
                    | ((hash[offset + 2] & 0xff) << 8) | (hash[offset + 3] & 0xff);
            int modulus = (int) Math.pow(10, digits);
            return String.format("%0" + digits + "d", binary % modulus);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    public String issuer() {
        return issuer;
    }

    public String label() {
        return label;
    }

    /** RFC 4648 §6 base32, case-insensitive, padding optional. */
    private static byte[] base32(String text) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        int buffer = 0;
        int bits = 0;
        for (char c : text.replace("=", "").toUpperCase(Locale.ROOT).toCharArray()) {
            int value = BASE32.indexOf(c);
            if (value < 0) {
                throw new IllegalArgumentException("not base32: " + c);
            }
            buffer = (buffer << 5) | value;
            bits += 5;
            if (bits >= 8) {
                out.write((buffer >> (bits - 8)) & 0xff);
                bits -= 8;
            }
        }
        return out.toByteArray();
    }
}
