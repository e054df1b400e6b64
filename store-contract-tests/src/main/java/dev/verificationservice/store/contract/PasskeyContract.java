package dev.verificationservice.store.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.verificationservice.Verification;
import dev.verificationservice.VerificationStore;
import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.passkeys.CredentialDescriptor;
import dev.verificationservice.passkeys.Passkey;
import dev.verificationservice.passkeys.PasskeyCapReachedException;
import dev.verificationservice.passkeys.PasskeyChallenge;
import dev.verificationservice.passkeys.PasskeyPolicy;
import dev.verificationservice.passkeys.PasskeyRegistration;
import dev.verificationservice.passkeys.PasskeyRepository;
import dev.verificationservice.passkeys.PasskeyService;
import dev.verificationservice.passkeys.PasskeySummary;
import dev.verificationservice.passkeys.PasskeyUse;
import dev.verificationservice.passkeys.PasskeyVerification;
import dev.verificationservice.passkeys.RegistrationOptions;
import dev.verificationservice.passkeys.SignInOptions;
import dev.verificationservice.ratelimit.RateLimitPolicy;
import dev.verificationservice.security.SecureTokens;
import dev.verificationservice.testsupport.concurrency.MeetingPoints;
import dev.verificationservice.testsupport.passkeys.SoftwareAuthenticator;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/**
 * Passkeys on the store: register and sign in, a challenge used at most once (a replay; thirty concurrent
 * verifications over two service instances), a sign count that goes backwards refused and audited, synced passkeys'
 * zero counts, wrong origin and RP ID, the cap, and the lifecycle. A {@link SoftwareAuthenticator} plays the
 * browser and its passkey.
 */
public abstract class PasskeyContract extends ContractPart {

    protected static final String RP_ID = "example.com";
    protected static final String ORIGIN = "https://login.example.com";
    private static final ClientContext CLIENT = ClientContext.none();
    /** Roomy enough that thirty simultaneous verifications all reach the store's write. */
    private static final PasskeyPolicy POLICY = new PasskeyPolicy(RP_ID, "Example", Set.of(ORIGIN),
            PasskeyPolicy.DEFAULT_CHALLENGE_LIFETIME, 3, false, new RateLimitPolicy(50, Duration.ofMinutes(15)));

    /** Attempt ids of this test: DynamoDB keeps a transaction's token for ten minutes, across the tests' tables. */
    private final String firstAttempt = "attempt-" + UUID.randomUUID();
    private final String secondAttempt = "attempt-" + UUID.randomUUID();

    protected PasskeyContract(ContractFixture fixture) {
        super(fixture);
    }

    private static PasskeyRepository passkeys(VerificationStore store) {
        return store.passkeys();
    }

    private PasskeyService service(VerificationStore on, PasskeyRepository repository) {
        Verification verification = Verification.builder().store(on).keys(keys()).sender(outbox()).clock(clock())
                .build();
        return new PasskeyService(repository, POLICY, verification.attempts(), verification.audit(), keys(),
                new SecureTokens(), clock(), on.units());
    }

    private PasskeyService service() {
        return service(store(), passkeys(store()));
    }

    private SoftwareAuthenticator registered(PasskeyService service, String user, SoftwareAuthenticator key) {
        RegistrationOptions options = service.registrationOptions(user, Optional.empty(), Optional.empty());
        PasskeyRegistration registration = service.register(user, key.register(options.challenge(), RP_ID, ORIGIN,
                options.userHandle()), Optional.of("Laptop"), CLIENT);
        assertThat(registration).isInstanceOf(PasskeyRegistration.Registered.class);
        return key;
    }

    private PasskeyVerification signIn(PasskeyService service, String user, SoftwareAuthenticator key) {
        SignInOptions options = service.signInOptions(Optional.of(user));
        return service.verify(key.sign(options.challenge(), RP_ID, ORIGIN), Optional.of(user), CLIENT);
    }

