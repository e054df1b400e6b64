package dev.verificationservice.delivery.messages;

import java.text.Normalizer;
import java.util.Map;
import java.util.Optional;

/**
 * How many SMS segments a text needs (3GPP TS 23.038 and 23.040). A text made only of the GSM 7-bit default
 * alphabet is sent as GSM-7: 160 characters in one segment, 153 per segment when it is split; a character of the
 * alphabet's extension table ({@code ^ { } \ [ ~ ] | €}) takes two. Any other character makes the whole text
 * UCS-2: 70 UTF-16 units in one segment, 67 per segment when split (a character outside the Basic Multilingual
 * Plane, such as an emoji, takes two units).
 *
 * @param encoding the encoding the text needs
 * @param units    its length in that encoding's units (septets for GSM-7, UTF-16 units for UCS-2)
 * @param segments the segments it takes
 */
public record SmsSegments(Encoding encoding, int units, int segments) {

    /** The two encodings a text message is sent in. */
    public enum Encoding {
        GSM_7(160, 153), UCS_2(70, 67);

        private final int single;
        private final int perPart;

        Encoding(int single, int perPart) {
            this.single = single;
            this.perPart = perPart;
        }

        /** Units that fit one segment. */
        public int singleSegment() {
            return single;
        }

        /** The segments {@code units} take in this encoding. */
        public int segmentsFor(int units) {
            return units <= single ? 1 : (units + perPart - 1) / perPart;
        }
    }

    /** The GSM 7-bit default alphabet (basic table), except the escape to the extension table. */
    private static final String BASIC = "@£$¥èéùìòÇ\nØø\rÅåΔ_ΦΓΛΩΠΨΣΘΞÆæßÉ !\"#¤%&'()*+,-./0123456789:;<=>?"
            + "¡ABCDEFGHIJKLMNOPQRSTUVWXYZÄÖÑÜ§¿abcdefghijklmnopqrstuvwxyzäöñüà";
    /** The extension table: each takes an escape and itself, two septets. */
    private static final String EXTENSION = "\f^{}\\[~]|€";

    /**
     * Letters without a base letter in the alphabet (after accents are taken off), and the typographic marks
     * that have a plain counterpart: what providers' "smart encoding" replaces.
     */
    private static final Map<Character, String> PLAIN = Map.ofEntries(
            Map.entry('ł', "l"), Map.entry('Ł', "L"), Map.entry('ı', "i"), Map.entry('đ', "d"), Map.entry('Đ', "D"),
            Map.entry('ç', "c"), Map.entry('œ', "oe"), Map.entry('Œ', "OE"),
            Map.entry('\u2018', "'"), Map.entry('\u2019', "'"), Map.entry('\u201A', "'"),
            Map.entry('\u201C', "\""), Map.entry('\u201D', "\""), Map.entry('\u201E', "\""),
            Map.entry('«', "\""), Map.entry('»', "\""), Map.entry('\u2013', "-"), Map.entry('\u2014', "-"),
            Map.entry('\u2026', "..."), Map.entry('\u00A0', " "), Map.entry('\u202F', " "), Map.entry('\u2009', " "));

    /** The segments, encoding and length of {@code text}. */
    public static SmsSegments of(String text) {
        int septets = 0;
        for (int i = 0; i < text.length(); i++) {
            int width = gsm7Width(text.charAt(i));
            if (width == 0) {
                int units = text.length();
                return new SmsSegments(Encoding.UCS_2, units, Encoding.UCS_2.segmentsFor(units));
            }
            septets += width;
        }
        return new SmsSegments(Encoding.GSM_7, septets, Encoding.GSM_7.segmentsFor(septets));
    }

    /** Whether every character of {@code text} is in the GSM 7-bit alphabet (basic or extension table). */
    public static boolean isGsm7(String text) {
        return text.chars().allMatch(c -> gsm7Width((char) c) > 0);
    }

    /** Septets the character takes in GSM-7: 1 (basic table), 2 (extension table), 0 when it has none. */
    static int gsm7Width(char c) {
        if (BASIC.indexOf(c) >= 0) {
            return 1;
        }
        return EXTENSION.indexOf(c) >= 0 ? 2 : 0;
    }

    /**
     * {@code text} in the GSM 7-bit alphabet, accents taken off the letters that have no accented form in it
     * ({@code ó → o}, {@code ł → l}, {@code ş → s}) and typographic quotes and dashes made plain; empty when a
     * character has no such counterpart (Japanese, Greek lower case, an emoji).
     */
    public static Optional<String> toGsm7(String text) {
        StringBuilder plain = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            char c = text.charAt(i);
            if (gsm7Width(c) > 0) {
                plain.append(c);
                continue;
            }
            String mapped = PLAIN.get(c);
            if (mapped == null) {
                String base = Normalizer.normalize(String.valueOf(c), Normalizer.Form.NFD).replaceAll("\\p{M}+", "");
                if (base.length() == 1 && gsm7Width(base.charAt(0)) > 0) {
                    mapped = base;
                }
            }
            if (mapped == null) {
                return Optional.empty();
            }
            plain.append(mapped);
        }
        return Optional.of(plain.toString());
    }
}
