package dev.verificationservice.store.contract;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.verificationservice.Verification;
import dev.verificationservice.VerificationSettings;
import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.devices.DeviceRegistration;
import dev.verificationservice.devices.DeviceRepository;
import dev.verificationservice.devices.DeviceToken;
import dev.verificationservice.devices.DeviceVerification;
import dev.verificationservice.devices.RegisteredDevice;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.testsupport.proxies.Interposed;
import dev.verificationservice.VerificationStore;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Remembered devices: registration, sliding expiry, revocation, and the races against revoke-all. */
public abstract class DeviceContract extends ContractPart {

    protected DeviceContract(ContractFixture fixture) {
        super(fixture);
    }

    @Test
    void registeringADeviceWritesTheTokenAndItsAuditEntryInOneTransaction() {
        assumeTrue(missingTransactions().isEmpty(), () -> missingTransactions().get());
        RegisteredDevice device = registerDevice("dave", "laptop-1");

        indexCatchesUp();
        assertThat(verification().devices().list("dave")).singleElement().satisfies(token -> {
            assertThat(token.deviceId()).isEqualTo("laptop-1");
            assertThat(token.tokenId()).isEqualTo(device.tokenId());
            assertThat(token.deviceName()).contains("Jane's iPhone");
        });
        assertThat(auditTypes("dave")).containsExactly(AuditEventType.DEVICE_ADDED);
    }

    @Test
    void aRefusedRegistrationLeavesNeitherTokenNorAuditEntry() {
        assumeTrue(missingTransactions().isEmpty(), () -> missingTransactions().get());
        AuditEntry taken = verification().audit().recordSuccess("dave", AuditEventType.CODE_SENT, Map.of(),
                ClientContext.none());
        DeviceToken token = new DeviceToken("laptop-1", "token-digest", "dave", "WEB", Optional.empty(), Optional.empty(),
                START, Optional.empty(), Optional.empty(), START, START.plus(Duration.ofDays(30)));
        AuditEntry sameKey = new AuditEntry("dave", taken.timestamp(), taken.entryId(), AuditEventType.DEVICE_ADDED,
                Map.of(), Optional.empty(), Optional.empty(), Optional.of("laptop-1"), true, Optional.empty(),
                Optional.empty());

        assertThatThrownBy(() -> store().devices().registerDevice(token, sameKey)).isInstanceOf(StoreException.class)
                .hasMessageContaining("nothing was written");
        assertThat(store().devices().findDevices("dave", START)).isEmpty();
        assertThat(auditTypes("dave")).containsExactly(AuditEventType.CODE_SENT);
    }

    @Test
    void aDeviceVerifiedUnderAPreviousKeyMovesToTheCurrentKeySoTheOldKeyCanBeRetired() {
        RegisteredDevice device = registerDevice("kai", "tablet-1");
        clock().advance(Duration.ofSeconds(1));
        String nextKey = SecretKeyRing.generateBase64Key(RANDOM);
        Verification rotated = build(SecretKeyRing.fromBase64(List.of(nextKey, keyBase64())), outbox(),
                VerificationSettings.defaults());

        DeviceVerification used = rotated.devices().verify("tablet-1", device.secret(), ClientContext.none());

        assertThat(used.valid()).isTrue();
        assertThat(store().devices().findDevice("tablet-1", device.tokenId())).as("gone from the old key").isEmpty();
        indexCatchesUp();
        assertThat(rotated.devices().list("kai")).singleElement()
                .satisfies(token -> assertThat(token.tokenId()).isNotEqualTo(device.tokenId()));
        clock().advance(Duration.ofSeconds(1));
        Verification retired = build(SecretKeyRing.fromBase64(List.of(nextKey)), outbox(), VerificationSettings.defaults());
        assertThat(retired.devices().verify("tablet-1", device.secret(), ClientContext.none()).valid())
                .as("valid with the old key retired").isTrue();
        assertThat(auditTypes("kai")).containsExactly(AuditEventType.DEVICE_VERIFIED, AuditEventType.DEVICE_VERIFIED,
                AuditEventType.DEVICE_ADDED);
    }

