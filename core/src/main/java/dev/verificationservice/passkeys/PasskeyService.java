package dev.verificationservice.passkeys;

import com.webauthn4j.WebAuthnManager;
import com.webauthn4j.converter.util.ObjectConverter;
import com.webauthn4j.credential.CredentialRecordImpl;
import com.webauthn4j.data.AuthenticationData;
import com.webauthn4j.data.AuthenticationParameters;
import com.webauthn4j.data.AuthenticatorTransport;
import com.webauthn4j.data.PublicKeyCredentialParameters;
import com.webauthn4j.data.PublicKeyCredentialType;
import com.webauthn4j.data.RegistrationData;
import com.webauthn4j.data.RegistrationParameters;
import com.webauthn4j.data.attestation.authenticator.AAGUID;
import com.webauthn4j.data.attestation.authenticator.AttestedCredentialData;
import com.webauthn4j.data.attestation.authenticator.AuthenticatorData;
import com.webauthn4j.data.attestation.authenticator.COSEKey;
import com.webauthn4j.data.attestation.statement.COSEAlgorithmIdentifier;
import com.webauthn4j.data.client.Origin;
import com.webauthn4j.data.client.challenge.DefaultChallenge;
import com.webauthn4j.server.ServerProperty;
import com.webauthn4j.verifier.attestation.statement.none.NoneAttestationStatementVerifier;
import com.webauthn4j.verifier.attestation.trustworthiness.certpath.NullCertPathTrustworthinessVerifier;
import com.webauthn4j.verifier.attestation.trustworthiness.self.NullSelfAttestationTrustworthinessVerifier;
import com.webauthn4j.verifier.exception.MaliciousCounterValueException;
import com.webauthn4j.verifier.exception.VerificationException;
import dev.verificationservice.attempts.Admission;
import dev.verificationservice.attempts.Attempt;
import dev.verificationservice.attempts.CountedAttempts;
import dev.verificationservice.attempts.CountedFactor;
import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.AuditLog;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.security.SecureTokens;
import dev.verificationservice.store.UnitOfWork;
import dev.verificationservice.time.Instants;
import dev.verificationservice.validation.Inputs;
import dev.verificationservice.validation.InvalidInputException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Base64;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Supplier;
import java.util.stream.Collectors;

/**
 * Passkeys (WebAuthn Level 3) on webauthn4j: registration options and verification, sign-in options and
 * verification, list, rename, revoke.
 *
 * <ul>
 *   <li><b>Challenges</b> are 32 bytes from {@link SecureTokens#random()}, stored as single-use items with the
 *   policy's lifetime, bound to the purpose, the user (a registration always; a sign-in when a user is named) and,
 *   through the options, to this RP ID and its origins.</li>
 *   <li><b>Attestation {@code none} only</b>: the options ask for none, and any other format is refused. Without an
 *   enterprise attestation policy there is nothing to check an attestation against, and accepting one unchecked
 *   would only pretend to. Algorithms: ES256, EdDSA, RS256.</li>
 *   <li><b>A challenge is used at most once</b>: an assertion's test, the sign-count update and its
 *   {@code PASSKEY_VERIFIED} entry are one attempt write ({@link PasskeyRepository#acceptAssertion}) that consumes
 *   the challenge on the condition that it is open; of any number of concurrent submissions one wins.</li>
 *   <li><b>Failed assertions are counted</b> as wrong guesses at the factor {@value #VERIFY_ACTION}, under the rule
 *   every factor shares ({@link CountedAttempts}); a replayed or expired challenge is no wrong guess.</li>
 *   <li><b>Sign count</b>: one that does not move forwards (0 on both sides excepted: synced passkeys send 0) is
 *   refused as a possible clone and audited as {@code PASSKEY_CLONE_WARNING}; the operator revokes the passkey.</li>
 * </ul>
 */
public final class PasskeyService {