    @Test
    void aPasskeyRegistersAndSignsIn() {
        PasskeyService service = service();
        RegistrationOptions options = service.registrationOptions("ada", Optional.empty(), Optional.empty());
        assertThat(options.userHandle()).isNotEqualTo("ada").hasSize(43);
        assertThat(options.attestation()).isEqualTo("none");
        assertThat(options.algorithms()).containsExactly(-7L, -8L, -257L);
        SoftwareAuthenticator key = SoftwareAuthenticator.withCounter();

        PasskeyRegistration registration = service.register("ada", key.register(options.challenge(), RP_ID, ORIGIN,
                options.userHandle()), Optional.of("Laptop"), CLIENT);

        assertThat(registration).isInstanceOfSatisfying(PasskeyRegistration.Registered.class, registered -> {
            assertThat(registered.passkey().credentialId()).isEqualTo(key.credentialId());
            assertThat(registered.passkey().label()).isEqualTo("Laptop");
            assertThat(registered.passkey().transports()).containsExactly("internal");
        });
        Passkey stored = passkeys(store()).findPasskey(key.credentialId()).orElseThrow();
        assertThat(stored.userHandle()).isEqualTo(options.userHandle());
        assertThat(stored.signCount()).isEqualTo(1);
        assertThat(service.signInOptions(Optional.of("ada")).allowCredentials()).extracting(CredentialDescriptor::id)
                .containsExactly(key.credentialId());
        assertThat(service.registrationOptions("ada", Optional.empty(), Optional.empty()).excludeCredentials())
                .extracting(CredentialDescriptor::id).containsExactly(key.credentialId());

        assertThat(signIn(service, "ada", key)).isEqualTo(new PasskeyVerification.Valid("ada", key.credentialId()));
        assertThat(passkeys(store()).findPasskey(key.credentialId()).orElseThrow().signCount()).isEqualTo(2);
        assertThat(auditTypes("ada")).containsExactly(AuditEventType.PASSKEY_VERIFIED, AuditEventType.PASSKEY_ADDED);
    }

    @Test
    void aUsernameLessSignInFindsTheUserByTheCredential() {
        PasskeyService service = service();
        SoftwareAuthenticator key = registered(service, "ada", SoftwareAuthenticator.synced());
        SignInOptions options = service.signInOptions(Optional.empty());
        assertThat(options.allowCredentials()).isEmpty();

        assertThat(service.verify(key.sign(options.challenge(), RP_ID, ORIGIN), Optional.empty(), CLIENT))
                .isEqualTo(new PasskeyVerification.Valid("ada", key.credentialId()));
    }

    @Test
    void aUsernameLessSignInNeedsThePasskeysOwnUserHandle() {
        PasskeyService service = service();
        SoftwareAuthenticator key = registered(service, "ada", SoftwareAuthenticator.synced());
        String adas = passkeys(store()).findPasskey(key.credentialId()).orElseThrow().userHandle();
        String bobs = passkeys(store()).userHandle("bob", "Ym9icy1oYW5kbGUtb2YtdGhpcnR5LXR3by1ieXRlcyE");
        SignInOptions options = service.signInOptions(Optional.empty());
        PasskeyVerification unknown = new PasskeyVerification.Invalid(PasskeyVerification.Reason.UNKNOWN_CREDENTIAL,
                "credential id");

        key.setUserHandle(null);
        assertThat(service.verify(key.sign(options.challenge(), RP_ID, ORIGIN), Optional.empty(), CLIENT))
                .isEqualTo(unknown);
        key.setUserHandle(bobs);
        assertThat(service.verify(key.sign(options.challenge(), RP_ID, ORIGIN), Optional.empty(), CLIENT))
                .isEqualTo(unknown);
        assertThat(verification().rateLimiter().currentOverWindows("ada", PasskeyService.VERIFY_ACTION,
                POLICY.verifyLimit(), 0).count()).as("nothing was tested").isZero();
        assertThat(auditTypes("ada")).containsExactly(AuditEventType.PASSKEY_ADDED);

        // The challenge is still open; and where the options named the user, a key that sends no handle signs in.
        key.setUserHandle(adas);
        assertThat(service.verify(key.sign(options.challenge(), RP_ID, ORIGIN), Optional.empty(), CLIENT))
                .isEqualTo(new PasskeyVerification.Valid("ada", key.credentialId()));
        key.setUserHandle(null);
        assertThat(signIn(service, "ada", key)).isInstanceOf(PasskeyVerification.Valid.class);
        SignInOptions named = service.signInOptions(Optional.of("ada"));
        assertThat(service.verify(key.sign(named.challenge(), RP_ID, ORIGIN), Optional.empty(), CLIENT))
                .isInstanceOf(PasskeyVerification.Valid.class);
    }

