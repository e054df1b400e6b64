package dev.verificationservice.spring.security;

/**
 * A registration the store refused or a response that failed a check: the starter answers it with 400 and a
 * problem document naming the field, where Spring Security's registration filter would let it become a 500.
 */
public final class PasskeyRefused extends RuntimeException {

    private final String field;

    public PasskeyRefused(String field, String detail) {
        super(field + " " + detail);
        this.field = field;
    }

    public String field() {
        return field;
    }
}