    /** The counted factor of failed passkey assertions: its rate-limit action. */
    public static final String VERIFY_ACTION = "VERIFY_PASSKEY";
    public static final int MAX_LABEL_LENGTH = 64;
    /** Credential ids longer than this are refused, so a passkey item stays well under 1 KB with an RSA key. */
    public static final int MAX_CREDENTIAL_ID_BYTES = 255;
    /** The largest COSE key accepted: an RSA-4096 key and its parameters. */
    public static final int MAX_PUBLIC_KEY_BYTES = 600;
    private static final int CHALLENGE_BYTES = 32;
    private static final int USER_HANDLE_BYTES = 32;
    private static final int DECOY_ID_BYTES = 16;
    /** What a registration hands the store as the user handle, which the store takes from the challenge. */
    private static final String UNREAD_USER_HANDLE = "";
    private static final List<PublicKeyCredentialParameters> ALGORITHMS = List.of(
            new PublicKeyCredentialParameters(PublicKeyCredentialType.PUBLIC_KEY, COSEAlgorithmIdentifier.ES256),
            new PublicKeyCredentialParameters(PublicKeyCredentialType.PUBLIC_KEY, COSEAlgorithmIdentifier.EdDSA),
            new PublicKeyCredentialParameters(PublicKeyCredentialType.PUBLIC_KEY, COSEAlgorithmIdentifier.RS256));
    private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();

    private final PasskeyRepository passkeys;
    private final CountedFactor counted;
    private final AuditLog audit;
    private final SecretKeyRing keys;
    private final SecureTokens tokens;
    private final Clock clock;
    private final PasskeyPolicy policy;
    private final UnitOfWork units;
    private final ObjectConverter converter = new ObjectConverter();
    private final WebAuthnManager webAuthn = new WebAuthnManager(List.of(new NoneAttestationStatementVerifier()),
            new NullCertPathTrustworthinessVerifier(), new NullSelfAttestationTrustworthinessVerifier(), converter);
    private final Set<Origin> origins;

    /**
     * @param attempts the counted guesses every factor shares, where this one counts its failed assertions
     * @param keys     derive the decoy credential id a user without passkeys is shown (stable across instances)
     */
    public PasskeyService(PasskeyRepository passkeys, PasskeyPolicy policy, CountedAttempts attempts, AuditLog audit,
                          SecretKeyRing keys, SecureTokens tokens, Clock clock, UnitOfWork units) {
        this.passkeys = passkeys;
        this.policy = policy;
        this.counted = attempts.factor(VERIFY_ACTION, policy.verifyLimit(), 0);
        this.audit = audit;
        this.keys = keys;
        this.tokens = tokens;
        this.clock = clock;
        this.units = units;
        this.origins = policy.origins().stream().map(Origin::new).collect(Collectors.toUnmodifiableSet());
    }

    // Registration

    /**
     * Creation options for the user: the user's passkeys read beside the user handle, then the challenge stored with
     * it (two round trips at most).
     *
     * @throws PasskeyCapReachedException when the user is at the cap (the challenge stored beside the read lapses)
     */
    public RegistrationOptions registrationOptions(String userId, Optional<String> userName,
                                                   Optional<String> displayName) {
        String user = Inputs.userId(userId);
        String name = Inputs.optionalText("userName", userName.orElse(null), MAX_LABEL_LENGTH).orElse(user);
        String shown = Inputs.optionalText("displayName", displayName.orElse(null), MAX_LABEL_LENGTH).orElse(name);
        String candidate = B64.encodeToString(randomBytes(USER_HANDLE_BYTES));
        List<Supplier<Object>> calls = List.of(() -> passkeys.findPasskeys(user),
                () -> newChallenge(PasskeyChallenge.Purpose.REGISTRATION, Optional.of(user),
                        Optional.of(passkeys.userHandle(user, candidate))));
        List<Object> read = units.together(calls);
        @SuppressWarnings("unchecked")
        List<Passkey> existing = (List<Passkey>) read.get(0);
        PasskeyChallenge challenge = (PasskeyChallenge) read.get(1);
        if (existing.size() >= policy.maxPasskeys()) {
            throw new PasskeyCapReachedException(policy.maxPasskeys());
        }
        return new RegistrationOptions(challenge.challenge(), policy.rpId(), policy.rpName(),
                challenge.userHandle().orElseThrow(), name, shown,
                ALGORITHMS.stream().map(parameters -> parameters.getAlg().getValue()).toList(),
                descriptors(existing), "preferred", userVerification(), "none",
                policy.challengeLifetime().toMillis(), challenge.expiresAt());
    }