    @Test
    void aFailedUsernameLessAssertionIsAWrongGuessOfThePasskeysUser() {
        PasskeyService service = service();
        SoftwareAuthenticator key = registered(service, "ada", SoftwareAuthenticator.synced());
        SignInOptions options = service.signInOptions(Optional.empty());

        assertThat(service.verify(key.sign(options.challenge(), RP_ID, "https://evil.example.net"), Optional.empty(),
                CLIENT)).isEqualTo(new PasskeyVerification.Invalid(PasskeyVerification.Reason.REJECTED, "BadOrigin"));
        assertThat(verification().rateLimiter().currentOverWindows("ada", PasskeyService.VERIFY_ACTION,
                POLICY.verifyLimit(), 0).count()).isOne();
        assertThat(auditTypes("ada")).first().isEqualTo(AuditEventType.PASSKEY_VERIFICATION_FAILED);
        assertThat(passkeys(store()).findChallenge(options.challenge()).orElseThrow().consumedBy()).isEmpty();
    }

    @Test
    void anotherUsersOrARegistrationsChallengeSignsNoOneInAndIsNoWrongGuess() {
        PasskeyService service = service();
        SoftwareAuthenticator key = registered(service, "ada", SoftwareAuthenticator.withCounter());
        String bobs = service.signInOptions(Optional.of("bob")).challenge();
        String registration = service.registrationOptions("ada", Optional.empty(), Optional.empty()).challenge();
        PasskeyVerification notOpen = new PasskeyVerification.Invalid(PasskeyVerification.Reason.CHALLENGE_NOT_OPEN,
                "challenge");

        assertThat(service.verify(key.sign(bobs, RP_ID, ORIGIN), Optional.of("ada"), CLIENT)).isEqualTo(notOpen);
        assertThat(service.verify(key.sign(bobs, RP_ID, ORIGIN), Optional.empty(), CLIENT)).isEqualTo(notOpen);
        assertThat(service.verify(key.sign(registration, RP_ID, ORIGIN), Optional.of("ada"), CLIENT))
                .isEqualTo(notOpen);

        assertThat(verification().rateLimiter().currentOverWindows("ada", PasskeyService.VERIFY_ACTION,
                POLICY.verifyLimit(), 0).count()).isZero();
        assertThat(passkeys(store()).findPasskey(key.credentialId()).orElseThrow().signCount()).isEqualTo(1);
        assertThat(passkeys(store()).findChallenge(bobs).orElseThrow().consumedBy()).isEmpty();
        assertThat(auditTypes("ada")).doesNotContain(AuditEventType.PASSKEY_VERIFIED);
        assertThat(signIn(service, "ada", key)).isInstanceOf(PasskeyVerification.Valid.class);
    }

    @Test
    void aChallengeOrCredentialIdLongerThanAnyOfOursIsRefusedWithNoStoreError() {
        PasskeyService service = service();
        SoftwareAuthenticator key = registered(service, "ada", SoftwareAuthenticator.withCounter());
        // Longer than any key a store takes (DynamoDB's partition key: 2,048 bytes).
        String tooLong = "A".repeat(3_000);
        PasskeyVerification notOpen = new PasskeyVerification.Invalid(PasskeyVerification.Reason.CHALLENGE_NOT_OPEN,
                "challenge");

        assertThat(service.verify(key.sign(tooLong, RP_ID, ORIGIN), Optional.of("ada"), CLIENT)).isEqualTo(notOpen);
        assertThat(service.verify(key.sign(tooLong, RP_ID, ORIGIN), Optional.empty(), CLIENT)).isEqualTo(notOpen);
        SoftwareAuthenticator longId = SoftwareAuthenticator.withCredentialIdBytes(2_048);
        longId.setUserHandle(passkeys(store()).findPasskey(key.credentialId()).orElseThrow().userHandle());
        assertThat(service.verify(longId.sign(service.signInOptions(Optional.empty()).challenge(), RP_ID, ORIGIN),
                Optional.empty(), CLIENT)).isEqualTo(new PasskeyVerification.Invalid(
                PasskeyVerification.Reason.UNKNOWN_CREDENTIAL, "credential id"));
        RegistrationOptions options = service.registrationOptions("ada", Optional.empty(), Optional.empty());
        assertThat(service.register("ada", SoftwareAuthenticator.withCounter().register(tooLong, RP_ID, ORIGIN,
                options.userHandle()), Optional.empty(), CLIENT)).isEqualTo(new PasskeyRegistration.NotRegistered(
                PasskeyRegistration.Reason.CHALLENGE_NOT_OPEN, "challenge"));

        assertThat(verification().rateLimiter().currentOverWindows("ada", PasskeyService.VERIFY_ACTION,
                POLICY.verifyLimit(), 0).count()).isZero();
        assertThat(service.list("ada")).hasSize(1);
        assertThat(signIn(service, "ada", key)).isInstanceOf(PasskeyVerification.Valid.class);
    }

