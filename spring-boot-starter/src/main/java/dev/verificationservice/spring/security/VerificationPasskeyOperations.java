package dev.verificationservice.spring.security;

import com.webauthn4j.converter.CollectedClientDataConverter;
import com.webauthn4j.converter.util.ObjectConverter;
import dev.verificationservice.passkeys.Passkey;
import dev.verificationservice.passkeys.PasskeyCapReachedException;
import dev.verificationservice.passkeys.PasskeyPolicy;
import dev.verificationservice.passkeys.PasskeyRegistration;
import dev.verificationservice.passkeys.PasskeyRepository;
import dev.verificationservice.passkeys.PasskeyService;
import dev.verificationservice.passkeys.PasskeyVerification;
import dev.verificationservice.passkeys.RegistrationOptions;
import dev.verificationservice.passkeys.SignInOptions;
import dev.verificationservice.validation.InvalidInputException;
import java.time.Duration;
import java.util.Arrays;
import java.util.Optional;
import org.springframework.security.authentication.BadCredentialsException;
import org.springframework.security.web.webauthn.api.AuthenticatorAssertionResponse;
import org.springframework.security.web.webauthn.api.Bytes;
import org.springframework.security.web.webauthn.api.CredentialRecord;
import org.springframework.security.web.webauthn.api.PublicKeyCredential;
import org.springframework.security.web.webauthn.api.PublicKeyCredentialCreationOptions;
import org.springframework.security.web.webauthn.api.PublicKeyCredentialRequestOptions;
import org.springframework.security.web.webauthn.api.PublicKeyCredentialUserEntity;
import org.springframework.security.web.webauthn.management.PublicKeyCredentialCreationOptionsRequest;
import org.springframework.security.web.webauthn.management.PublicKeyCredentialRequestOptionsRequest;
import org.springframework.security.web.webauthn.management.RelyingPartyAuthenticationRequest;
import org.springframework.security.web.webauthn.management.RelyingPartyRegistrationRequest;
import org.springframework.security.web.webauthn.management.WebAuthnRelyingPartyOperations;

/**
 * Spring Security's relying party on the core's {@link PasskeyService}, so {@code webAuthn()} registers and signs in
 * under the same rules as the HTTP API: the challenge is an item on the store, consumed in the one conditional write
 * that stores the passkey or accepts the assertion (so a challenge is used at most once, on any number of instances,
 * and a retried write is recognised as its own), failed assertions count under the counted-attempt rule, the sign
 * count is checked, and each step is audited. Spring's own {@code Webauthn4JRelyingPartyOperations} would keep the
 * challenge in the HTTP session and update the credential after the check, outside that write.
 */
public final class VerificationPasskeyOperations implements WebAuthnRelyingPartyOperations {

    private final PasskeyService passkeys;
    private final PasskeyRepository store;
    private final PasskeyPolicy policy;
    private final PasskeyUsers users;
    private final CollectedClientDataConverter clientData = new CollectedClientDataConverter(new ObjectConverter());

    VerificationPasskeyOperations(PasskeyService passkeys, PasskeyRepository store, PasskeyPolicy policy,
                                  PasskeyUsers users) {
        this.passkeys = passkeys;
        this.store = store;
        this.policy = policy;
        this.users = users;
    }

    /**
     * Creation options for the signed-in user; a user without an account, or with the most passkeys allowed, is
     * refused ({@link PasskeyRefused}) before any challenge is stored.
     */
    @Override
    public PublicKeyCredentialCreationOptions createPublicKeyCredentialCreationOptions(
            PublicKeyCredentialCreationOptionsRequest request) {
        String userId = users.userId(request.getAuthentication())
                .orElseThrow(() -> new PasskeyRefused("user", "is not a signed-in user with an account"));
        String username = request.getAuthentication().getName();
        RegistrationOptions options;
        try {
            // The names the browser shows are Spring's user entity's (the username, whatever its length), so the
            // core's are left to it.
            options = passkeys.registrationOptions(userId, Optional.empty(), Optional.empty());
        } catch (InvalidInputException e) {
            throw new PasskeyRefused(e.field(), e.reason());
        } catch (PasskeyCapReachedException atCap) {
            throw new PasskeyRefused(409, "userId", "has " + atCap.cap()
                    + " passkeys already; revoke one before registering another");
        }
        return SpringPasskeys.creationOptions(policy, options.challenge(),
                SpringPasskeys.user(options.userHandle(), username), options.excludeCredentials(),
                Duration.ofMillis(options.timeoutMillis()), options.userVerification());
    }