    /**
     * Verifies a registration response (the JSON of {@code PublicKeyCredential.toJSON()}) against the user's open
     * registration challenge and stores the passkey with its {@code PASSKEY_ADDED} entry, consuming the challenge in
     * the same write. Malformed JSON, base64url or CBOR is an {@link InvalidInputException} naming the field.
     */
    public PasskeyRegistration register(String userId, String responseJson, Optional<String> label,
                                        ClientContext client) {
        String user = Inputs.userId(userId);
        String shownLabel = Inputs.optionalText("label", label.orElse(null), MAX_LABEL_LENGTH).orElse("Passkey");
        RegistrationData data = parsed("credential", () -> webAuthn.parseRegistrationResponseJSON(
                Inputs.required("credential", responseJson)));
        String challenge = parsed("credential", () -> {
            Objects.requireNonNull(data.getAttestationObject(), "attestationObject");
            return B64.encodeToString(data.getCollectedClientData().getChallenge().getValue());
        });
        Instant now = Instants.toMillis(clock.instant());
        // No read of the challenge first: the store's registration reads it, with the user's passkeys, and decides
        // whether it is this user's open registration challenge, so a registration is two round trips.
        try {
            webAuthn.verify(data, new RegistrationParameters(serverProperty(challenge), ALGORITHMS,
                    policy.userVerificationRequired(), true));
        } catch (VerificationException e) {
            return refused(user, PasskeyRegistration.Reason.REJECTED, check(e), Optional.empty(), client);
        }
        AuthenticatorData<?> authenticator = data.getAttestationObject().getAuthenticatorData();
        AttestedCredentialData credential = authenticator.getAttestedCredentialData();
        byte[] publicKey = converter.getCborConverter().writeValueAsBytes(credential.getCOSEKey());
        if (credential.getCredentialId().length > MAX_CREDENTIAL_ID_BYTES || publicKey.length > MAX_PUBLIC_KEY_BYTES) {
            return refused(user, PasskeyRegistration.Reason.REJECTED, "credential size", Optional.empty(), client);
        }
        Set<String> transports = Optional.ofNullable(data.getTransports()).orElse(Set.of()).stream()
                .map(AuthenticatorTransport::getValue).collect(Collectors.toUnmodifiableSet());
        Passkey passkey = new Passkey(user, B64.encodeToString(credential.getCredentialId()),
                UNREAD_USER_HANDLE, shownLabel, publicKey, authenticator.getSignCount(), transports,
                authenticator.isFlagBE(), authenticator.isFlagBS(), authenticator.isFlagUV(),
                String.valueOf(credential.getAaguid()), now, Optional.empty());
        Map<String, String> details = new LinkedHashMap<>();
        details.put("credentialId", passkey.credentialId());
        details.put("label", shownLabel);
        AuditEntry added = audit.newEntry(user, AuditEventType.PASSKEY_ADDED, true, Optional.empty(), details, client);
        if (!ours(challenge)) {
            return refused(user, PasskeyRegistration.Reason.CHALLENGE_NOT_OPEN, "challenge",
                    Optional.of(passkey.credentialId()), client);
        }
        return switch (passkeys.register(challenge, tokens.attemptId(), now, passkey, added, policy.maxPasskeys())) {
            case STORED -> new PasskeyRegistration.Registered(passkey.summary());
            case CHALLENGE_NOT_OPEN -> refused(user, PasskeyRegistration.Reason.CHALLENGE_NOT_OPEN, "challenge",
                    Optional.of(passkey.credentialId()), client);
            case CAP_REACHED -> refused(user, PasskeyRegistration.Reason.CAP_REACHED, "userId",
                    Optional.of(passkey.credentialId()), client);
            case CREDENTIAL_EXISTS -> refused(user, PasskeyRegistration.Reason.CREDENTIAL_EXISTS, "credential id",
                    Optional.of(passkey.credentialId()), client);
        };
    }