    @Test
    void aChallengeRegistersOnceAndAnotherUsersChallengeRegistersNothing() {
        PasskeyService service = service();
        RegistrationOptions options = service.registrationOptions("ada", Optional.empty(), Optional.empty());
        String response = SoftwareAuthenticator.withCounter().register(options.challenge(), RP_ID, ORIGIN,
                options.userHandle());

        assertThat(service.register("bob", response, Optional.empty(), CLIENT)).isEqualTo(
                new PasskeyRegistration.NotRegistered(PasskeyRegistration.Reason.CHALLENGE_NOT_OPEN, "challenge"));
        assertThat(service.register("ada", response, Optional.empty(), CLIENT))
                .isInstanceOf(PasskeyRegistration.Registered.class);
        String again = SoftwareAuthenticator.withCounter().register(options.challenge(), RP_ID, ORIGIN,
                options.userHandle());
        assertThat(service.register("ada", again, Optional.empty(), CLIENT)).isEqualTo(
                new PasskeyRegistration.NotRegistered(PasskeyRegistration.Reason.CHALLENGE_NOT_OPEN, "challenge"));
        assertThat(service.list("ada")).hasSize(1);
        // Each refusal is audited for the user it was made for, and nothing else was written.
        assertThat(auditTypes("ada")).containsExactly(AuditEventType.PASSKEY_REGISTRATION_FAILED,
                AuditEventType.PASSKEY_ADDED);
        assertThat(auditTypes("bob")).containsExactly(AuditEventType.PASSKEY_REGISTRATION_FAILED);
        assertThat(service.list("bob")).isEmpty();
    }

    @Test
    void aReplayedAssertionIsRefusedAndCountsNoWrongGuess() {
        PasskeyService service = service();
        SoftwareAuthenticator key = registered(service, "ada", SoftwareAuthenticator.withCounter());
        SignInOptions options = service.signInOptions(Optional.of("ada"));
        String assertion = key.sign(options.challenge(), RP_ID, ORIGIN);

        assertThat(service.verify(assertion, Optional.of("ada"), CLIENT)).isInstanceOf(PasskeyVerification.Valid.class);
        assertThat(service.verify(assertion, Optional.of("ada"), CLIENT)).isEqualTo(new PasskeyVerification.Invalid(
                PasskeyVerification.Reason.CHALLENGE_NOT_OPEN, "challenge"));
        assertThat(verification().rateLimiter().currentOverWindows("ada", PasskeyService.VERIFY_ACTION,
                POLICY.verifyLimit(), 0).count()).isZero();
    }

    @Test
    void thirtyConcurrentVerificationsOfOneAssertionOverTwoInstancesGiveExactlyOneSuccess() throws Exception {
        SoftwareAuthenticator key = registered(service(), "ada", SoftwareAuthenticator.withCounter());
        SignInOptions options = service().signInOptions(Optional.of("ada"));
        String assertion = key.sign(options.challenge(), RP_ID, ORIGIN);
        MeetingPoints reads = new MeetingPoints();
        List<PasskeyService> instances = List.of(meetingAtChallengeReads(reads, store()),
                meetingAtChallengeReads(reads, anotherInstance()));
        // Every verification reads the challenge open before any of them writes.
        reads.meet(options.challenge(), 30);
        AtomicInteger turn = new AtomicInteger();

        List<PasskeyVerification> answers = runConcurrently(30, () -> instances.get(turn.getAndIncrement() % 2)
                .verify(assertion, Optional.of("ada"), CLIENT));

        assertThat(answers).filteredOn(PasskeyVerification.Valid.class::isInstance).hasSize(1);
        assertThat(answers).filteredOn(answer -> !(answer instanceof PasskeyVerification.Valid)).hasSize(29)
                .allSatisfy(answer -> assertThat(answer).isEqualTo(new PasskeyVerification.Invalid(
                        PasskeyVerification.Reason.CHALLENGE_NOT_OPEN, "challenge")));
        assertThat(auditTypes("ada")).filteredOn(AuditEventType.PASSKEY_VERIFIED::equals).hasSize(1);
        assertThat(passkeys(store()).findPasskey(key.credentialId()).orElseThrow().signCount()).isEqualTo(2);
    }

