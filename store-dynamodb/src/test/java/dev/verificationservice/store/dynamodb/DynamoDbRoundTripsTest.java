package dev.verificationservice.store.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.Verification;
import dev.verificationservice.VerificationSettings;
import dev.verificationservice.VerificationStore;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.codes.CodeRequest;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.DevelopmentOutbox;
import dev.verificationservice.codes.FailureReason;
import dev.verificationservice.codes.IssueResult;
import dev.verificationservice.codes.VerificationResult;
import dev.verificationservice.codes.VerifyRequest;
import dev.verificationservice.passkeys.PasskeyPolicy;
import dev.verificationservice.passkeys.PasskeyRegistration;
import dev.verificationservice.passkeys.PasskeyService;
import dev.verificationservice.passkeys.PasskeyVerification;
import dev.verificationservice.passkeys.RegistrationOptions;
import dev.verificationservice.passkeys.SignInOptions;
import dev.verificationservice.security.EncryptionKeyRing;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.store.UnitOfWork;
import dev.verificationservice.testsupport.dynamodb.Dynalite;
import dev.verificationservice.testsupport.passkeys.SoftwareAuthenticator;
import dev.verificationservice.testsupport.proxies.Interposed;
import dev.verificationservice.testsupport.time.MutableClock;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * How many sequential round trips a verification and a send cost on DynamoDB, counted without timing: every request is
 * recorded as the SDK sends it, and the domain's independent calls ({@link UnitOfWork#together}) run under a unit
 * that counts a group as long as its longest call; the critical path is the round trips a caller waits for.
 */
class DynamoDbRoundTripsTest {

    @RegisterExtension
    static final Dynalite.Extension DYNALITE = new Dynalite.Extension();

    private static final SecureRandom RANDOM = new SecureRandom();
    private static final String RP_ID = "example.com";
    private static final String ORIGIN = "https://login.example.com";

    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T10:00:00Z"));
    private final DevelopmentOutbox outbox = new DevelopmentOutbox(clock);
    private final CriticalPath path = new CriticalPath();
    private DynamoDbClient client;
    private Verification verification;

    @BeforeEach
    void openStore() {
        String tableName = "verification-" + UUID.randomUUID();
        new DynamoDbTableAdmin(DYNALITE.get().transactional().client(), tableName).createTable();
        client = Dynalite.client(DYNALITE.get().transactional().endpoint(), List.of(path));
        VerificationStore dynamo = new DynamoDbVerificationStore(client, tableName, new ConsumedCapacityRecorder(), false);
        VerificationStore store = Interposed.withPort(VerificationStore.class, dynamo, "units", path.units());
        verification = Verification.builder().store(store)
                .keys(SecretKeyRing.fromBase64(List.of(SecretKeyRing.generateBase64Key(RANDOM))))
                .encryption(EncryptionKeyRing.fromBase64(List.of(EncryptionKeyRing.generateBase64Key(RANDOM))))
                .sender(outbox).clock(clock).settings(VerificationSettings.builder()
                        .passkeys(PasskeyPolicy.of(RP_ID, "Example", Set.of(ORIGIN))).build()).build();
        // The endpoints' view is one Query per instance and refresh interval, paid by the one request that finds it
        // due, not by every send: read here first, and not again within the test, so each count is the send's own.
        dynamo.eventSubscriptions().refreshEvery(Duration.ofDays(1));
        verification.audit().recordSuccess("warm", AuditEventType.DEVICES_REVOKED, Map.of(), ClientContext.none());
    }

    @AfterEach
    void closeClient() {
        client.close();
    }

    @Test
    void aNumericVerificationIsTwoSequentialRoundTrips() {
        String code = send("ann");

        int roundTrips = path.measure(() -> assertThat(verify("ann", code).valid()).isTrue());

        assertThat(roundTrips).isEqualTo(2);
    }