    /** A refused registration, audited (nothing else was written): an operator sees failed attempts at a user. */
    private PasskeyRegistration refused(String user, PasskeyRegistration.Reason reason, String check,
                                        Optional<String> credentialId, ClientContext client) {
        Map<String, String> details = new LinkedHashMap<>();
        details.put("check", check);
        credentialId.ifPresent(id -> details.put("credentialId", id));
        audit.recordFailure(user, AuditEventType.PASSKEY_REGISTRATION_FAILED, reason.name(), details, client);
        return new PasskeyRegistration.NotRegistered(reason, check);
    }

    // Sign-in

    /**
     * Request options: for no user, a username-less (and conditional UI) sign-in with no allowCredentials; for a
     * named user, the user's passkeys, or one decoy id when the user has none, so both answers look alike. The
     * challenge is stored beside the read of a named user's passkeys.
     */
    public SignInOptions signInOptions(Optional<String> userId) {
        Optional<String> user = userId.map(Inputs::userId);
        List<Supplier<Object>> calls = new ArrayList<>();
        calls.add(() -> newChallenge(PasskeyChallenge.Purpose.SIGN_IN, user, Optional.empty()));
        user.ifPresent(named -> calls.add(() -> passkeys.findPasskeys(named)));
        List<Object> read = units.together(calls);
        PasskeyChallenge challenge = (PasskeyChallenge) read.get(0);
        @SuppressWarnings("unchecked")
        List<CredentialDescriptor> allowed = user.map(named -> {
            List<CredentialDescriptor> own = descriptors((List<Passkey>) read.get(1));
            if (!own.isEmpty()) {
                return own;
            }
            CredentialDescriptor decoy = decoy(named);
            // The read a user with passkeys makes of them, made of the decoy: the answer's round trips tell the two
            // users apart no more than its shape does.
            passkeys.findPasskey(decoy.id());
            return List.of(decoy);
        }).orElse(List.of());
        return new SignInOptions(challenge.challenge(), policy.rpId(), allowed, userVerification(),
                policy.challengeLifetime().toMillis(), challenge.expiresAt());
    }

    /**
     * Verifies a sign-in assertion (the JSON of {@code PublicKeyCredential.toJSON()}); {@code userId} is the user the
     * options named, if they named one. Two round trips for a named user: the credential, the challenge and the
     * attempt's place (its counts read beside it) together, then the attempt write of an accepted assertion. A
     * username-less sign-in learns its user from the credential, so its place follows that read: three.
     */
    public PasskeyVerification verify(String responseJson, Optional<String> userId, ClientContext client) {
        Optional<String> named = userId.map(Inputs::userId);
        AuthenticationData data = parsed("credential", () -> webAuthn.parseAuthenticationResponseJSON(
                Inputs.required("credential", responseJson)));
        String credentialId = parsed("credential", () -> B64.encodeToString(data.getCredentialId()));
        String challenge = parsed("credential", () -> {
            Objects.requireNonNull(data.getAuthenticatorData(), "authenticatorData");
            return B64.encodeToString(data.getCollectedClientData().getChallenge().getValue());
        });
        // An id or a challenge no passkey or options of ours can have is not looked for: no store takes any key.
        boolean ourId = data.getCredentialId().length <= MAX_CREDENTIAL_ID_BYTES;
        boolean ourChallenge = ours(challenge);
        if (named.isPresent() && counted.knownLockOut(named.get()).isPresent()) {
            return new PasskeyVerification.Invalid(PasskeyVerification.Reason.TOO_MANY_ATTEMPTS, "userId");
        }
        // Outside the unit, as every read before a test: on the embedded store a unit holds the one writer.
        List<Supplier<Object>> calls = new ArrayList<>(List.of(
                () -> ourId ? passkeys.findPasskey(credentialId) : Optional.empty(),
                () -> ourChallenge ? passkeys.findChallenge(challenge) : Optional.empty()));
        named.ifPresent(user -> calls.add(() -> counted.begin(user)));
        List<UnitOfWork.Settled<Object>> read = units.settle(calls);
        Optional<Admission> admission = named.map(user -> (Admission) read.get(2).get());
        Optional<Attempt> held = admission.filter(Admission.Admitted.class::isInstance)
                .map(admitted -> ((Admission.Admitted) admitted).attempt());
        @SuppressWarnings("unchecked")
        Optional<PasskeyChallenge> stored = readOrGiveBack(held, () -> (Optional<PasskeyChallenge>) read.get(1).get());
        // Where neither the caller nor the options named the user, the passkey's user handle is the only word on whose
        // it is (WebAuthn's username-less step): a response without one is no sign-in of anyone.
        boolean handleRequired = named.isEmpty() && stored.map(found -> found.userId().isEmpty()).orElse(true);
        @SuppressWarnings("unchecked")
        Optional<Passkey> found = readOrGiveBack(held, () -> (Optional<Passkey>) read.get(0).get())
                .filter(passkey -> named.map(passkey.userId()::equals).orElse(true)
                        && (data.getUserHandle() == null ? !handleRequired
                        : B64.encodeToString(data.getUserHandle()).equals(passkey.userHandle())));
        if (found.isEmpty()) {
            // No passkey (of the named user) has this id: nothing was tested, so no wrong guess.
            held.ifPresent(Attempt::noWrongGuess);
            return new PasskeyVerification.Invalid(PasskeyVerification.Reason.UNKNOWN_CREDENTIAL, "credential id");
        }
        Passkey passkey = found.get();
        if (admission.isPresent()) {
            return units.run("verify a passkey", () -> verifyAdmitted(passkey, admission.get(), data, challenge,
                    stored, client));
        }
        if (counted.knownLockOut(passkey.userId()).isPresent()) {
            return new PasskeyVerification.Invalid(PasskeyVerification.Reason.TOO_MANY_ATTEMPTS, "userId");
        }
        return units.run("verify a passkey", () -> verifyAdmitted(passkey, counted.begin(passkey.userId()), data,
                challenge, stored, client));
    }