    @Test
    void thirtyConcurrentUsernameLessVerificationsOverTwoInstancesGiveExactlyOneSuccess() throws Exception {
        SoftwareAuthenticator key = registered(service(), "ada", SoftwareAuthenticator.withCounter());
        SignInOptions options = service().signInOptions(Optional.empty());
        String assertion = key.sign(options.challenge(), RP_ID, ORIGIN);
        MeetingPoints reads = new MeetingPoints();
        List<PasskeyService> instances = List.of(meetingAtChallengeReads(reads, store()),
                meetingAtChallengeReads(reads, anotherInstance()));
        // Each takes its place once the credential named the user: every one reads the challenge open first.
        reads.meet(options.challenge(), 30);
        AtomicInteger turn = new AtomicInteger();

        List<PasskeyVerification> answers = runConcurrently(30, () -> instances.get(turn.getAndIncrement() % 2)
                .verify(assertion, Optional.empty(), CLIENT));

        assertThat(answers).filteredOn(PasskeyVerification.Valid.class::isInstance).singleElement()
                .isEqualTo(new PasskeyVerification.Valid("ada", key.credentialId()));
        assertThat(answers).filteredOn(answer -> !(answer instanceof PasskeyVerification.Valid)).hasSize(29)
                .allSatisfy(answer -> assertThat(answer).isEqualTo(new PasskeyVerification.Invalid(
                        PasskeyVerification.Reason.CHALLENGE_NOT_OPEN, "challenge")));
        assertThat(auditTypes("ada")).filteredOn(AuditEventType.PASSKEY_VERIFIED::equals).hasSize(1);
        assertThat(passkeys(store()).findPasskey(key.credentialId()).orElseThrow().signCount()).isEqualTo(2);
        assertThat(verification().rateLimiter().currentOverWindows("ada", PasskeyService.VERIFY_ACTION,
                POLICY.verifyLimit(), 0).count()).as("every place given back").isZero();
    }

    private PasskeyService meetingAtChallengeReads(MeetingPoints reads, VerificationStore on) {
        return service(on, reads.around(PasskeyRepository.class, passkeys(on), "findChallenge", args -> args[0]));
    }

    @Test
    void aReplayThatReadTheChallengeBeforeTheWinnerAndThePasskeyAfterItIsNoClone() {
        PasskeyService service = service();
        SoftwareAuthenticator key = registered(service, "ada", SoftwareAuthenticator.withCounter());
        SignInOptions options = service.signInOptions(Optional.of("ada"));
        Optional<PasskeyChallenge> beforeTheWinner = passkeys(store()).findChallenge(options.challenge());
        String assertion = key.sign(options.challenge(), RP_ID, ORIGIN);
        assertThat(service.verify(assertion, Optional.of("ada"), CLIENT)).isInstanceOf(PasskeyVerification.Valid.class);

        // The loser's first read of the challenge was made before the winner's write, its read of the passkey after.
        PasskeyRepository real = passkeys(store());
        AtomicInteger challengeReads = new AtomicInteger();
        PasskeyRepository interleaved = (PasskeyRepository) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {PasskeyRepository.class}, (proxy, method, args) -> {
                    if (method.getName().equals("findChallenge") && challengeReads.getAndIncrement() == 0) {
                        return beforeTheWinner;
                    }
                    try {
                        return method.invoke(real, args);
                    } catch (InvocationTargetException e) {
                        throw e.getCause();
                    }
                });

