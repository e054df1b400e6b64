package dev.verificationservice.totp;

import com.google.zxing.BarcodeFormat;
import com.google.zxing.EncodeHintType;
import com.google.zxing.WriterException;
import com.google.zxing.common.BitMatrix;
import com.google.zxing.qrcode.QRCodeWriter;
import com.google.zxing.qrcode.decoder.ErrorCorrectionLevel;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Base64;
import java.util.Map;
import javax.imageio.ImageIO;

/**
 * The enrolment QR code as a {@code data:image/png;base64,…} URI. ZXing's core draws the code; the JDK's
 * {@code javax.imageio} writes the PNG (ZXing's own image writer lives in its {@code javase} artifact, which would
 * bring a command-line parser into the core for one call). Works headless: no display is touched.
 */
public final class QrCodes {

    /** Pixels per side: large enough for a phone camera at arm's length, small as a data URI (about 1 KB). */
    static final int SIZE = 256;
    private static final int BLACK = 0x000000;
    private static final int WHITE = 0xFFFFFF;

    private QrCodes() {
    }

    public static String pngDataUri(String text) {
        BitMatrix matrix;
        try {
            // Level M survives a scuffed screen; the quiet zone of 4 modules is what the QR standard asks for.
            matrix = new QRCodeWriter().encode(text, BarcodeFormat.QR_CODE, SIZE, SIZE,
                    Map.of(EncodeHintType.ERROR_CORRECTION, ErrorCorrectionLevel.M, EncodeHintType.MARGIN, 4,
                            EncodeHintType.CHARACTER_SET, "UTF-8"));
        } catch (WriterException e) {
            throw new IllegalStateException("the enrolment URI does not fit a QR code", e);
        }
        BufferedImage image = new BufferedImage(matrix.getWidth(), matrix.getHeight(), BufferedImage.TYPE_BYTE_BINARY);
        for (int y = 0; y < matrix.getHeight(); y++) {
            for (int x = 0; x < matrix.getWidth(); x++) {
                image.setRGB(x, y, matrix.get(x, y) ? BLACK : WHITE);
            }
        }
        ByteArrayOutputStream png = new ByteArrayOutputStream();
        try {
            if (!ImageIO.write(image, "png", png)) {
                throw new IllegalStateException("this JVM has no PNG writer");
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return "data:image/png;base64," + Base64.getEncoder().encodeToString(png.toByteArray());
    }
}