    /**
     * Verifies the response against the user's open registration challenge and stores the passkey, consuming the
     * challenge in the same write. A refusal is a {@link PasskeyRefused}, which the starter answers with 400.
     */
    @Override
    public CredentialRecord registerCredential(RelyingPartyRegistrationRequest request) {
        String username = request.getCreationOptions().getUser().getName();
        String userId = users.userId(username).orElseThrow(() -> new PasskeyRefused("user", "has no account"));
        String label = request.getPublicKey().getLabel();
        PasskeyRegistration result;
        try {
            result = passkeys.register(userId, SpringPasskeys.json(request.getPublicKey().getCredential()),
                    Optional.ofNullable(label).filter(text -> !text.isBlank()), Clients.current());
        } catch (InvalidInputException e) {
            throw new PasskeyRefused(e.field(), e.reason());
        }
        if (result instanceof PasskeyRegistration.NotRegistered refused) {
            throw new PasskeyRefused(refused.check(), "not registered: " + refused.reason());
        }
        String credentialId = ((PasskeyRegistration.Registered) result).passkey().credentialId();
        return store.findPasskey(credentialId).map(SpringPasskeys::record)
                .orElseThrow(() -> new PasskeyRefused("credential", "was revoked while it was registered"));
    }

    /**
     * Request options: the signed-in user's passkeys, or none for a username-less sign-in (and conditional UI); the
     * challenge is stored on the store for the policy's lifetime.
     */
    @Override
    public PublicKeyCredentialRequestOptions createCredentialRequestOptions(
            PublicKeyCredentialRequestOptionsRequest request) {
        SignInOptions options = passkeys.signInOptions(users.userId(request.getAuthentication()));
        return SpringPasskeys.requestOptions(policy, options.challenge(), options.allowCredentials(),
                Duration.ofMillis(options.timeoutMillis()), options.userVerification());
    }

    /**
     * Verifies the assertion; its challenge must be the one of the options this browser was given. Any refusal is
     * a {@link BadCredentialsException}, which Spring answers with 401.
     */
    @Override
    public PublicKeyCredentialUserEntity authenticate(RelyingPartyAuthenticationRequest request) {
        PublicKeyCredential<AuthenticatorAssertionResponse> credential = request.getPublicKey();
        if (!Arrays.equals(challengeOf(credential), request.getRequestOptions().getChallenge().getBytes())) {
            throw new BadCredentialsException("the assertion answers another challenge than this browser's");
        }
        PasskeyVerification result;
        try {
            result = passkeys.verify(SpringPasskeys.assertionJson(credential), Optional.empty(), Clients.current());
        } catch (InvalidInputException e) {
            throw new BadCredentialsException("the assertion is malformed: " + e.field() + " " + e.reason());
        }
        if (!(result instanceof PasskeyVerification.Valid valid)) {
            throw new BadCredentialsException("passkey refused: " + ((PasskeyVerification.Invalid) result).reason());
        }
        String username = users.username(valid.userId())
                .orElseThrow(() -> new BadCredentialsException("the passkey's user has no account"));
        Bytes handle = credential.getResponse().getUserHandle();
        // The core checked a sent user handle against the passkey's; without one (an allowCredentials sign-in) it is
        // read from the passkey.
        String userHandle = handle != null ? handle.toBase64UrlString()
                : store.findPasskey(valid.credentialId()).map(Passkey::userHandle)
                .orElseThrow(() -> new BadCredentialsException("the passkey was revoked"));
        return SpringPasskeys.user(userHandle, username);
    }

    private byte[] challengeOf(PublicKeyCredential<AuthenticatorAssertionResponse> credential) {
        try {
            return clientData.convert(credential.getResponse().getClientDataJSON().getBytes()).getChallenge()
                    .getValue();
        } catch (RuntimeException e) {
            throw new BadCredentialsException("the assertion's clientDataJSON is malformed");
        }
    }
}
