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

    /** An IPv4 dotted quad or an IPv6 literal (hex groups, colons, an embedded IPv4 tail). */
    private static final Pattern IP_ADDRESS =
            Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*");

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

    /** Free text the caller may leave out: printable, without control characters, at most {@code max} long. */
    public static Optional<String> optionalText(String field, String value, int max) {
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

    public static Optional<String> optionalIpAddress(String value) {
        if (value == null || value.isEmpty()) {
            return Optional.empty();
        }
        if (value.length() > MAX_IP_ADDRESS_LENGTH || !IP_ADDRESS.matcher(value).matches()) {
            throw new InvalidInputException("ipAddress", "must be an IPv4 or IPv6 address");
        }
        return Optional.of(value);
    }
}