    @Test
    void aVerificationAfterAWrongAnswerPaysThreeMoreForItsCountInARow() {
        String code = send("bea");
        assertThat(((VerificationResult.Invalid) verify("bea", code.equals("000000") ? "111111" : "000000")).reason())
                .isEqualTo(FailureReason.NOT_FOUND);

        // Something is counted in a row: its place there is taken before the test (one more), and the success's
        // reset of it follows (the count's windows found, then cleared: two more). The sunny path pays none of them.
        int roundTrips = path.measure(() -> assertThat(verify("bea", code).valid()).isTrue());

        assertThat(roundTrips).isEqualTo(5);
    }

    @Test
    void aFirstSendIsFiveSequentialRoundTrips() {
        // The user's step, the shared places, the cooldown, the code slot, and CODE_SENT after the delivery.
        int roundTrips = path.measure(() -> send("cal"));

        assertThat(roundTrips).isEqualTo(5);
    }

    @Test
    void aResendIsFiveSequentialRoundTripsItsInvalidationWrittenWithCodeSent() {
        send("dan");
        clock.advance(java.time.Duration.ofMinutes(2));

        // A first send's five: the CODES_INVALIDATED entry of the code the slot's write replaced goes with CODE_SENT.
        int roundTrips = path.measure(() -> send("dan"));

        assertThat(roundTrips).isEqualTo(5);
        assertThat(verification.audit().query("dan", java.util.Optional.empty(), java.util.Optional.empty(),
                java.util.Optional.empty(), java.util.Optional.empty()).entries())
                .extracting(entry -> entry.eventType().name())
                .containsExactly("CODE_SENT", "CODES_INVALIDATED", "CODE_SENT");
    }

    @Test
    void eachStepOfAPasskeyRegistrationIsTwoSequentialRoundTrips() {
        PasskeyService passkeys = verification.passkeys();
        SoftwareAuthenticator key = SoftwareAuthenticator.withCounter();
        RegistrationOptions[] options = new RegistrationOptions[1];

        // The user's passkeys beside the user handle's one UpdateItem, then the challenge stored.
        assertThat(path.measure(() -> options[0] = passkeys.registrationOptions("eva", Optional.empty(),
                Optional.empty()))).isEqualTo(2);
        String response = key.register(options[0].challenge(), RP_ID, ORIGIN, options[0].userHandle());
        // The challenge, the credential id and the user's item in one BatchGetItem, then the one write of the
        // passkey with the challenge consumed and PASSKEY_ADDED.
        assertThat(path.measure(() -> assertThat(passkeys.register("eva", response, Optional.of("Laptop"),
                ClientContext.none())).isInstanceOf(PasskeyRegistration.Registered.class))).isEqualTo(2);
    }

    @Test
    void eachStepOfAPasskeySignInIsAtMostTwoSequentialRoundTripsForANamedUser() {
        PasskeyService passkeys = verification.passkeys();
        SoftwareAuthenticator key = registered(passkeys, "fay");
        SignInOptions[] options = new SignInOptions[1];

        // The user's passkeys, then the challenge stored; a user with none reads the decoy's item: as many.
        assertThat(path.measure(() -> options[0] = passkeys.signInOptions(Optional.of("fay")))).isEqualTo(2);
        assertThat(path.measure(() -> passkeys.signInOptions(Optional.of("nobody")))).isEqualTo(2);
        String assertion = key.sign(options[0].challenge(), RP_ID, ORIGIN);
        // The credential, the challenge and the attempt's place together, then the attempt write.
        assertThat(path.measure(() -> assertThat(passkeys.verify(assertion, Optional.of("fay"), ClientContext.none()))
                .isInstanceOf(PasskeyVerification.Valid.class))).isEqualTo(2);
    }

