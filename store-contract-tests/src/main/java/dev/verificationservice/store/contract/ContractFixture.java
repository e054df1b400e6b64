package dev.verificationservice.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.Verification;
import dev.verificationservice.VerificationSettings;
import dev.verificationservice.VerificationStore;
import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.codes.CodeRequest;
import dev.verificationservice.codes.CodeSender;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.DevelopmentOutbox;
import dev.verificationservice.codes.IssueResult;
import dev.verificationservice.codes.VerificationResult;
import dev.verificationservice.codes.VerifyRequest;
import dev.verificationservice.devices.DeviceRegistration;
import dev.verificationservice.devices.RegisteredDevice;
import dev.verificationservice.security.EncryptionKeyRing;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.testsupport.time.MutableClock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * What every part of the contract suite runs on: the store of the current test, its clock and domain, and the
 * store provider's hooks. {@link AbstractVerificationStoreContractTest} is the one implementation; its
 * {@code @Nested} parts receive it, so a provider's test still extends one class and overrides its hooks there.
 */
public interface ContractFixture {

    Instant START = Instant.parse("2026-11-30T10:00:00Z");

    MutableClock clock();

    VerificationStore store();

    DevelopmentOutbox outbox();

    /** The current key, base64: a rotation test builds a ring of a new key and this one. */
    String keyBase64();

    SecretKeyRing keys();

    /** The current AES-256 key TOTP secrets are sealed with, base64: a rotation test puts a new key before it. */
    String encryptionKeyBase64();

    /** The domain on the store, with the default settings. */
    Verification verification();

    /** The domain on this store with other keys, sender or settings. */
    Verification build(SecretKeyRing ring, CodeSender sender, VerificationSettings settings);

    /**
     * Another store object on this test's table (or file), as a second service instance would open it; each call
     * opens one more, closed after the test.
     */
    VerificationStore anotherInstance();

    /** Writes an item exactly as given, bypassing every condition: for fixtures only. */
    void putRawItem(Map<String, Object> item);

    /** Every item in the store, as attribute maps. */
    List<Map<String, Object>> allRawItems();

    /**
     * The user index (GSI1) catches up with every write made so far. On DynamoDB it is eventually consistent and
     * the DynamoDB tests let it lag until this is called; a store without lag does nothing. Only listings (and
     * tests that show a rule holds also once the index caught up) call it: no rule may depend on it.
     */
    void indexCatchesUp();

    /** Empty when the engine runs TransactWriteItems; otherwise the reason tests of it are skipped. */
    Optional<String> missingTransactions();

    /**
     * A store on this test's table whose answers can be lost after its writes were applied (each call opens one more,
     * closed after the test); empty where nothing lies between a store and its data to lose an answer (the embedded
     * and in-memory stores), where a retry is only the same call made again.
     */
    default Optional<AnswerLosingStore> answerLosingStore() {
        return Optional.empty();
    }

    /** The domain, with the default settings, on {@code target}: another instance, or a store behind a test proxy. */
    default Verification on(VerificationStore target) {
        return on(target, VerificationSettings.defaults());
    }

    /** As {@link #on(VerificationStore)}, with {@code settings}. */
    default Verification on(VerificationStore target, VerificationSettings settings) {
        return Verification.builder().store(target).keys(keys())
                .encryption(EncryptionKeyRing.fromBase64(List.of(encryptionKeyBase64()))).sender(outbox()).clock(clock())
                .settings(settings).build();
    }

    default String sendEmailCode(String userId) {
        IssueResult result = verification().codes().issue(
                CodeRequest.of(userId, CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL, userId + "@example.com"));
        assertThat(result).isInstanceOf(IssueResult.Issued.class);
        return latestCode();
    }

    default String latestCode() {
        return outbox().messages().get(0).code();
    }

    default VerificationResult verifyEmailCode(String userId, String code) {
        return verification().codes().verify(VerifyRequest.numeric(code, userId, CodeType.EMAIL_VERIFICATION));
    }

    default List<AuditEventType> auditTypes(String userId) {
        return verification().audit().query(userId, Optional.empty(), Optional.empty(), Optional.of(100), Optional.empty())
                .entries().stream().map(AuditEntry::eventType).toList();
    }

    default RegisteredDevice registerDevice(String userId, String deviceId) {
        return verification().devices().register(new DeviceRegistration(userId, deviceId, "IOS",
                Optional.of("Jane's iPhone"), Optional.of("push-token-1"), ClientContext.of("203.0.113.9", "Safari", null)));
    }
}