        assertThat(service(store(), interleaved).verify(assertion, Optional.of("ada"), CLIENT)).isEqualTo(
                new PasskeyVerification.Invalid(PasskeyVerification.Reason.CHALLENGE_NOT_OPEN, "challenge"));
        assertThat(auditTypes("ada")).doesNotContain(AuditEventType.PASSKEY_CLONE_WARNING);
        assertThat(verification().rateLimiter().currentOverWindows("ada", PasskeyService.VERIFY_ACTION,
                POLICY.verifyLimit(), 0).count()).as("no wrong guess").isZero();
    }

    @Test
    void aSignCountThatGoesBackwardsIsRefusedAsPossiblyClonedAuditedAndAnEvent() {
        subscribe(store(), "passkey.clone.warning");
        PasskeyService service = service();
        SoftwareAuthenticator key = registered(service, "ada", SoftwareAuthenticator.withCounter());
        assertThat(signIn(service, "ada", key)).isInstanceOf(PasskeyVerification.Valid.class);
        key.setSignCount(0);

        assertThat(signIn(service, "ada", key)).isEqualTo(new PasskeyVerification.Invalid(
                PasskeyVerification.Reason.POSSIBLY_CLONED, "signCount"));
        assertThat(auditTypes("ada")).first().isEqualTo(AuditEventType.PASSKEY_CLONE_WARNING);
        assertThat(passkeys(store()).findPasskey(key.credentialId()).orElseThrow().signCount()).isEqualTo(2);
        // The operator's cue to revoke the passkey reaches a subscribed endpoint, naming the passkey and both counts.
        indexCatchesUp();
        assertThat(store().webhooks().undeliveredEvents(100)).singleElement().satisfies(event -> {
            assertThat(event.eventType()).isEqualTo(AuditEventType.PASSKEY_CLONE_WARNING);
            assertThat(event.details()).containsEntry("credentialId", key.credentialId())
                    .containsEntry("storedSignCount", "2").containsEntry("presentedSignCount", "1");
        });
    }

    @Test
    void aSyncedPasskeySendingZeroOnBothSidesIsNoClone() {
        PasskeyService service = service();
        SoftwareAuthenticator key = registered(service, "ada", SoftwareAuthenticator.synced());

        assertThat(signIn(service, "ada", key)).isInstanceOf(PasskeyVerification.Valid.class);
        assertThat(signIn(service, "ada", key)).isInstanceOf(PasskeyVerification.Valid.class);
        Passkey stored = passkeys(store()).findPasskey(key.credentialId()).orElseThrow();
        assertThat(stored.signCount()).isZero();
        assertThat(stored.backupEligible()).isTrue();
        assertThat(stored.lastUsedAt()).contains(clock().instant());
    }

    @Test
    void aWrongOriginOrRpIdIsRefusedAndCountedAsAWrongGuess() {
        PasskeyService service = service();
        SoftwareAuthenticator key = registered(service, "ada", SoftwareAuthenticator.withCounter());

        SignInOptions first = service.signInOptions(Optional.of("ada"));
        assertThat(service.verify(key.sign(first.challenge(), RP_ID, "https://evil.example.net"), Optional.of("ada"),
                CLIENT)).isEqualTo(new PasskeyVerification.Invalid(PasskeyVerification.Reason.REJECTED, "BadOrigin"));
        SignInOptions second = service.signInOptions(Optional.of("ada"));
        assertThat(service.verify(key.sign(second.challenge(), "evil.example.net", ORIGIN), Optional.of("ada"),
                CLIENT)).isEqualTo(new PasskeyVerification.Invalid(PasskeyVerification.Reason.REJECTED, "BadRpId"));

        assertThat(verification().rateLimiter().currentOverWindows("ada", PasskeyService.VERIFY_ACTION,
                POLICY.verifyLimit(), 0).count()).isEqualTo(2);
        assertThat(auditTypes("ada")).filteredOn(AuditEventType.PASSKEY_VERIFICATION_FAILED::equals).hasSize(2);
        assertThat(signIn(service, "ada", key)).isInstanceOf(PasskeyVerification.Valid.class);
    }

    @Test
    void anExpiredChallengeIsRefusedAndAnUnknownCredentialIsNamed() {
        PasskeyService service = service();
        SoftwareAuthenticator key = registered(service, "ada", SoftwareAuthenticator.withCounter());
        SignInOptions options = service.signInOptions(Optional.of("ada"));
        clock().advance(PasskeyPolicy.DEFAULT_CHALLENGE_LIFETIME);

        assertThat(service.verify(key.sign(options.challenge(), RP_ID, ORIGIN), Optional.of("ada"), CLIENT))
                .isEqualTo(new PasskeyVerification.Invalid(PasskeyVerification.Reason.CHALLENGE_NOT_OPEN,
                        "challenge"));
        SignInOptions fresh = service.signInOptions(Optional.empty());
        assertThat(service.verify(SoftwareAuthenticator.withCounter().sign(fresh.challenge(), RP_ID, ORIGIN),
                Optional.empty(), CLIENT)).isEqualTo(new PasskeyVerification.Invalid(
                PasskeyVerification.Reason.UNKNOWN_CREDENTIAL, "credential id"));
        assertField(() -> service.verify("{\"id\":", Optional.empty(), CLIENT), "credential");
        assertField(() -> service.verify("{\"type\":\"public-key\",\"response\":{}}", Optional.empty(), CLIENT),
                "credential");
        assertField(() -> service.verify(fresh.challenge(), Optional.empty(), CLIENT), "credential");
        assertField(() -> service.register("ada", "{\"id\":\"x\",\"rawId\":\"!!\",\"type\":\"public-key\","
                + "\"response\":{\"clientDataJSON\":\"e30\",\"attestationObject\":\"oA\"}}", Optional.empty(),
                CLIENT), "credential");
        assertField(() -> service.register("ada", "{\"type\":\"public-key\",\"response\":{}}", Optional.empty(),
                CLIENT), "credential");
    }

    @Test
    void anUnknownUserGetsTheSameShapeOfOptionsEveryTime() {
        PasskeyService service = service();
        SignInOptions first = service.signInOptions(Optional.of("nobody"));
        SignInOptions second = service(anotherInstance(), passkeys(anotherInstance())).signInOptions(
                Optional.of("nobody"));

        assertThat(first.allowCredentials()).hasSize(1).isEqualTo(second.allowCredentials());
        assertThat(first.allowCredentials().get(0).id()).hasSize(22);
        assertThat(first.challenge()).isNotEqualTo(second.challenge());
    }

    @Test
    void theCapRefusesOptionsBeyondItAndTheLifecycleListsRenamesAndRevokes() {
        PasskeyService service = service();
        List<SoftwareAuthenticator> keys = List.of(registered(service, "ada", SoftwareAuthenticator.withCounter()),
                registered(service, "ada", SoftwareAuthenticator.synced()),
                registered(service, "ada", SoftwareAuthenticator.withCounter()));
        assertThatThrownBy(() -> service.registrationOptions("ada", Optional.empty(), Optional.empty()))
                .isInstanceOfSatisfying(PasskeyCapReachedException.class, refused -> assertThat(refused.cap())
                        .isEqualTo(POLICY.maxPasskeys()));

        assertThat(service.rename("ada", keys.get(0).credentialId(), "Work laptop")).isTrue();
        assertThat(service.rename("bob", keys.get(0).credentialId(), "Mine")).isFalse();
        assertThat(service.list("ada")).extracting(PasskeySummary::label).contains("Work laptop");
        assertThat(service.revoke("ada", keys.get(1).credentialId(), CLIENT)).isTrue();
        assertThat(service.revoke("ada", keys.get(1).credentialId(), CLIENT)).isFalse();
        assertThat(signIn(service, "ada", keys.get(1))).isEqualTo(new PasskeyVerification.Invalid(
                PasskeyVerification.Reason.UNKNOWN_CREDENTIAL, "credential id"));
        assertThat(service.revokeAll("ada", CLIENT)).isEqualTo(2);
        assertThat(service.list("ada")).isEmpty();
        assertThat(auditTypes("ada")).filteredOn(AuditEventType.PASSKEY_REVOKED::equals).hasSize(3);
    }

    @Test
    void aRegistrationWrittenTwiceByOneAttemptIsStoredOnce() {
        PasskeyRepository repository = passkeys(store());
        PasskeyService service = service();
        RegistrationOptions options = service.registrationOptions("ada", Optional.empty(), Optional.empty());
        SoftwareAuthenticator key = SoftwareAuthenticator.withCounter();
        Passkey passkey = new Passkey("ada", key.credentialId(), options.userHandle(), "Laptop", new byte[] {1, 2},
                0, Set.of(), false, false, true, "00000000-0000-0000-0000-000000000000", clock().instant(),
                Optional.empty());
        AuditEntry added = verification().audit().newEntry("ada", AuditEventType.PASSKEY_ADDED, true, Optional.empty(),
                Map.of("credentialId", key.credentialId()), CLIENT);

        assertThat(repository.register(options.challenge(), firstAttempt, clock().instant(), passkey, added, 3))
                .isEqualTo(PasskeyRepository.Registered.STORED);
        assertThat(repository.register(options.challenge(), firstAttempt, clock().instant(), passkey, added, 3))
                .isEqualTo(PasskeyRepository.Registered.STORED);
        assertThat(repository.register(options.challenge(), secondAttempt, clock().instant(), passkey, added, 3))
                .isEqualTo(PasskeyRepository.Registered.CHALLENGE_NOT_OPEN);
        assertThat(repository.findPasskeys("ada")).hasSize(1);
        assertThat(auditTypes("ada")).containsExactly(AuditEventType.PASSKEY_ADDED);
    }

    @Test
    void anAssertionWrittenTwiceByOneAttemptIsAcceptedOnceAndAnotherAttemptIsRefused() {
        Optional<AnswerLosingStore> losing = answerLosingStore();
        subscribe(store()); // the entry is then an event, which is how a lost answer finds its write
        VerificationStore on = losing.map(AnswerLosingStore::store).orElse(store());
        PasskeyService service = service();
        SoftwareAuthenticator key = registered(service, "ada", SoftwareAuthenticator.withCounter());
        SignInOptions options = service.signInOptions(Optional.of("ada"));
        PasskeyRepository repository = passkeys(on);
        AuditEntry verified = verification().audit().newEntry("ada", AuditEventType.PASSKEY_VERIFIED, true,
                Optional.empty(), Map.of("credentialId", key.credentialId()), CLIENT);
        PasskeyUse use = new PasskeyUse(options.challenge(), "ada", key.credentialId(), 1, 2, false,
                clock().instant(), firstAttempt, verified, Optional.empty());

        // Where the store's client resends on its own (an answer lost), that is the retry; elsewhere, a second call.
        losing.ifPresent(AnswerLosingStore::loseNextAnswer);
        assertThat(repository.acceptAssertion(use)).isTrue();
        if (losing.isPresent()) {
            assertThat(losing.get().answersLost()).isEqualTo(1);
        } else {
            assertThat(repository.acceptAssertion(use)).as("a retry of the write that won").isTrue();
        }
        assertThat(repository.acceptAssertion(new PasskeyUse(options.challenge(), "ada", key.credentialId(), 2, 3,
                false, clock().instant(), secondAttempt, verified, Optional.empty()))).isFalse();
        assertThat(repository.findPasskey(key.credentialId()).orElseThrow().signCount()).isEqualTo(2);
        assertThat(auditTypes("ada")).filteredOn(AuditEventType.PASSKEY_VERIFIED::equals).hasSize(1);
        assertThat(repository.findChallenge(options.challenge()).orElseThrow().consumedBy()).contains(firstAttempt);
    }

    @Test
    void thirtyConcurrentVerificationsWithAnAnswerLostGiveExactlyOneSuccess() throws Exception {
        thirtyConcurrentWithAnAnswerLost(Optional.of("ada"));
    }

    @Test
    void thirtyConcurrentUsernameLessVerificationsWithAnAnswerLostGiveExactlyOneSuccess() throws Exception {
        thirtyConcurrentWithAnAnswerLost(Optional.empty());
    }

    private void thirtyConcurrentWithAnAnswerLost(Optional<String> named) throws Exception {
        Optional<AnswerLosingStore> losing = answerLosingStore();
        assumeTrue(losing.isPresent(), "this store's client resends nothing on its own");
        subscribe(store()); // the entry is then an event, which is how a lost answer finds its write
        SoftwareAuthenticator key = registered(service(), "ada", SoftwareAuthenticator.withCounter());
        SignInOptions options = service().signInOptions(named);
        String assertion = key.sign(options.challenge(), RP_ID, ORIGIN);
        MeetingPoints reads = new MeetingPoints();
        List<PasskeyService> instances = List.of(meetingAtChallengeReads(reads, losing.get().store()),
                meetingAtChallengeReads(reads, anotherInstance()));
        reads.meet(options.challenge(), 30);
        losing.get().loseNextAnswer();
        AtomicInteger turn = new AtomicInteger();

        List<PasskeyVerification> answers = runConcurrently(30, () -> instances.get(turn.getAndIncrement() % 2)
                .verify(assertion, named, CLIENT));

        assertThat(losing.get().answersLost()).isEqualTo(1);
        assertThat(answers).filteredOn(PasskeyVerification.Valid.class::isInstance).hasSize(1);
        assertThat(auditTypes("ada")).filteredOn(AuditEventType.PASSKEY_VERIFIED::equals).hasSize(1);
        assertThat(passkeys(store()).findPasskey(key.credentialId()).orElseThrow().signCount()).isEqualTo(2);
    }
}