    private PasskeyVerification verifyAdmitted(Passkey passkey, Admission admission, AuthenticationData data,
                                               String challenge, Optional<PasskeyChallenge> stored,
                                               ClientContext client) {
        if (!(admission instanceof Admission.Admitted admitted)) {
            return invalid(passkey, PasskeyVerification.Reason.TOO_MANY_ATTEMPTS, "userId", client);
        }
        return verifyCounted(passkey, admitted.attempt(), data, challenge, stored, client);
    }

    private PasskeyVerification verifyCounted(Passkey passkey, Attempt attempt, AuthenticationData data,
                                              String challenge, Optional<PasskeyChallenge> stored,
                                              ClientContext client) {
        String user = passkey.userId();
        Instant now = Instants.toMillis(clock.instant());
        PasskeyVerification tested = attempt.tested(() -> test(passkey, data, challenge, stored, now, attempt,
                client));
        if (tested instanceof PasskeyVerification.Valid valid) {
            attempt.succeeded(true);
            return valid;
        }
        PasskeyVerification.Invalid invalid = (PasskeyVerification.Invalid) tested;
        switch (invalid.reason()) {
            case REJECTED -> {
                boolean locked = attempt.wrongGuess();
                return invalid(passkey, locked ? PasskeyVerification.Reason.TOO_MANY_ATTEMPTS : invalid.reason(),
                        invalid.check(), client);
            }
            case POSSIBLY_CLONED -> {
                if (passkeys.findChallenge(challenge).flatMap(PasskeyChallenge::consumedBy).isPresent()) {
                    // The passkey was read after a concurrent submission of this same assertion won and moved its
                    // count: a replay that lost, no clone and no wrong guess.
                    attempt.noWrongGuess();
                    return invalid(passkey, PasskeyVerification.Reason.CHALLENGE_NOT_OPEN, "challenge", client);
                }
                // A counter that went backwards is a signal, not proof, of a copied key: refused, counted, and
                // audited as its own event so an operator can revoke the passkey.
                attempt.wrongGuess();
                Map<String, String> details = new LinkedHashMap<>();
                details.put("credentialId", passkey.credentialId());
                details.put("storedSignCount", Long.toString(passkey.signCount()));
                details.put("presentedSignCount", Long.toString(data.getAuthenticatorData().getSignCount()));
                audit.recordFailure(user, AuditEventType.PASSKEY_CLONE_WARNING, invalid.reason().name(), details,
                        client);
                return invalid;
            }
            default -> {
                // A used, expired or foreign challenge: a replay or a late answer, no wrong guess.
                attempt.noWrongGuess();
                return invalid(passkey, invalid.reason(), invalid.check(), client);
            }
        }
    }

