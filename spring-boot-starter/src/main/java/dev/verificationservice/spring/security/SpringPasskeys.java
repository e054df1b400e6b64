package dev.verificationservice.spring.security;

import com.webauthn4j.converter.util.JsonConverter;
import com.webauthn4j.converter.util.ObjectConverter;
import dev.verificationservice.passkeys.CredentialDescriptor;
import dev.verificationservice.passkeys.Passkey;
import dev.verificationservice.passkeys.PasskeyChallenge;
import dev.verificationservice.passkeys.PasskeyPolicy;
import java.time.Duration;
import java.time.Instant;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.springframework.security.web.webauthn.api.AttestationConveyancePreference;
import org.springframework.security.web.webauthn.api.AuthenticatorAssertionResponse;
import org.springframework.security.web.webauthn.api.AuthenticatorAttestationResponse;
import org.springframework.security.web.webauthn.api.AuthenticatorSelectionCriteria;
import org.springframework.security.web.webauthn.api.AuthenticatorTransport;
import org.springframework.security.web.webauthn.api.Bytes;
import org.springframework.security.web.webauthn.api.CredentialRecord;
import org.springframework.security.web.webauthn.api.ImmutableAuthenticationExtensionsClientInput;
import org.springframework.security.web.webauthn.api.ImmutableAuthenticationExtensionsClientInputs;
import org.springframework.security.web.webauthn.api.ImmutableCredentialRecord;
import org.springframework.security.web.webauthn.api.ImmutablePublicKeyCose;
import org.springframework.security.web.webauthn.api.ImmutablePublicKeyCredentialUserEntity;
import org.springframework.security.web.webauthn.api.PublicKeyCredential;
import org.springframework.security.web.webauthn.api.PublicKeyCredentialCreationOptions;
import org.springframework.security.web.webauthn.api.PublicKeyCredentialDescriptor;
import org.springframework.security.web.webauthn.api.PublicKeyCredentialParameters;
import org.springframework.security.web.webauthn.api.PublicKeyCredentialRequestOptions;
import org.springframework.security.web.webauthn.api.PublicKeyCredentialRpEntity;
import org.springframework.security.web.webauthn.api.PublicKeyCredentialType;
import org.springframework.security.web.webauthn.api.PublicKeyCredentialUserEntity;
import org.springframework.security.web.webauthn.api.ResidentKeyRequirement;
import org.springframework.security.web.webauthn.api.UserVerificationRequirement;

/**
 * The core's passkey values as Spring Security's WebAuthn types and back: the options a browser is given, a
 * stored passkey as a {@link CredentialRecord}, and a browser's response as the JSON of
 * {@code PublicKeyCredential.toJSON()} that {@link dev.verificationservice.passkeys.PasskeyService} verifies.
 */
final class SpringPasskeys {

    /** The core's algorithms (ES256, EdDSA, RS256), in its order. */
    private static final List<PublicKeyCredentialParameters> ALGORITHMS = List.of(PublicKeyCredentialParameters.ES256,
            PublicKeyCredentialParameters.EdDSA, PublicKeyCredentialParameters.RS256);

    private static final JsonConverter JSON = new ObjectConverter().getJsonConverter();

    private SpringPasskeys() {
    }

    static PublicKeyCredentialUserEntity user(String userHandle, String username) {
        return ImmutablePublicKeyCredentialUserEntity.builder().id(Bytes.fromBase64(userHandle)).name(username)
                .displayName(username).build();
    }

    static PublicKeyCredentialCreationOptions creationOptions(PasskeyPolicy policy, String challenge,
                                                              PublicKeyCredentialUserEntity user,
                                                              List<CredentialDescriptor> exclude, Duration timeout,
                                                              String userVerification) {
        return PublicKeyCredentialCreationOptions.builder()
                .rp(PublicKeyCredentialRpEntity.builder().id(policy.rpId()).name(policy.rpName()).build())
                .user(user).challenge(Bytes.fromBase64(challenge)).pubKeyCredParams(ALGORITHMS).timeout(timeout)
                .excludeCredentials(descriptors(exclude))
                .authenticatorSelection(AuthenticatorSelectionCriteria.builder()
                        .residentKey(ResidentKeyRequirement.PREFERRED)
                        .userVerification(userVerification(userVerification))
                        .build())
                .attestation(AttestationConveyancePreference.NONE)
                .extensions(new ImmutableAuthenticationExtensionsClientInputs(
                        ImmutableAuthenticationExtensionsClientInput.credProps))
                .build();
    }

