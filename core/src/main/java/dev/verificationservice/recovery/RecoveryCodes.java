package dev.verificationservice.recovery;

import dev.verificationservice.validation.InvalidInputException;
import java.security.SecureRandom;
import java.util.Locale;
import java.util.regex.Pattern;

/**
 * What a recovery code looks like: {@value #GROUPS} groups of {@value #GROUP_LENGTH} characters joined by a hyphen
 * ({@code 7kq2m-x9fhc}), from an alphabet a person can read aloud and type back: the digits 2 to 9 and the letters
 * without i, l and o (so no 0/O, 1/l/I to confuse). 31 symbols, 10 of them: about 49 bits per code, drawn from
 * {@link SecureRandom}. What a person types is normalised first: case, spaces and hyphens do not matter.
 */
public final class RecoveryCodes {

    /** How many codes a set holds. */
    public static final int SET_SIZE = 10;
    static final String ALPHABET = "23456789abcdefghjkmnpqrstuvwxyz";
    static final int GROUPS = 2;
    static final int GROUP_LENGTH = 5;
    private static final Pattern NORMALISED = Pattern.compile("[" + ALPHABET + "]{" + GROUPS * GROUP_LENGTH + "}");
    /** Separators a person may type or paste between the groups, or anywhere: spaces and hyphens of every kind. */
    private static final Pattern SEPARATORS = Pattern.compile("[\\s\\u00a0\\u2010-\\u2015\\u2212-]+");

    private final SecureRandom random;

    public RecoveryCodes(SecureRandom random) {
        this.random = random;
    }

    /** A new code as it is shown: lower case, in groups. */
    public String newCode() {
        StringBuilder code = new StringBuilder(GROUPS * (GROUP_LENGTH + 1));
        for (int group = 0; group < GROUPS; group++) {
            if (group > 0) {
                code.append('-');
            }
            for (int i = 0; i < GROUP_LENGTH; i++) {
                code.append(ALPHABET.charAt(random.nextInt(ALPHABET.length())));
            }
        }
        return code.toString();
    }

    /**
     * The code a person typed, as it is digested: without separators, lower case. Refuses (as bad input, not as a
     * wrong guess) what cannot be a recovery code at all.
     */
    public static String normalise(String typed) {
        String code = SEPARATORS.matcher(typed).replaceAll("").toLowerCase(Locale.ROOT);
        if (!NORMALISED.matcher(code).matches()) {
            throw new InvalidInputException("code", "must be a recovery code: " + GROUPS * GROUP_LENGTH
                    + " characters of " + ALPHABET + " (spaces, hyphens and case do not matter)");
        }
        return code;
    }

    /** What a code's HMAC is computed from: the user is in it, so equal codes of two users never collide. */
    static String digestInput(String userId, String normalisedCode) {
        return "RECOVERY|" + userId + "|" + normalisedCode;
    }
}
