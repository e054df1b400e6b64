package dev.verificationservice.server.devices;

import static io.swagger.v3.oas.annotations.media.Schema.RequiredMode.REQUIRED;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.verificationservice.Verification;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.devices.DeviceRegistration;
import dev.verificationservice.devices.DeviceToken;
import dev.verificationservice.devices.DeviceVerification;
import dev.verificationservice.devices.RegisteredDevice;
import dev.verificationservice.server.config.JsonTimes;
import dev.verificationservice.server.config.Requests;
import dev.verificationservice.spring.metrics.VerificationMetrics;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.List;
import java.util.Optional;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/** Remembered devices: register, verify, list, revoke. */
@RestController
@org.springframework.web.bind.annotation.RequestMapping(produces = MediaType.APPLICATION_JSON_VALUE)
public class DevicesController {

    public record RegisterDeviceBody(@Schema(requiredMode = REQUIRED) String userId,
                                     @Schema(requiredMode = REQUIRED) String deviceId,
                                     @Schema(requiredMode = REQUIRED) String deviceType, String deviceName,
                                     String pushToken, String ipAddress, String userAgent) {
    }

    /** The secret is in this answer and nowhere else, ever. */
    public record RegisterDeviceResponse(@Schema(requiredMode = REQUIRED) String deviceId,
                                         @Schema(requiredMode = REQUIRED) String tokenId,
                                         @Schema(requiredMode = REQUIRED) String secret,
                                         @Schema(requiredMode = REQUIRED) String expiresAt) {
        @Override
        public String toString() {
            return "RegisterDeviceResponse[deviceId=" + deviceId + ", tokenId=" + tokenId + ", secret=<redacted>]";
        }
    }

    public record VerifyDeviceBody(@Schema(requiredMode = REQUIRED) String deviceId,
                                   @Schema(requiredMode = REQUIRED) String secret, String ipAddress, String userAgent) {
        @Override
        public String toString() {
            return "VerifyDeviceBody[deviceId=" + deviceId + ", secret=<redacted>]";
        }
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record VerifyDeviceResponse(@Schema(requiredMode = REQUIRED) boolean valid, String reason, String userId, String expiresAt) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record DeviceView(@Schema(requiredMode = REQUIRED) String deviceId,
                             @Schema(requiredMode = REQUIRED) String tokenId,
                             @Schema(requiredMode = REQUIRED) String deviceType, String deviceName, String pushToken,
                             @Schema(requiredMode = REQUIRED) String lastActiveAt,
                             @Schema(requiredMode = REQUIRED) String createdAt,
                             @Schema(requiredMode = REQUIRED) String expiresAt, String ipAddress,
                             String userAgent) {
        public static DeviceView of(DeviceToken token) {
            return new DeviceView(token.deviceId(), token.tokenId(), token.deviceType(), token.deviceName().orElse(null),
                    token.pushToken().orElse(null), JsonTimes.format(token.lastActiveAt()),
                    JsonTimes.format(token.createdAt()), JsonTimes.format(token.expiresAt()),
                    token.ipAddress().orElse(null), token.userAgent().orElse(null));
        }
    }

    public record DevicesResponse(@Schema(requiredMode = REQUIRED) List<DeviceView> devices) {
    }

    /** {@code passkeysRevoked} only when the call asked for the passkeys too (named apart from the passkeys' own). */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    @Schema(name = "DevicesRevokedResponse")
    public record RevokedResponse(@Schema(requiredMode = REQUIRED) int revoked, Integer passkeysRevoked) {
    }

    private final Verification verification;
    private final VerificationMetrics metrics;

    public DevicesController(Verification verification, VerificationMetrics metrics) {
        this.verification = verification;
        this.metrics = metrics;
    }

    @PostMapping(path = "/v1/devices", consumes = MediaType.APPLICATION_JSON_VALUE)
    @ResponseStatus(HttpStatus.CREATED)
    public RegisterDeviceResponse register(@RequestBody RegisterDeviceBody body) {
        Requests.body(body);
        RegisteredDevice device = verification.devices().register(new DeviceRegistration(body.userId(), body.deviceId(),
                body.deviceType(), Optional.ofNullable(body.deviceName()), Optional.ofNullable(body.pushToken()),
                ClientContext.of(body.ipAddress(), body.userAgent(), null)));
        metrics.devicesAdded();
        return new RegisterDeviceResponse(device.deviceId(), device.tokenId(), device.secret(),
                JsonTimes.format(device.expiresAt()));
    }

    @PostMapping(path = "/v1/devices/verify", consumes = MediaType.APPLICATION_JSON_VALUE)
    public VerifyDeviceResponse verify(@RequestBody VerifyDeviceBody body) {
        Requests.body(body);
        DeviceVerification result = verification.devices().verify(body.deviceId(), body.secret(),
                ClientContext.of(body.ipAddress(), body.userAgent(), null));
        if (result instanceof DeviceVerification.Valid valid) {
            return new VerifyDeviceResponse(true, null, valid.userId(), JsonTimes.format(valid.expiresAt()));
        }
        return new VerifyDeviceResponse(false, ((DeviceVerification.Invalid) result).reason().name(), null, null);
    }

    @GetMapping("/v1/users/{userId}/devices")
    public DevicesResponse list(@PathVariable String userId) {
        return new DevicesResponse(verification.devices().list(userId).stream().map(DeviceView::of).toList());
    }

    @DeleteMapping("/v1/users/{userId}/devices/{deviceId}")
    public RevokedResponse revoke(@PathVariable String userId, @PathVariable String deviceId) {
        int revoked = verification.devices().revoke(userId, deviceId, ClientContext.none());
        metrics.devicesRevoked(revoked);
        return new RevokedResponse(revoked, null);
    }

    /** With {@code passkeys=true} the user's passkeys go too: the call after an account takeover. */
    @DeleteMapping("/v1/users/{userId}/devices")
    public RevokedResponse revokeAll(@PathVariable String userId,
                                     @RequestParam(name = "passkeys", defaultValue = "false") boolean passkeys) {
        if (passkeys) {
            Verification.RevokedCredentials revoked = verification.revokeDevicesAndPasskeys(userId,
                    ClientContext.none());
            metrics.devicesRevoked(revoked.devices());
            return new RevokedResponse(revoked.devices(), revoked.passkeys());
        }
        int revoked = verification.devices().revokeAll(userId, ClientContext.none());
        metrics.devicesRevoked(revoked);
        return new RevokedResponse(revoked, null);
    }
}
