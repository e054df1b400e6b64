package dev.verificationservice.client;

import java.time.Instant;

/**
 * Registration or sign-in options: {@code json} is what the browser's {@code PublicKeyCredential
 * .parseCreationOptionsFromJSON} (or {@code parseRequestOptionsFromJSON}) takes, handed on as it is.
 */
public record PasskeyOptions(String json, String challenge, Instant expiresAt) {
}