    static PublicKeyCredentialRequestOptions requestOptions(PasskeyPolicy policy, String challenge,
                                                            List<CredentialDescriptor> allow, Duration timeout,
                                                            String userVerification) {
        return PublicKeyCredentialRequestOptions.builder().challenge(Bytes.fromBase64(challenge))
                .rpId(policy.rpId()).allowCredentials(descriptors(allow)).timeout(timeout)
                .userVerification(userVerification(userVerification)).build();
    }

    /** What is left of a stored challenge's lifetime at {@code now}: the timeout of options rebuilt from it. */
    static Duration timeLeft(PasskeyChallenge challenge, Instant now) {
        return Duration.between(now, challenge.expiresAt());
    }

    static CredentialRecord record(Passkey passkey) {
        return ImmutableCredentialRecord.builder().credentialType(PublicKeyCredentialType.PUBLIC_KEY)
                .credentialId(Bytes.fromBase64(passkey.credentialId()))
                .userEntityUserId(Bytes.fromBase64(passkey.userHandle()))
                .publicKey(new ImmutablePublicKeyCose(passkey.publicKey())).signatureCount(passkey.signCount())
                .uvInitialized(passkey.userVerified()).transports(transports(passkey.transports()))
                .backupEligible(passkey.backupEligible()).backupState(passkey.backedUp()).label(passkey.label())
                .created(passkey.createdAt()).lastUsed(passkey.lastUsedAt().orElse(passkey.createdAt())).build();
    }

    /** A registration response as {@code PublicKeyCredential.toJSON()} writes it. */
    static String json(PublicKeyCredential<AuthenticatorAttestationResponse> credential) {
        AuthenticatorAttestationResponse response = credential.getResponse();
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("clientDataJSON", base64(response.getClientDataJSON()));
        fields.put("attestationObject", base64(response.getAttestationObject()));
        fields.put("transports", response.getTransports() == null ? List.of()
                : response.getTransports().stream().map(AuthenticatorTransport::getValue).toList());
        return json(credential, fields);
    }

    /** A sign-in assertion as {@code PublicKeyCredential.toJSON()} writes it. */
    static String assertionJson(PublicKeyCredential<AuthenticatorAssertionResponse> credential) {
        AuthenticatorAssertionResponse response = credential.getResponse();
        Map<String, Object> fields = new LinkedHashMap<>();
        fields.put("clientDataJSON", base64(response.getClientDataJSON()));
        fields.put("authenticatorData", base64(response.getAuthenticatorData()));
        fields.put("signature", base64(response.getSignature()));
        if (response.getUserHandle() != null) {
            fields.put("userHandle", base64(response.getUserHandle()));
        }
        return json(credential, fields);
    }

    /** A JSON document of plain values (maps, lists, strings, numbers), written by webauthn4j's converter. */
    static String json(Map<String, ?> document) {
        return JSON.writeValueAsString(document);
    }

    private static String json(PublicKeyCredential<?> credential, Map<String, Object> response) {
        Map<String, Object> document = new LinkedHashMap<>();
        document.put("id", base64(credential.getRawId()));
        document.put("rawId", base64(credential.getRawId()));
        document.put("type", "public-key");
        document.put("response", response);
        if (credential.getAuthenticatorAttachment() != null) {
            document.put("authenticatorAttachment", credential.getAuthenticatorAttachment().getValue());
        }
        document.put("clientExtensionResults", Map.of());
        return json(document);
    }

    /** A missing part stays missing (null), for the core to refuse naming the field. */
    private static String base64(Bytes bytes) {
        return bytes == null ? null : bytes.toBase64UrlString();
    }

    private static List<PublicKeyCredentialDescriptor> descriptors(Collection<CredentialDescriptor> descriptors) {
        return descriptors.stream().map(descriptor -> PublicKeyCredentialDescriptor.builder()
                .id(Bytes.fromBase64(descriptor.id())).transports(transports(descriptor.transports())).build())
                .toList();
    }

    private static Set<AuthenticatorTransport> transports(Set<String> transports) {
        return transports.stream().map(AuthenticatorTransport::valueOf).collect(Collectors.toUnmodifiableSet());
    }

    /** The core's word for user verification ({@code required} or {@code preferred}) as Spring's value. */
    private static UserVerificationRequirement userVerification(String word) {
        return "required".equals(word) ? UserVerificationRequirement.REQUIRED : UserVerificationRequirement.PREFERRED;
    }
}
