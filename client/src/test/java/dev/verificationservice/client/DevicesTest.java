package dev.verificationservice.client;

import static dev.verificationservice.client.TestServer.newUser;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Remembered devices through the client, against the real server. */
class DevicesTest {

    private final TestServer server = TestServer.shared();
    private final VerificationClient client = server.client();

    @BeforeEach
    void resetClock() {
        server.clock().set(TestServer.START);
    }

    @Test
    void registerVerifyListRevokeOneAndAll() {
        String user = newUser();
        RegisteredDevice laptop = client.devices().register(DeviceRegistration.builder(user, "laptop-1", "WEB")
                .deviceName("Work laptop").pushToken("push-123").client(ClientContext.of("203.0.113.9", "junit"))
                .build());
        RegisteredDevice phone = client.devices().register(DeviceRegistration.of(user, "phone-1", "IOS"));

        assertThat(laptop.deviceId()).isEqualTo("laptop-1");
        assertThat(laptop.secret()).isNotBlank();
        assertThat(laptop.toString()).doesNotContain(laptop.secret());
        assertThat(laptop.expiresAt()).isEqualTo(TestServer.START.plus(Duration.ofDays(30)));

        server.clock().advance(Duration.ofDays(1));
        assertThat(client.devices().verify("laptop-1", laptop.secret(), ClientContext.of("203.0.113.9", "junit")))
                .isEqualTo(new DeviceVerifyResult.Valid(user, TestServer.START.plus(Duration.ofDays(31))));
        assertThat(client.devices().verify("laptop-1", phone.secret()))
                .isEqualTo(new DeviceVerifyResult.Invalid(InvalidDeviceReason.NOT_FOUND));

        List<Device> devices = client.devices().list(user);
        assertThat(devices).extracting(Device::deviceId).containsExactlyInAnyOrder("laptop-1", "phone-1");
        Device listed = devices.stream().filter(device -> device.deviceId().equals("laptop-1")).findFirst().orElseThrow();
        assertThat(listed.tokenId()).isEqualTo(laptop.tokenId());
        assertThat(listed.deviceType()).isEqualTo("WEB");
        assertThat(listed.deviceName()).contains("Work laptop");
        assertThat(listed.pushToken()).contains("push-123");
        assertThat(listed.createdAt()).isEqualTo(TestServer.START);
        assertThat(listed.lastActiveAt()).isEqualTo(TestServer.START.plus(Duration.ofDays(1)));
        assertThat(listed.ipAddress()).contains("203.0.113.9");

        assertThat(client.devices().revoke(user, "laptop-1")).isEqualTo(1);
        assertThat(client.devices().revoke(user, "laptop-1")).isZero();
        assertThat(client.devices().verify("laptop-1", laptop.secret()))
                .isEqualTo(new DeviceVerifyResult.Invalid(InvalidDeviceReason.NOT_FOUND));
        assertThat(client.devices().list(user)).extracting(Device::deviceId).containsExactly("phone-1");

        assertThat(client.devices().revokeAll(user)).isEqualTo(1);
        assertThat(client.devices().list(user)).isEmpty();
        assertThat(client.devices().verify("phone-1", phone.secret()).valid()).isFalse();
    }

    @Test
    void anExpiredDeviceSaysSo() {
        String user = newUser();
        RegisteredDevice device = client.devices().register(DeviceRegistration.of(user, "tablet-1", "ANDROID"));
        server.clock().advance(Duration.ofDays(31));
        assertThat(client.devices().verify("tablet-1", device.secret()))
                .isEqualTo(new DeviceVerifyResult.Invalid(InvalidDeviceReason.EXPIRED));
    }

    /** Ids may hold '@', '+', ':' and '.': the client puts them in the path so that the server reads them back. */
    @Test
    void idsWithEveryAllowedCharacterTravelInThePath() {
        String user = "jane.doe+" + Long.toString(System.nanoTime(), 36) + "@example.com:tenant-1_x";
        String deviceId = "dev:1+a@b.c_d-e";
        client.devices().register(DeviceRegistration.of(user, deviceId, "WEB"));
        assertThat(client.devices().list(user)).extracting(Device::deviceId).containsExactly(deviceId);
        assertThat(client.devices().revoke(user, deviceId)).isEqualTo(1);
        assertThat(client.rateLimits(user)).allSatisfy(limit -> assertThat(limit.count()).isZero());
        assertThat(client.audit().page(AuditQuery.of(user)).events()).extracting(AuditEvent::eventType)
                .containsExactly("DEVICE_REVOKED", "DEVICE_ADDED");
    }

    @Test
    void anInvalidIdInThePathNamesIt() {
        assertThatThrownBy(() -> client.devices().list("user#1"))
                .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("userId"));
        assertThatThrownBy(() -> client.devices().revoke("..", "x"))
                .isInstanceOf(ProblemException.class);
    }
}
