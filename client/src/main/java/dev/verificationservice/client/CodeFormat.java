package dev.verificationservice.client;

/**
 * {@code NUMERIC}: digits a person types (6 by default, 6 to 10), verified together with its userId and code
 * type. {@code LINK}: 32 random bytes in a link, verified by the code alone. The service's default is NUMERIC for
 * the verification types and LINK for password resets.
 */
public enum CodeFormat {
    NUMERIC,
    LINK
}
