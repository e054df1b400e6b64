package dev.verificationservice.totp;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.zxing.BinaryBitmap;
import com.google.zxing.RGBLuminanceSource;
import com.google.zxing.common.HybridBinarizer;
import com.google.zxing.qrcode.QRCodeReader;
import java.awt.image.BufferedImage;
import java.io.ByteArrayInputStream;
import java.util.Base64;
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
        return new QRCodeReader().decode(bitmap).getText();
    }
}