    private PasskeyVerification test(Passkey passkey, AuthenticationData data, String challenge,
                                     Optional<PasskeyChallenge> stored, Instant now, Attempt attempt,
                                     ClientContext client) {
        boolean open = stored.filter(found -> found.isOpenAt(now) && found.purpose() == PasskeyChallenge.Purpose.SIGN_IN
                && found.userId().map(passkey.userId()::equals).orElse(true)).isPresent();
        if (!open) {
            return new PasskeyVerification.Invalid(PasskeyVerification.Reason.CHALLENGE_NOT_OPEN, "challenge");
        }
        try {
            webAuthn.verify(data, new AuthenticationParameters(serverProperty(challenge), record(passkey), null,
                    policy.userVerificationRequired(), true));
        } catch (MaliciousCounterValueException e) {
            return new PasskeyVerification.Invalid(PasskeyVerification.Reason.POSSIBLY_CLONED, "signCount");
        } catch (VerificationException e) {
            return new PasskeyVerification.Invalid(PasskeyVerification.Reason.REJECTED, check(e));
        }
        AuthenticatorData<?> authenticator = data.getAuthenticatorData();
        Map<String, String> details = new LinkedHashMap<>();
        details.put("credentialId", passkey.credentialId());
        AuditEntry verified = audit.newEntry(passkey.userId(), AuditEventType.PASSKEY_VERIFIED, true,
                Optional.empty(), details, client);
        boolean won = passkeys.acceptAssertion(new PasskeyUse(challenge, passkey.userId(), passkey.credentialId(),
                passkey.signCount(), authenticator.getSignCount(), authenticator.isFlagBS(), now, tokens.attemptId(),
                verified, attempt.place()));
        // Lost: another submission of this challenge won (a replay), or another sign-in moved the count.
        return won ? new PasskeyVerification.Valid(passkey.userId(), passkey.credentialId())
                : new PasskeyVerification.Invalid(PasskeyVerification.Reason.CHALLENGE_NOT_OPEN, "challenge");
    }

    // Lifecycle

    /** The user's passkeys, oldest first; no key material. */
    public List<PasskeySummary> list(String userId) {
        String user = Inputs.userId(userId);
        return passkeys.findPasskeys(user).stream().map(Passkey::summary)
                .sorted(Comparator.comparing(PasskeySummary::createdAt)
                        .thenComparing(PasskeySummary::credentialId))
                .toList();
    }

    /** Renames one passkey; false when the user has no passkey with that id. */
    public boolean rename(String userId, String credentialId, String label) {
        return passkeys.rename(Inputs.userId(userId), credentialId(credentialId),
                Inputs.optionalText("label", Inputs.required("label", label), MAX_LABEL_LENGTH).orElseThrow());
    }

    /** Revokes one passkey, audited as {@code PASSKEY_REVOKED}; false when the user has no passkey with that id. */
    public boolean revoke(String userId, String credentialId, ClientContext client) {
        String user = Inputs.userId(userId);
        String credential = credentialId(credentialId);
        return units.run("revoke a passkey", () -> revoked(user, passkeys.delete(user, Optional.of(credential)),
                client)) > 0;
    }

    /** Revokes every passkey of the user, each audited as {@code PASSKEY_REVOKED}; answers how many went. */
    public int revokeAll(String userId, ClientContext client) {
        String user = Inputs.userId(userId);
        // The deletions and their audit entries: one unit of work (on the embedded store one transaction).
        return units.run("revoke every passkey", () -> revoked(user, passkeys.delete(user, Optional.empty()), client));
    }

    private int revoked(String user, List<Passkey> deleted, ClientContext client) {
        for (Passkey passkey : deleted) {
            Map<String, String> details = new LinkedHashMap<>();
            details.put("credentialId", passkey.credentialId());
            details.put("label", passkey.label());
            audit.recordSuccess(user, AuditEventType.PASSKEY_REVOKED, details, client);
        }
        return deleted.size();
    }

