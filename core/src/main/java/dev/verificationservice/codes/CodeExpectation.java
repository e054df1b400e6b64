package dev.verificationservice.codes;

import java.util.Optional;

/**
 * What the caller of a verification claims about the code, written into the consume condition so that a
 * code can only be used up by the flow it was issued for: a password-reset endpoint that passes
 * {@code PASSWORD_RESET} never consumes an email-verification link.
 */
public record CodeExpectation(Optional<String> userId, Optional<CodeType> codeType) {

    public static CodeExpectation none() {
        return new CodeExpectation(Optional.empty(), Optional.empty());
    }

    /**
     * Whether the code is one this caller may use. A type the HTTP API never names ({@link CodeType#publicApi()}
     * false: a login link) is reached only by a caller that names it, so a verification that names no type (the
     * HTTP API's LINK verify) can neither log anyone in nor use a person's login link up.
     */
    public boolean matches(VerificationCode code) {
        return userId.map(code.userId()::equals).orElse(true)
                && codeType.map(type -> type == code.codeType()).orElse(code.codeType().publicApi());
    }
}
