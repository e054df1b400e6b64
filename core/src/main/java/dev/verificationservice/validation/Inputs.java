package dev.verificationservice.validation;

import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Checks for every value that reaches a key or an attribute of the table. Identifiers end up inside key
 * strings such as {@code USER#<userId>}, so a {@code #} (or anything outside a small alphabet) could forge
 * another item's key; they are refused here, before anything is written.
 */
public final class Inputs {

    /** 1 to 128 characters of {@code [A-Za-z0-9._@+:-]}: no {@code #}, so an id can never forge a key. */
    public static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z0-9._@+:-]{1,128}");

    /** Short type names chosen by the caller, such as a device type ({@code IOS}, {@code web-chrome}). */
    public static final Pattern TYPE_NAME = Pattern.compile("[A-Za-z0-9._-]{1,32}");

    public static final int MAX_USER_AGENT_LENGTH = 512;
    public static final int MAX_IP_ADDRESS_LENGTH = 45;
    public static final int MAX_DEVICE_NAME_LENGTH = 128;
    public static final int MAX_PUSH_TOKEN_LENGTH = 4096;

    private static final Pattern IPV4 = Pattern.compile("(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])"
            + "(\\.(25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])){3}");
    private static final Pattern HEX_GROUP = Pattern.compile("[0-9A-Fa-f]{1,4}");

    private Inputs() {
    }

    public static String userId(String value) {
        return identifier("userId", value);
    }

    public static String deviceId(String value) {
        return identifier("deviceId", value);
    }

    /** An identifier that becomes part of a key; refused unless it matches {@link #IDENTIFIER}. */
    public static String identifier(String field, String value) {
        String present = required(field, value);
        if (!IDENTIFIER.matcher(present).matches()) {
            throw new InvalidInputException(field,
                    "must be 1 to 128 characters of letters, digits and . _ @ + : - (no '#', no spaces)");
        }
        return present;
    }

    public static String typeName(String field, String value) {
        String present = required(field, value);
        if (!TYPE_NAME.matcher(present).matches()) {
            throw new InvalidInputException(field, "must be 1 to 32 characters of letters, digits and . _ -");
        }
        return present;
    }

    public static String required(String field, String value) {
        if (value == null || value.isEmpty()) {
            throw new InvalidInputException(field, "is required");
        }
        return value;
    }

    public static <T> T required(String field, T value) {
        if (value == null) {
            throw new InvalidInputException(field, "is required");
        }
        return value;
    }

    /**
     * Free text the caller may leave out and a person will read (a context, a device name): printable, without
     * control characters or hidden format characters ({@link #isHiddenFormat}), at most {@code max} long.
     */
    public static Optional<String> optionalText(String field, String value, int max) {
        Optional<String> text = optionalRecordedText(field, value, max);
        if (text.isPresent() && text.get().codePoints().anyMatch(Inputs::isHiddenFormat)) {
            throw new InvalidInputException(field, "must not contain invisible format characters such as the "
                    + "bidirectional overrides U+202A to U+202E, U+2066 to U+2069 or the zero width space U+200B: "
                    + "they make text read otherwise than it is");
        }
        return text;
    }

    /**
     * Free text the service only records, as a client reports it (the {@code userAgent}): like
     * {@link #optionalText} checked for length and control characters, but a hidden format character is not
     * refused (a person's browser sent it, not the caller): it is kept as a visible escape ({@link #visible}).
     */
    public static Optional<String> optionalRecordedText(String field, String value, int max) {
        if (value == null || value.isEmpty()) {
            return Optional.empty();
        }
        if (value.length() > max) {
            throw new InvalidInputException(field, "must be at most " + max + " characters");
        }
        for (int i = 0; i < value.length(); i++) {
            if (Character.isISOControl(value.charAt(i))) {
                throw new InvalidInputException(field, "must not contain control characters");
            }
        }
        // String.codePoints() yields a lone surrogate as itself: text that is not valid UTF-16.
        if (value.codePoints().anyMatch(codePoint -> Character.getType(codePoint) == Character.SURROGATE)) {
            throw new InvalidInputException(field, "must be valid Unicode text");
        }
        return Optional.of(value);
    }

    /**
     * Unicode format characters (category Cf) that hide in text shown to a person: the bidirectional controls
     * (U+202A to U+202E, U+2066 to U+2069, U+200E, U+200F, U+061C), which can make {@code Pay \u202e0.01 EUR}
     * read as something else, and invisible ones such as U+200B and U+FEFF. The joiners U+200C and U+200D stay
     * allowed: emoji sequences and Persian and Indic scripts need them, and they move no text.
     */
    public static boolean isHiddenFormat(int codePoint) {
        return Character.getType(codePoint) == Character.FORMAT && codePoint != 0x200C && codePoint != 0x200D;
    }

    /**
     * The text with every hidden format and control character shown as a visible escape ({@code <U+202E>}):
     * for text that is only recorded, and for showing values stored before they were checked.
     */
    public static String visible(String text) {
        StringBuilder shown = new StringBuilder(text.length());
        text.codePoints().forEach(codePoint -> {
            if (isHiddenFormat(codePoint) || Character.isISOControl(codePoint)) {
                shown.append(String.format("<U+%04X>", codePoint));
            } else {
                shown.appendCodePoint(codePoint);
            }
        });
        return shown.toString();
    }

    /**
     * An IPv6 literal: eight groups of 1 to 4 hex digits, or fewer with exactly one {@code ::}, the last two
     * groups optionally written as an IPv4 address. Parsed by hand: {@link java.net.InetAddress} would
     * resolve anything that is not a literal through DNS.
     */
    static boolean isIpv6(String value) {
        int doubleColon = value.indexOf("::");
        if (doubleColon != value.lastIndexOf("::") || value.contains(":::")) {
            return false;
        }
        String[] halves = doubleColon < 0 ? new String[] {value}
                : new String[] {value.substring(0, doubleColon), value.substring(doubleColon + 2)};
        int groups = 0;
        for (int half = 0; half < halves.length; half++) {
            if (halves[half].isEmpty()) {
                continue;
            }
            String[] parts = halves[half].split(":", -1);
            for (int i = 0; i < parts.length; i++) {
                boolean last = half == halves.length - 1 && i == parts.length - 1;
                if (last && IPV4.matcher(parts[i]).matches()) {
                    groups += 2;
                } else if (HEX_GROUP.matcher(parts[i]).matches()) {
                    groups += 1;
                } else {
                    return false;
                }
            }
        }
        return doubleColon < 0 ? groups == 8 : groups <= 7;
    }

    public static Optional<String> optionalIpAddress(String value) {
        if (value == null || value.isEmpty()) {
            return Optional.empty();
        }
        if (value.length() > MAX_IP_ADDRESS_LENGTH || !(IPV4.matcher(value).matches() || isIpv6(value))) {
            throw new InvalidInputException("ipAddress", "must be an IPv4 or IPv6 address");
        }
        return Optional.of(value);
    }
}
