package dev.verificationservice.client;

/**
 * What {@link DevicesClient#revokeAllWithPasskeys} revoked: the live device tokens and the passkeys (0 where the
 * service has passkeys off).
 */
public record RevokedCredentials(int devices, int passkeys) {
}