    // Helpers

    private PasskeyChallenge newChallenge(PasskeyChallenge.Purpose purpose, Optional<String> user,
                                          Optional<String> handle) {
        Instant expiresAt = Instants.wholeSecond(Instants.toMillis(clock.instant()).plus(policy.challengeLifetime()));
        PasskeyChallenge challenge = new PasskeyChallenge(B64.encodeToString(randomBytes(CHALLENGE_BYTES)), purpose,
                user, handle, expiresAt, Optional.empty());
        passkeys.insertChallenge(challenge);
        return challenge;
    }

    /** Whether the challenge has the length of every challenge this service makes (unpadded base64url). */
    private static boolean ours(String challenge) {
        return challenge.length() == (CHALLENGE_BYTES * 4 + 2) / 3;
    }

    private ServerProperty serverProperty(String challenge) {
        return ServerProperty.builder().origins(origins).rpId(policy.rpId())
                .challenge(new DefaultChallenge(challenge)).build();
    }

    private CredentialRecordImpl record(Passkey passkey) {
        COSEKey key = converter.getCborConverter().readValue(passkey.publicKey(), COSEKey.class);
        AttestedCredentialData credential = new AttestedCredentialData(new AAGUID(passkey.aaguid()),
                Base64.getUrlDecoder().decode(passkey.credentialId()), key);
        return new CredentialRecordImpl(null, passkey.userVerified(), passkey.backupEligible(), passkey.backedUp(),
                passkey.signCount(), credential, null, null, null,
                passkey.transports().stream().map(AuthenticatorTransport::create).collect(Collectors.toSet()));
    }

    private CredentialDescriptor decoy(String user) {
        // An HMAC under the current key: the same decoy on every instance, and none of a real user's ids.
        byte[] digest = Base64.getUrlDecoder().decode(keys.currentDigest("passkey-decoy:" + user));
        return new CredentialDescriptor(B64.encodeToString(Arrays.copyOf(digest, DECOY_ID_BYTES)),
                Set.of("internal", "hybrid"));
    }

    private static List<CredentialDescriptor> descriptors(List<Passkey> passkeys) {
        return passkeys.stream().map(passkey -> new CredentialDescriptor(passkey.credentialId(),
                passkey.transports())).toList();
    }

    private String userVerification() {
        return policy.userVerificationRequired() ? "required" : "preferred";
    }

    private byte[] randomBytes(int count) {
        byte[] bytes = new byte[count];
        tokens.random().nextBytes(bytes);
        return bytes;
    }

    private PasskeyVerification invalid(Passkey passkey, PasskeyVerification.Reason reason, String check,
                                        ClientContext client) {
        Map<String, String> details = new LinkedHashMap<>();
        details.put("credentialId", passkey.credentialId());
        details.put("check", check);
        audit.recordFailure(passkey.userId(), AuditEventType.PASSKEY_VERIFICATION_FAILED, reason.name(), details,
                client);
        return new PasskeyVerification.Invalid(reason, check);
    }

    /** The check a verification failure names: the exception's kind, such as {@code BadOrigin}. */
    private static String check(VerificationException e) {
        return e.getClass().getSimpleName().replaceFirst("Exception$", "");
    }

    /** A read made beside the attempt's place: when it failed, the place goes back before the failure goes up. */
    private static <T> T readOrGiveBack(Optional<Attempt> held, Supplier<T> read) {
        return held.isPresent() ? held.get().tested(read) : read.get();
    }

    private static <T> T parsed(String field, Supplier<T> parse) {
        try {
            return parse.get();
        } catch (RuntimeException e) {
            // webauthn4j reports malformed input as DataConversionException or as Jackson's own exceptions, and a
            // response without one of its parts as a missing value.
            throw new InvalidInputException(field, "is not a WebAuthn response: malformed JSON, base64url or CBOR");
        }
    }

    private static String credentialId(String value) {
        String id = Inputs.required("credentialId", value);
        if (!id.matches("[A-Za-z0-9_-]{1,344}")) {
            throw new InvalidInputException("credentialId", "must be the base64url credential id");
        }
        return id;
    }
}
