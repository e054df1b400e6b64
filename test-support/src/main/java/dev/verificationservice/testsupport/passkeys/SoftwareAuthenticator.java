package dev.verificationservice.testsupport.passkeys;

import com.webauthn4j.converter.AttestationObjectConverter;
import com.webauthn4j.converter.AuthenticatorDataConverter;
import com.webauthn4j.converter.CollectedClientDataConverter;
import com.webauthn4j.converter.util.ObjectConverter;
import com.webauthn4j.data.AuthenticatorAssertionResponse;
import com.webauthn4j.data.AuthenticatorAttachment;
import com.webauthn4j.data.AuthenticatorAttestationResponse;
import com.webauthn4j.data.AuthenticatorTransport;
import com.webauthn4j.data.PublicKeyCredential;
import com.webauthn4j.data.attestation.AttestationObject;
import com.webauthn4j.data.attestation.authenticator.AAGUID;
import com.webauthn4j.data.attestation.authenticator.AttestedCredentialData;
import com.webauthn4j.data.attestation.authenticator.AuthenticatorData;
import com.webauthn4j.data.attestation.authenticator.EC2COSEKey;
import com.webauthn4j.data.attestation.statement.COSEAlgorithmIdentifier;
import com.webauthn4j.data.attestation.statement.NoneAttestationStatement;
import com.webauthn4j.data.client.ClientDataType;
import com.webauthn4j.data.client.CollectedClientData;
import com.webauthn4j.data.client.Origin;
import com.webauthn4j.data.client.challenge.DefaultChallenge;
import com.webauthn4j.data.extension.client.AuthenticationExtensionsClientOutputs;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.interfaces.ECPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.util.Base64;
import java.util.Set;

/**
 * A passkey authenticator in software for tests: an EC P-256 key pair from the JDK, attestation {@code none}, and
 * responses in the JSON of {@code PublicKeyCredential.toJSON()}, built with webauthn4j's own converters (no CBOR by
 * hand). Its sign count starts at {@code firstSignCount} and goes up by one per assertion, unless it is a synced
 * passkey ({@code firstSignCount} 0 and {@link #synced}), which always sends 0. Thread-safe.
 */
public final class SoftwareAuthenticator {

    private static final byte UP = AuthenticatorData.BIT_UP;
    private static final byte UV = AuthenticatorData.BIT_UV;
    private static final byte AT = AuthenticatorData.BIT_AT;
    private static final byte BE = AuthenticatorData.BIT_BE;
    private static final byte BS = AuthenticatorData.BIT_BS;

    private final ObjectConverter converter = new ObjectConverter();
    private final KeyPair keys;
    private final byte[] credentialId;
    private final boolean synced;
    private long signCount;
    private byte[] userHandle;

    private SoftwareAuthenticator(boolean synced, long firstSignCount, int credentialIdBytes) {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("EC");
            generator.initialize(new ECGenParameterSpec("secp256r1"));
            this.keys = generator.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
        this.credentialId = new byte[credentialIdBytes];
        new SecureRandom().nextBytes(credentialId);
        this.synced = synced;
        this.signCount = firstSignCount;
    }

    /** A security key with its own counter, starting at 1. */
    public static SoftwareAuthenticator withCounter() {
        return withCredentialIdBytes(32);
    }

    /** A security key with its own counter whose credential id is this long, as an attacker may make one. */
    public static SoftwareAuthenticator withCredentialIdBytes(int length) {
        return new SoftwareAuthenticator(false, 1, length);
    }

    /** A synced passkey: backup eligible and backed up, its sign count always 0. */
    public static SoftwareAuthenticator synced() {
        return new SoftwareAuthenticator(true, 0, 32);
    }

    /** The credential id, base64url. */
    public String credentialId() {
        return b64(credentialId);
    }

    /** Sets the counter the next assertion sends (plus one), to play a cloned key that is behind. */
    public synchronized void setSignCount(long count) {
        this.signCount = count;
    }

    /**
     * Sets the user handle the next assertions send: {@code null} sends none, as a security key that keeps no
     * discoverable credential; another handle plays a response that claims another account.
     */
    public synchronized void setUserHandle(String userHandle) {
        this.userHandle = userHandle == null ? null : Base64.getUrlDecoder().decode(userHandle);
    }

    /** The registration response to a creation challenge (base64url), for the RP ID at the origin. */
    public synchronized String register(String challenge, String rpId, String origin, String userHandle) {
        this.userHandle = Base64.getUrlDecoder().decode(userHandle);
        byte[] clientData = clientData(ClientDataType.WEBAUTHN_CREATE, challenge, origin);
        AttestedCredentialData credential = new AttestedCredentialData(AAGUID.ZERO, credentialId,
                EC2COSEKey.create((ECPublicKey) keys.getPublic(), COSEAlgorithmIdentifier.ES256));
        AuthenticatorData<?> data = new AuthenticatorData<>(sha256(rpId.getBytes(StandardCharsets.UTF_8)),
                (byte) (flags() | AT), signCount, credential);
        @SuppressWarnings({"unchecked", "rawtypes"})
        AttestationObject attestation = new AttestationObject((AuthenticatorData) data, new NoneAttestationStatement());
        byte[] attestationObject = new AttestationObjectConverter(converter).convertToBytes(attestation);
        PublicKeyCredential<AuthenticatorAttestationResponse, ?> credentialJson = new PublicKeyCredential<>(
                credentialId(), credentialId, new AuthenticatorAttestationResponse(clientData, attestationObject,
                Set.of(AuthenticatorTransport.INTERNAL)), AuthenticatorAttachment.PLATFORM,
                new AuthenticationExtensionsClientOutputs<>());
        return converter.getJsonConverter().writeValueAsString(credentialJson);
    }

    /** The assertion for a request challenge (base64url), signed over the authenticator data and client data. */
    public synchronized String sign(String challenge, String rpId, String origin) {
        if (!synced) {
            signCount++;
        }
        byte[] clientData = clientData(ClientDataType.WEBAUTHN_GET, challenge, origin);
        AuthenticatorData<?> data = new AuthenticatorData<>(sha256(rpId.getBytes(StandardCharsets.UTF_8)), flags(),
                signCount);
        byte[] authenticatorData = new AuthenticatorDataConverter(converter).convert(data);
        byte[] signed = new byte[authenticatorData.length + 32];
        System.arraycopy(authenticatorData, 0, signed, 0, authenticatorData.length);
        System.arraycopy(sha256(clientData), 0, signed, authenticatorData.length, 32);
        byte[] signature;
        try {
            Signature signer = Signature.getInstance("SHA256withECDSA");
            signer.initSign(keys.getPrivate());
            signer.update(signed);
            signature = signer.sign();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
        PublicKeyCredential<AuthenticatorAssertionResponse, ?> credentialJson = new PublicKeyCredential<>(
                credentialId(), credentialId, new AuthenticatorAssertionResponse(clientData, authenticatorData,
                signature, userHandle), AuthenticatorAttachment.PLATFORM, new AuthenticationExtensionsClientOutputs<>());
        return converter.getJsonConverter().writeValueAsString(credentialJson);
    }

    private byte flags() {
        return (byte) (UP | UV | (synced ? BE | BS : 0));
    }

    private byte[] clientData(ClientDataType type, String challenge, String origin) {
        return new CollectedClientDataConverter(converter).convertToBytes(new CollectedClientData(type,
                new DefaultChallenge(challenge), new Origin(origin), false, null));
    }

    private static byte[] sha256(byte[] bytes) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(bytes);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    private static String b64(byte[] bytes) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }
}