    @Test
    void aDeviceInRegularUseStillExpiresAtItsMaximumLife() {
        Verification capped = build(keys(), outbox(), VerificationSettings.defaults().withDeviceMaxLife(Duration.ofDays(40)));
        RegisteredDevice device = capped.devices().register(new DeviceRegistration("lia", "phone-9", "IOS",
                Optional.empty(), Optional.empty(), ClientContext.none()));

        clock().advance(Duration.ofDays(20));
        DeviceVerification day20 = capped.devices().verify("phone-9", device.secret(), ClientContext.none());
        assertThat(day20).isEqualTo(new DeviceVerification.Valid("lia", "phone-9", START.plus(Duration.ofDays(40))));
        clock().advance(Duration.ofDays(20));
        assertThat(capped.devices().verify("phone-9", device.secret(), ClientContext.none()))
                .isEqualTo(new DeviceVerification.Invalid(DeviceVerification.Reason.EXPIRED));
        assertThat(capped.devices().list("lia")).isEmpty();
    }

    @Test
    void aTokenThatEscapedRevokeAllThroughTheIndexIsStillRefused() {
        RegisteredDevice device = registerDevice("mo", "laptop-7");
        // The user index has not caught up with the token yet (GSI1 is eventually consistent on DynamoDB):
        // revoke-all's deletion finds nothing.
        VerificationStore lagging = Interposed.withPort(VerificationStore.class, store(), "devices",
                Interposed.answering(DeviceRepository.class, store().devices(), "deleteDevices", args -> List.of()));
        Verification withLaggingIndex = Verification.builder().store(lagging).keys(keys()).sender(outbox()).clock(clock()).build();

        withLaggingIndex.devices().revokeAll("mo", ClientContext.none());

        assertThat(store().devices().findDevice("laptop-7", device.tokenId())).as("still stored").isPresent();
        assertThat(verification().devices().verify("laptop-7", device.secret(), ClientContext.none()))
                .isEqualTo(new DeviceVerification.Invalid(DeviceVerification.Reason.NOT_FOUND));
        clock().advance(Duration.ofMillis(1));
        RegisteredDevice after = registerDevice("mo", "laptop-8");
        assertThat(verification().devices().verify("laptop-8", after.secret(), ClientContext.none()).valid())
                .as("a device registered after the revoke-all works").isTrue();
    }

    @Test
    void noRegistrationRacingARevokeAllEscapesIt() throws Exception {
        AtomicInteger devices = new AtomicInteger();
        CountDownLatch revoked = new CountDownLatch(1);
        List<Object> results = runConcurrently(24, () -> {
            int n = devices.incrementAndGet();
            if (n == 12) {
                verification().devices().revokeAll("ray", ClientContext.none());
                revoked.countDown();
                return "revoked";
            }
            return verification().devices().register(new DeviceRegistration("ray", "race-" + n, "WEB", Optional.empty(),
                    Optional.empty(), ClientContext.none()));
        });
        assertThat(revoked.await(10, TimeUnit.SECONDS)).isTrue();

        // Every registration happened before or during the revoke-all (one instant on this clock): none may work.
        for (Object result : results) {
            if (result instanceof RegisteredDevice device) {
                assertThat(verification().devices().verify(device.deviceId(), device.secret(), ClientContext.none()).valid())
                        .as(device.deviceId()).isFalse();
            }
        }
        assertThat(verification().devices().list("ray")).isEmpty();
    }

    @Test
    void aRememberedDeviceVerifiesAndItsExpirySlides() {
        RegisteredDevice device = registerDevice("dave", "laptop-1");
        assertThat(device.expiresAt()).isEqualTo(START.plus(Duration.ofDays(30)));

        clock().advance(Duration.ofDays(29));
        DeviceVerification first = verification().devices().verify("laptop-1", device.secret(), ClientContext.none());
        assertThat(first).isEqualTo(new DeviceVerification.Valid("dave", "laptop-1", START.plus(Duration.ofDays(59))));

        clock().advance(Duration.ofDays(29));
        assertThat(verification().devices().verify("laptop-1", device.secret(), ClientContext.none()).valid()).isTrue();
        indexCatchesUp();
        assertThat(verification().devices().list("dave")).singleElement()
                .satisfies(token -> assertThat(token.lastActiveAt()).isEqualTo(START.plus(Duration.ofDays(58))));
        assertThat(auditTypes("dave")).startsWith(AuditEventType.DEVICE_VERIFIED, AuditEventType.DEVICE_VERIFIED);
    }

