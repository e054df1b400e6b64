package dev.verificationservice.client;

/** An accepted sign-in: whose passkey it was. A refusal is a {@link ProblemException} ({@code PASSKEY_REFUSED}). */
public record PasskeySignIn(String userId, String credentialId) {
}
