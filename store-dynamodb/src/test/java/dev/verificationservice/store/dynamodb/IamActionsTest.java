package dev.verificationservice.store.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.Verification;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.codes.CodeRequest;
import dev.verificationservice.codes.CodeSender;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryException;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.DevelopmentOutbox;
import dev.verificationservice.codes.IssueResult;
import dev.verificationservice.codes.VerificationResult;
import dev.verificationservice.codes.VerifyRequest;
import dev.verificationservice.devices.DeviceRegistration;
import dev.verificationservice.devices.DeviceVerification;
import dev.verificationservice.devices.RegisteredDevice;
import dev.verificationservice.recovery.RecoveryCodeIssue;
import dev.verificationservice.security.EncryptionKeyRing;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.testsupport.dynamodb.Dynalite;
import dev.verificationservice.testsupport.time.MutableClock;
import dev.verificationservice.totp.Enrolment;
import dev.verificationservice.totp.Totp;
import dev.verificationservice.totp.TotpAlgorithm;
import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.commons.codec.binary.Base32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.SdkRequest;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.TransactGetItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItem;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;

/**
 * The IAM actions of the template's policy (and so of the README) are the ones the service needs: every
 * request the store makes through the whole domain (codes sent, checked, verified, failed and undeliverable;
 * devices registered, used, listed, revoked; audit; rate limits; authenticator apps and recovery codes; the start-up
 * shape check and readiness) is
 * recorded as the IAM action that authorises it (a transaction as the actions of its parts), and the set must
 * equal the template's list: nothing missing (the service would fail on AWS with AccessDenied), nothing more
 * (least privilege).
 */
class IamActionsTest {

    @RegisterExtension
    static final Dynalite.Extension DYNALITE = new Dynalite.Extension();

    private static final String KEY = "SDTbhBfe5I9Wj1iT38oxkwrifLjf+nSS0eiTOIo68PA=";
    private static final String ENCRYPTION_KEY = "6zNRoqN42GRIublz9bAf+g9uqpvm2DUFi1keiY/33xY=";

    /** The IAM action that authorises a request; a transaction's parts each need their own. */
    static Set<String> actionsOf(SdkRequest request) {
        Set<String> actions = new TreeSet<>();
        if (request instanceof TransactWriteItemsRequest transaction) {
            for (TransactWriteItem item : transaction.transactItems()) {
                actions.add(item.put() != null ? "dynamodb:PutItem" : item.update() != null ? "dynamodb:UpdateItem"
                        : item.delete() != null ? "dynamodb:DeleteItem" : "dynamodb:ConditionCheckItem");
            }
        } else if (request instanceof TransactGetItemsRequest) {
            actions.add("dynamodb:GetItem");
        } else {
            // GetItemRequest -> dynamodb:GetItem, QueryRequest -> dynamodb:Query, ...
            String name = request.getClass().getSimpleName();
            actions.add("dynamodb:" + name.substring(0, name.length() - "Request".length()));
        }
        return actions;
    }

