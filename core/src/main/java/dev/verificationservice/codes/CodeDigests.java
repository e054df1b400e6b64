package dev.verificationservice.codes;

import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.security.SecureTokens;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * What goes into a code's HMAC. A NUMERIC code's digest covers its userId and codeType as well, so equal
 * codes of two users never collide and a guess only ever tests one user's code of one type. A LINK code's
 * digest covers the code alone: it is verified without knowing the user.
 *
 * <p>Public for {@link #storedDigest} only: the one way to the digest a code is stored under.
 */
public final class CodeDigests {

    private static final Pattern NUMERIC = Pattern.compile("[0-9]{" + CodeFormat.MIN_NUMERIC_LENGTH + ","
            + CodeFormat.MAX_NUMERIC_LENGTH + "}");
    private static final Pattern LINK = Pattern.compile("[A-Za-z0-9_-]{" + SecureTokens.RANDOM_TOKEN_LENGTH + "}");

    private CodeDigests() {
    }

    /**
     * The digest a code is stored under when it is issued now: the HMAC, under the current key, of its input as
     * above. For what writes codes it knows the clear text of without sending them (an import from another
     * system, the benchmarks filling a table); it reveals nothing a holder of {@code keys} could not compute.
     * Issuing stores every code under it, so a code written under it verifies as an issued one does.
     */
    public static String storedDigest(SecretKeyRing keys, CodeFormat format, String userId, CodeType codeType,
            String code, Optional<String> context) {
        return keys.currentDigest(input(format, userId, codeType, code, context));
    }

    static String input(CodeFormat format, String userId, CodeType codeType, String code) {
        return switch (format) {
            case NUMERIC -> "NUMERIC|" + userId + "|" + codeType.name() + "|" + code;
            case LINK -> "LINK|" + code;
        };
    }

    /**
     * With a context, a NUMERIC code's digest covers it too (after the code, as the input's tail, so no two
     * inputs run together): the same six digits approve only what they were sent for. A LINK code's digest
     * stays the code alone (it is found by the code); its context is checked by the consume condition.
     */
    static String input(CodeFormat format, String userId, CodeType codeType, String code, Optional<String> context) {
        String base = input(format, userId, codeType, code);
        return format == CodeFormat.NUMERIC && context.isPresent() ? base + "|CONTEXT|" + context.get() : base;
    }

    /** What a context's HMAC is computed from (stored as {@code contextDigest}, never the text). */
    static String contextInput(String context) {
        return "CONTEXT|" + context;
    }

    /** The format a presented code has, by its shape; empty when it has the shape of neither. */
    static Optional<CodeFormat> formatOf(String code) {
        if (NUMERIC.matcher(code).matches()) {
            return Optional.of(CodeFormat.NUMERIC);
        }
        if (LINK.matcher(code).matches()) {
            return Optional.of(CodeFormat.LINK);
        }
        return Optional.empty();
    }
}