    @Test
    void anExpiredDeviceSecretDoesNotVerifyAndIsNotListedThoughStillStored() {
        RegisteredDevice device = registerDevice("dave", "laptop-1");
        clock().advance(Duration.ofDays(30).plusSeconds(1));

        assertThat(verification().devices().verify("laptop-1", device.secret(), ClientContext.none()))
                .isEqualTo(new DeviceVerification.Invalid(DeviceVerification.Reason.EXPIRED));
        assertThat(verification().devices().list("dave")).isEmpty();
        assertThat(allRawItems()).anySatisfy(item -> assertThat(item.get("tokenId")).isEqualTo(device.tokenId()));
    }

    @Test
    void aWrongSecretOrAnotherDevicesSecretIsNotFound() {
        RegisteredDevice device = registerDevice("dave", "laptop-1");
        registerDevice("dave", "phone-1");

        assertThat(verification().devices().verify("phone-1", device.secret(), ClientContext.none()))
                .isEqualTo(new DeviceVerification.Invalid(DeviceVerification.Reason.NOT_FOUND));
        assertThat(verification().devices().verify("laptop-1", "A".repeat(43), ClientContext.none()))
                .isEqualTo(new DeviceVerification.Invalid(DeviceVerification.Reason.NOT_FOUND));
    }

    @Test
    void revokingOneDeviceLeavesTheOthersAndOtherUsers() {
        RegisteredDevice laptop = registerDevice("dave", "laptop-1");
        registerDevice("dave", "laptop-10");
        registerDevice("erin", "laptop-1");

        assertThat(verification().devices().revoke("dave", "laptop-1", ClientContext.none())).isEqualTo(1);

        indexCatchesUp();
        assertThat(verification().devices().list("dave")).extracting(DeviceToken::deviceId).containsExactly("laptop-10");
        assertThat(verification().devices().list("erin")).hasSize(1);
        assertThat(verification().devices().verify("laptop-1", laptop.secret(), ClientContext.none()).valid()).isFalse();
        assertThat(auditTypes("dave")).first().isEqualTo(AuditEventType.DEVICE_REVOKED);
    }

    @Test
    void aDeviceRevokedRightAfterItsRegistrationIsCountedAndNoLongerVerifiesAlsoOnceTheIndexCaughtUp() {
        assumeTrue(missingTransactions().isEmpty(), () -> missingTransactions().get());
        RegisteredDevice device = registerDevice("eve", "tablet-1");

        assertThat(verification().devices().revoke("eve", "tablet-1", ClientContext.none())).isEqualTo(1);

        assertThat(verification().devices().verify("tablet-1", device.secret(), ClientContext.none()).valid()).isFalse();
        indexCatchesUp();
        assertThat(verification().devices().verify("tablet-1", device.secret(), ClientContext.none()).valid()).isFalse();
        assertThat(verification().devices().list("eve")).isEmpty();
    }

    @Test
    void revokingAllDevicesDeletesMoreThanOneBatchAndAuditsTheCount() {
        for (int i = 0; i < 30; i++) {
            registerDevice("dave", "device-" + i);
        }
        registerDevice("erin", "device-0");
        indexCatchesUp();

        assertThat(verification().devices().revokeAll("dave", ClientContext.none())).isEqualTo(30);

        assertThat(verification().devices().list("dave")).isEmpty();
        assertThat(verification().devices().list("erin")).hasSize(1);
        AuditEntry revoked = verification().audit().query("dave", Optional.empty(), Optional.empty(), Optional.of(1),
                Optional.empty()).entries().get(0);
        assertThat(revoked.eventType()).isEqualTo(AuditEventType.DEVICES_REVOKED);
        assertThat(revoked.details()).containsEntry("count", "30");
    }
}
