package dev.verificationservice.server.admin;

import static io.swagger.v3.oas.annotations.media.Schema.RequiredMode.REQUIRED;

import dev.verificationservice.Verification;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.codes.LiveCode;
import dev.verificationservice.server.audit.AuditController.AuditEventView;
import dev.verificationservice.server.config.JsonTimes;
import dev.verificationservice.server.devices.DevicesController.DeviceView;
import dev.verificationservice.server.passkeys.PasskeysController.PasskeyView;
import dev.verificationservice.server.errors.ApiProblem;
import dev.verificationservice.server.ratelimit.RateLimitsController.LimitView;
import dev.verificationservice.server.security.ApiKeyFilter;
import dev.verificationservice.server.totp.TotpController.TotpFactorView;
import dev.verificationservice.operator.OperatorService;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.security.SecurityRequirement;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.servlet.http.HttpServletRequest;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The operator API ({@code /v1/admin}), for support staff: one view of a user, lift a lock-out, kill a user's
 * codes, remove their authenticator factors. Only an admin key reaches it (decided by {@link ApiKeyFilter}, which
 * puts the key's id on the request); every change is audited in the user's history with that key id, never the
 * key. The rules live in the core's {@link OperatorService} (and {@code TotpService#removeAll} for the factors);
 * this class only translates.
 */
@RestController
@RequestMapping(path = ApiKeyFilter.ADMIN_PREFIX + "/users/{userId}", produces = MediaType.APPLICATION_JSON_VALUE)
@Tag(name = "operator", description = "Operator API: needs an admin key (VERIFICATION_ADMIN_API_KEYS); answers 404 "
        + "when none is configured")
@SecurityRequirement(name = "adminKey")
public class AdminController {

    /** A live code as support staff see it: what kind, where it went (masked), when. Never a digest or the code. */
    public record LiveCodeView(@Schema(requiredMode = REQUIRED) String codeType,
                               @Schema(requiredMode = REQUIRED) String format,
                               @Schema(requiredMode = REQUIRED) String deliveryMethod,
                               @Schema(requiredMode = REQUIRED) String maskedTarget,
                               @Schema(requiredMode = REQUIRED) String createdAt,
                               @Schema(requiredMode = REQUIRED) String expiresAt) {
        static LiveCodeView of(LiveCode code) {
            return new LiveCodeView(code.codeType().name(), code.format().name(), code.deliveryMethod().name(),
                    code.maskedTarget(), JsonTimes.format(code.createdAt()), JsonTimes.format(code.expiresAt()));
        }
    }

    /** Everything about one user at once, in the order support staff read it. */
    public record UserOverviewResponse(@Schema(requiredMode = REQUIRED) String userId,
                                       @Schema(requiredMode = REQUIRED) List<DeviceView> devices,
                                       @Schema(requiredMode = REQUIRED) List<LiveCodeView> liveCodes,
                                       @Schema(requiredMode = REQUIRED) List<LimitView> rateLimits,
                                       @Schema(requiredMode = REQUIRED) List<AuditEventView> auditEvents,
                                       @Schema(requiredMode = REQUIRED) List<TotpFactorView> totpFactors,
                                       @Schema(requiredMode = REQUIRED) int recoveryCodesLeft,
                                       @Schema(requiredMode = REQUIRED, description = "Empty while passkeys are off")
                                       List<PasskeyView> passkeys) {
    }

    public record RemovedFactorsResponse(@Schema(requiredMode = REQUIRED) int removed) {
    }

    public record LiftedResponse(@Schema(requiredMode = REQUIRED) String action,
                                 @Schema(requiredMode = REQUIRED) int windowsCleared) {
    }

    public record InvalidatedResponse(@Schema(requiredMode = REQUIRED) int invalidated) {
    }

    private final OperatorService support;
    private final Verification verification;

    public AdminController(Verification verification) {
        this.support = verification.operator();
        this.verification = verification;
    }

    @GetMapping
    @Operation(summary = "One view of a user: devices (without secrets), live codes (masked), rate-limit state, "
            + "the latest audit events (newest first), authenticator apps, and passkeys (no key material)")
    public UserOverviewResponse overview(@PathVariable String userId, HttpServletRequest request) {
        operatorKeyId(request);
        OperatorService.UserOverview overview = support.overview(userId);
        return new UserOverviewResponse(overview.userId(),
                overview.devices().stream().map(DeviceView::of).toList(),
                overview.liveCodes().stream().map(LiveCodeView::of).toList(),
                overview.rateLimits().stream().map(LimitView::of).toList(),
                overview.latestAudit().stream().map(AuditEventView::of).toList(),
                verification.totp().list(userId).stream().map(TotpFactorView::of).toList(),
                verification.recovery().remaining(userId),
                verification.passkeysOn() ? verification.passkeys().list(userId).stream().map(PasskeyView::of).toList()
                        : List.of());
    }

    @DeleteMapping("/rate-limits/{action}")
    @Operation(summary = "Lift a rate limit or lock-out: forget every window of the action (audited RATE_LIMIT_RESET "
            + "with the operator's key id)")
    public LiftedResponse liftRateLimit(@PathVariable String userId, @PathVariable String action,
                                        HttpServletRequest request) {
        int cleared = support.liftRateLimit(userId, action, operatorKeyId(request), ClientContext.none());
        return new LiftedResponse(action, cleared);
    }

    @DeleteMapping("/codes")
    @Operation(summary = "Invalidate every live code of the user (audited CODES_INVALIDATED with the operator's key id)")
    public InvalidatedResponse invalidateCodes(@PathVariable String userId, HttpServletRequest request) {
        return new InvalidatedResponse(support.invalidateCodes(userId, operatorKeyId(request), ClientContext.none()));
    }

    @DeleteMapping("/totp")
    @Operation(summary = "Remove every authenticator factor and the recovery codes of the user, who lost their phone "
            + "(audited TOTP_REMOVED with the operator's key id)")
    public RemovedFactorsResponse removeTotpFactors(@PathVariable String userId, HttpServletRequest request) {
        return new RemovedFactorsResponse(verification.totp().removeAll(userId,
                Map.of("operatorKeyId", operatorKeyId(request)), ClientContext.none()));
    }

    /**
     * The id of the admin key the filter accepted. A request reaches this controller only through the filter's
     * admin branch; should a path spelling ever route here without it, the answer is a refusal, not an action
     * audited without an operator.
     */
    static String operatorKeyId(HttpServletRequest request) {
        if (request.getAttribute(ApiKeyFilter.OPERATOR_KEY_ID) instanceof String keyId) {
            return keyId;
        }
        throw new ApiProblem(HttpStatus.FORBIDDEN, "FORBIDDEN", "The operator API needs an admin key "
                + "(VERIFICATION_ADMIN_API_KEYS).", Map.of());
    }
}
