package dev.verificationservice.client;

import java.util.Objects;
import java.util.Optional;

/**
 * A code as the person presented it, for {@code check} and {@code verify}. A NUMERIC code is only ever tested
 * together with its user and code type; a LINK code needs neither (given, they must match).
 *
 * @param code     the code as typed, or taken from the link
 * @param userId   the user it was sent to (required for a NUMERIC code)
 * @param codeType what it was sent for (required for a NUMERIC code)
 * @param client   the person's request, for the audit log
 */
public record PresentedCode(String code, Optional<String> userId, Optional<CodeType> codeType, ClientContext client) {

    public PresentedCode {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(userId, "userId");
        Objects.requireNonNull(codeType, "codeType");
        Objects.requireNonNull(client, "client");
    }

    /** A NUMERIC code, typed by the person, with the user and type it was sent for. */
    public static PresentedCode numeric(String code, String userId, CodeType codeType) {
        return new PresentedCode(code, Optional.of(userId), Optional.of(codeType), ClientContext.none());
    }

    /** A LINK code, verified by the code alone. */
    public static PresentedCode link(String code) {
        return new PresentedCode(code, Optional.empty(), Optional.empty(), ClientContext.none());
    }

    /**
     * A LINK code that must be of this type: a password-reset page passing {@code PASSWORD_RESET} can never
     * use up an email-verification link.
     */
    public static PresentedCode link(String code, CodeType codeType) {
        return new PresentedCode(code, Optional.empty(), Optional.of(codeType), ClientContext.none());
    }

    /** The same code with the person's request context. */
    public PresentedCode withClient(ClientContext client) {
        return new PresentedCode(code, userId, codeType, client);
    }

    /** Never shows the code. */
    @Override
    public String toString() {
        return "PresentedCode[code=<redacted>, userId=" + userId.orElse(null) + ", codeType=" + codeType.orElse(null)
                + "]";
    }
}