    @Test
    void aUsernameLessSignInTakesItsPlaceOnceTheCredentialHasNamedTheUser() {
        PasskeyService passkeys = verification.passkeys();
        SoftwareAuthenticator key = registered(passkeys, "gus");
        SignInOptions[] options = new SignInOptions[1];

        assertThat(path.measure(() -> options[0] = passkeys.signInOptions(Optional.empty()))).isEqualTo(1);
        String assertion = key.sign(options[0].challenge(), RP_ID, ORIGIN);
        // Whose passkey it is is known only from the credential's item: its place is one round trip later.
        assertThat(path.measure(() -> assertThat(passkeys.verify(assertion, Optional.empty(), ClientContext.none()))
                .isInstanceOf(PasskeyVerification.Valid.class))).isEqualTo(3);

        // One without the passkey's user handle is refused on the first read: no place, no test, no write.
        key.setUserHandle(null);
        String anonymous = key.sign(passkeys.signInOptions(Optional.empty()).challenge(), RP_ID, ORIGIN);
        assertThat(path.measure(() -> assertThat(passkeys.verify(anonymous, Optional.empty(), ClientContext.none()))
                .isInstanceOf(PasskeyVerification.Invalid.class))).isEqualTo(1);
    }

    private static SoftwareAuthenticator registered(PasskeyService passkeys, String userId) {
        SoftwareAuthenticator key = SoftwareAuthenticator.withCounter();
        RegistrationOptions options = passkeys.registrationOptions(userId, Optional.empty(), Optional.empty());
        assertThat(passkeys.register(userId, key.register(options.challenge(), RP_ID, ORIGIN, options.userHandle()),
                Optional.empty(), ClientContext.none())).isInstanceOf(PasskeyRegistration.Registered.class);
        return key;
    }

    private String send(String userId) {
        assertThat(verification.codes().issue(CodeRequest.of(userId, CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL,
                userId + "@example.com"))).isInstanceOf(IssueResult.Issued.class);
        return outbox.messages().get(0).code();
    }

    private VerificationResult verify(String userId, String code) {
        return verification.codes().verify(VerifyRequest.numeric(code, userId, CodeType.EMAIL_VERIFICATION));
    }

    /**
     * The longest chain of requests one after another: each request adds one to the chain of the call it is made
     * in, and a group of independent calls adds its longest call's chain. The calls run one after another on the
     * caller's thread, so every request is seen on it (a request on any other thread would escape the count).
     */
    private static final class CriticalPath implements ExecutionInterceptor {

        private final ThreadLocal<int[]> chain = new ThreadLocal<>();
        private final List<String> escaped = new ArrayList<>();
        private volatile boolean measuring;

        @Override
        public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
            int[] current = chain.get();
            if (current == null && measuring) {
                synchronized (escaped) {
                    escaped.add(Thread.currentThread().getName());
                }
            } else if (current != null) {
                current[0]++;
            }
        }

        int measure(Runnable operation) {
            chain.set(new int[1]);
            measuring = true;
            try {
                operation.run();
                assertThat(escaped).as("requests sent outside the measured calls").isEmpty();
                return chain.get()[0];
            } finally {
                measuring = false;
                chain.remove();
            }
        }

        UnitOfWork units() {
            return new UnitOfWork() {
                @Override
                public <T> T run(String what, Supplier<T> steps) {
                    return steps.get();
                }

                @Override
                public <T> List<T> together(List<Supplier<T>> calls) {
                    int[] outer = chain.get();
                    if (outer == null) {
                        return UnitOfWork.inTurn(calls);
                    }
                    int longest = 0;
                    List<Supplier<T>> measured = new ArrayList<>();
                    int[][] lengths = new int[calls.size()][];
                    for (int index = 0; index < calls.size(); index++) {
                        int at = index;
                        Supplier<T> call = calls.get(index);
                        measured.add(() -> {
                            lengths[at] = new int[1];
                            chain.set(lengths[at]);
                            try {
                                return call.get();
                            } finally {
                                chain.set(outer);
                            }
                        });
                    }
                    List<T> results;
                    try {
                        results = UnitOfWork.inTurn(measured);
                    } finally {
                        for (int[] length : lengths) {
                            longest = Math.max(longest, length == null ? 0 : length[0]);
                        }
                        outer[0] += longest;
                    }
                    return results;
                }
            };
        }
    }
}