    private static DynamoDbClient recordingClient(URI endpoint, Set<String> used) {
        return DynamoDbClient.builder()
                .endpointOverride(endpoint)
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .httpClient(ApacheHttpClient.builder().build())
                .overrideConfiguration(config -> config.addExecutionInterceptor(new ExecutionInterceptor() {
                    @Override
                    public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
                        used.addAll(actionsOf(context.request()));
                    }
                }))
                .build();
    }

    @Test
    void theServiceUsesExactlyTheActionsThePolicyGrants() {
        Set<String> used = ConcurrentHashMap.newKeySet();
        URI endpoint = DYNALITE.get().transactional().endpoint();
        String table = "iam-" + UUID.randomUUID();
        try (DynamoDbClient admin = Dynalite.client(endpoint); DynamoDbClient service = recordingClient(endpoint, used)) {
            new DynamoDbTableAdmin(admin, table).createTable();
            runTheWholeDomain(service, table, DYNALITE.get().transactional()::releaseIndexes);
        }
        assertThat(new TreeSet<>(used)).as("the actions the service used")
                .containsExactlyInAnyOrderElementsOf(DynamoDbTemplateTest.templateActions());
    }

    /** {@code indexCatchesUp} lets the shared proxy's lagging GSI1 catch up before a listing and a count. */
    private static void runTheWholeDomain(DynamoDbClient service, String table, Runnable indexCatchesUp) {
        // At start: the shape check (DescribeTable, DescribeTimeToLive; the local engine may lack the latter).
        try {
            new DynamoDbTableAdmin(service, table).shapeDifferences(true);
        } catch (SdkException e) {
            // recorded before it was sent; only the action matters here
        }
        DynamoDbVerificationStore store = new DynamoDbVerificationStore(service, table, new ConsumedCapacityRecorder(),
                false);
        store.checkReady();

        MutableClock clock = new MutableClock(Instant.parse("2026-11-30T10:00:00Z"));
        DevelopmentOutbox outbox = new DevelopmentOutbox(clock);
        CodeSender sender = message -> {
            if (message.deliveryTarget().startsWith("bounce")) {
                throw new DeliveryException("mailbox full");
            }
            outbox.send(message);
        };
        Verification verification = Verification.builder().store(store).keys(SecretKeyRing.fromBase64(List.of(KEY)))
                .encryption(EncryptionKeyRing.fromBase64(List.of(ENCRYPTION_KEY))).sender(sender).clock(clock).build();
        String user = "iam-user";

        // Codes: a NUMERIC one sent, checked, failed, verified; a LINK one; an undeliverable one; a second request.
        IssueResult issued = verification.codes().issue(CodeRequest.of(user, CodeType.EMAIL_VERIFICATION,
                DeliveryMethod.EMAIL, "jane@example.com"));
        assertThat(issued).isInstanceOf(IssueResult.Issued.class);
        String code = outbox.messages().get(0).code();
        VerifyRequest right = VerifyRequest.numeric(code, user, CodeType.EMAIL_VERIFICATION);
        VerifyRequest wrong = VerifyRequest.numeric(code.equals("000000") ? "111111" : "000000", user,
                CodeType.EMAIL_VERIFICATION);
        assertThat(verification.codes().check(right)).isInstanceOf(VerificationResult.Valid.class);
        assertThat(verification.codes().verify(wrong)).isInstanceOf(VerificationResult.Invalid.class);
        assertThat(verification.codes().verify(right)).isInstanceOf(VerificationResult.Valid.class);
        clock.advance(Duration.ofSeconds(31));
        verification.codes().issue(CodeRequest.of(user, CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL,
                "jane@example.com"));
        verification.codes().issue(CodeRequest.of(user, CodeType.PASSWORD_RESET, DeliveryMethod.EMAIL,
                "jane@example.com"));
        String link = outbox.messages().get(0).code();
        assertThat(verification.codes().verify(VerifyRequest.link(link))).isInstanceOf(VerificationResult.Valid.class);
        assertThat(verification.codes().issue(CodeRequest.of("iam-other", CodeType.EMAIL_VERIFICATION,
                DeliveryMethod.EMAIL, "bounce@example.com"))).isInstanceOf(IssueResult.DeliveryFailed.class);
        verification.operator().rateLimits(user);

        // Devices: registered, used, listed, revoked one by one and all at once.
        RegisteredDevice laptop = verification.devices().register(DeviceRegistration.of(user, "laptop", "WEB"));
        verification.devices().register(DeviceRegistration.of(user, "phone", "IOS"));
        clock.advance(Duration.ofDays(1));
        assertThat(verification.devices().verify("laptop", laptop.secret(), ClientContext.none()))
                .isInstanceOf(DeviceVerification.Valid.class);
        indexCatchesUp.run();
        assertThat(verification.devices().list(user)).hasSize(2);
        assertThat(verification.devices().revoke(user, "laptop", ClientContext.none())).isEqualTo(1);
        indexCatchesUp.run();
        assertThat(verification.devices().revokeAll(user, ClientContext.none())).isEqualTo(1);

        // Audit, and the operator's view of the user.
        verification.audit().query(user, Optional.empty(), Optional.empty(), Optional.of(5), Optional.empty());
        verification.operator().overview(user);
        verification.operator().invalidateCodes(user, "operator-1", ClientContext.none());

        // Authenticator apps and recovery codes: enrolled, confirmed, verified, a recovery code used, a new set,
        // one factor removed, then all.
        Enrolment enrolment = verification.totp().enrol(user, Optional.empty(), Optional.empty(), ClientContext.none());
        assertThat(verification.totp().confirm(user, enrolment.factorId(), totpCode(enrolment, clock.instant()),
                ClientContext.none()).confirmed()).isTrue();
        clock.advance(Duration.ofSeconds(30));
        assertThat(verification.totp().verify(user, totpCode(enrolment, clock.instant()), ClientContext.none())
                .valid()).isTrue();
        String recoveryCode = ((RecoveryCodeIssue.Issued) verification.totp().regenerateRecoveryCodes(user,
                ClientContext.none()).orElseThrow()).codes().codes().get(0);
        assertThat(verification.recovery().verify(user, recoveryCode, ClientContext.none()).valid()).isTrue();
        Enrolment second = verification.totp().enrol(user, Optional.empty(), Optional.empty(), ClientContext.none());
        assertThat(verification.totp().remove(user, second.factorId(), ClientContext.none())).isTrue();
        assertThat(verification.totp().removeAll(user, Map.of(), ClientContext.none())).isEqualTo(1);
    }

    private static String totpCode(Enrolment enrolment, Instant at) {
        return Totp.code(new Base32().decode(enrolment.secret()), Totp.step(at, Totp.DEFAULT_PERIOD), TotpAlgorithm.SHA1,
                Totp.DEFAULT_DIGITS);
    }
}
