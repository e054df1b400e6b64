package dev.verificationservice.client;

/** What a code is for. {@code EMAIL_VERIFICATION} goes by EMAIL, {@code PHONE_VERIFICATION} by SMS, a reset by either. */
public enum CodeType {
    EMAIL_VERIFICATION,
    PHONE_VERIFICATION,
    PASSWORD_RESET
}
