package dev.verificationservice.spring.security;

/**
 * A registration the store refused or a response that failed a check: the starter answers it with its status (400,
 * or 409 for a user at the cap) and a problem document naming the field, where Spring Security's registration
 * filter would let it become a 500.
 */
public final class PasskeyRefused extends RuntimeException {

    private final String field;
    private final int status;

    /** Bad input: answered 400. */
    public PasskeyRefused(String field, String detail) {
        this(400, field, detail);
    }

    /** A refusal answered with {@code status}: 409 for a user at the cap, as the HTTP API answers it. */
    public PasskeyRefused(int status, String field, String detail) {
        super(field + " " + detail);
        this.field = field;
        this.status = status;
    }

    public int status() {
        return status;
    }

    public String field() {
        return field;
    }
}
