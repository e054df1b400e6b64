package dev.verificationservice.server.totp;

import static io.swagger.v3.oas.annotations.media.Schema.RequiredMode.REQUIRED;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.verificationservice.Verification;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.server.config.JsonTimes;
import dev.verificationservice.server.config.Requests;
import dev.verificationservice.server.idempotency.IdempotencyFilter;
import dev.verificationservice.totp.Confirmation;
import dev.verificationservice.totp.Enrolment;
import dev.verificationservice.totp.FactorSummary;
import dev.verificationservice.totp.TotpService;
import dev.verificationservice.totp.TotpVerification;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.List;
import java.util.Optional;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * Authenticator apps: enrol, confirm, verify, list, remove. The rules are the core's
 * {@link TotpService}; this class only translates. The secret leaves the service once, in the enrolment's answer
 * (secret, otpauth URI and QR code), and the recovery codes once, in the confirmation's; every {@code toString}
 * of a record that holds them hides them, so no log line can.
 */
@RestController
@RequestMapping(path = "/v1/users/{userId}/totp", produces = MediaType.APPLICATION_JSON_VALUE)
@Tag(name = "totp", description = "Authenticator apps (RFC 6238: SHA-1, 6 digits, 30-second steps) and their "
        + "recovery codes")
public class TotpController {

    public record TotpEnrolBody(@Schema(description = "What the app shows under the issuer; default: the userId",
                                    maxLength = TotpService.MAX_LABEL_LENGTH, example = "ada@example.com") String label,
                            @Schema(description = "Who the app shows the code for; default: the configured issuer",
                                    maxLength = TotpService.MAX_LABEL_LENGTH, example = "Example") String issuer) {
    }

    /** The secret is in this answer and nowhere else, ever: the otpauth URI and the QR code hold it too. */
    public record TotpEnrolResponse(@Schema(requiredMode = REQUIRED) String factorId,
                                @Schema(requiredMode = REQUIRED, description = "The shared secret, base32 (to type "
                                        + "into an app); shown this once") String secret,
                                @Schema(requiredMode = REQUIRED, description = "otpauth://totp/<issuer>:<label>?"
                                        + "secret=...: what the QR code holds, for a link on a phone")
                                    String otpauthUri,
                                @Schema(requiredMode = REQUIRED, description = "The otpauth URI as a QR code: "
                                        + "data:image/png;base64,...") String qrCode,
                                @Schema(requiredMode = REQUIRED, description = "When the factor lapses unless it is "
                                        + "confirmed") String expiresAt) {
        @Override
        public String toString() {
            return "TotpEnrolResponse[factorId=" + factorId + ", secret=<redacted>]";
        }
    }

    public record TotpCodeBody(@Schema(requiredMode = REQUIRED, description = "The 6 digits the app shows",
                                   example = "123456") String code,
                           String ipAddress, String userAgent) {
        @Override
        public String toString() {
            return "TotpCodeBody[code=<redacted>]";
        }
    }

    /** The recovery codes are in this answer and nowhere else, ever. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record TotpConfirmResponse(@Schema(requiredMode = REQUIRED) boolean confirmed,
                                  @Schema(description = "When confirmed: the user's new recovery codes (the earlier "
                                          + "set is void), shown this once; absent when a simultaneous issue of the "
                                          + "user's codes came first (that answer holds them)")
                                  List<String> recoveryCodes,
                                  @Schema(allowableValues = {"INVALID_CODE", "NOT_FOUND", "ALREADY_CONFIRMED",
                                          "TOO_MANY_ATTEMPTS"}) String reason) {
        @Override
        public String toString() {
            return "TotpConfirmResponse[confirmed=" + confirmed + ", reason=" + reason + "]";
        }
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record TotpVerifyResponse(@Schema(requiredMode = REQUIRED) boolean valid,
                                 @Schema(allowableValues = {"INVALID_CODE", "REPLAYED", "NO_FACTOR",
                                         "TOO_MANY_ATTEMPTS"}) String reason,
                                 @Schema(description = "The factor whose code it was") String factorId) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record TotpFactorView(@Schema(requiredMode = REQUIRED) String factorId,
                             @Schema(requiredMode = REQUIRED) String label,
                             @Schema(requiredMode = REQUIRED, description = "false while pending: it verifies nothing")
                             boolean confirmed,
                             @Schema(requiredMode = REQUIRED) String createdAt, String lastUsedAt) {
        public static TotpFactorView of(FactorSummary factor) {
            return new TotpFactorView(factor.factorId(), factor.label(), factor.confirmed(),
                    JsonTimes.format(factor.createdAt()), factor.lastUsedAt().map(JsonTimes::format).orElse(null));
        }
    }

    public record TotpFactorsResponse(@Schema(requiredMode = REQUIRED) List<TotpFactorView> factors) {
    }

    public record TotpRemovedResponse(@Schema(requiredMode = REQUIRED, description = "1 when the factor existed, "
                                              + "else 0") int removed) {
    }

    private final Verification verification;

    public TotpController(Verification verification) {
        this.verification = verification;
    }

    @PostMapping(consumes = MediaType.APPLICATION_JSON_VALUE)
    @ResponseStatus(HttpStatus.CREATED)
    @Operation(summary = "Enrol an authenticator app: a pending factor (it verifies nothing until confirmed, and "
            + "lapses after 15 minutes); the secret is shown this once")
    public TotpEnrolResponse enrol(@PathVariable String userId, @RequestBody TotpEnrolBody body) {
        Requests.body(body);
        Enrolment enrolment = verification.totp().enrol(userId, Optional.ofNullable(body.label()),
                Optional.ofNullable(body.issuer()), ClientContext.none());
        IdempotencyFilter.answerHoldsSecretShownOnce();
        return new TotpEnrolResponse(enrolment.factorId(), enrolment.secret(), enrolment.otpauthUri(),
                enrolment.qrCode(), JsonTimes.format(enrolment.expiresAt()));
    }

    @PostMapping(path = "/{factorId}/confirm", consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(summary = "Confirm a pending factor with the app's current code; answers the user's new recovery "
            + "codes (shown this once). A wrong code counts in VERIFY_TOTP")
    public TotpConfirmResponse confirm(@PathVariable String userId, @PathVariable String factorId,
                                   @RequestBody TotpCodeBody body) {
        Requests.body(body);
        Confirmation result = verification.totp().confirm(userId, factorId, body.code(),
                ClientContext.of(body.ipAddress(), body.userAgent(), null));
        if (result instanceof Confirmation.Confirmed confirmed) {
            if (confirmed.recoveryCodes().isEmpty()) {
                return new TotpConfirmResponse(true, null, null);
            }
            IdempotencyFilter.answerHoldsSecretShownOnce();
            return new TotpConfirmResponse(true, confirmed.recoveryCodes().get().codes(), null);
        }
        return new TotpConfirmResponse(false, null, ((Confirmation.NotConfirmed) result).reason().name());
    }

    @PostMapping(path = "/verify", consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(summary = "Verify a code of one of the user's confirmed factors. Each 30-second step is accepted once "
            + "per factor (REPLAYED after); wrong codes count in VERIFY_TOTP, 5 per 15 minutes by default")
    public TotpVerifyResponse verify(@PathVariable String userId, @RequestBody TotpCodeBody body) {
        Requests.body(body);
        TotpVerification result = verification.totp().verify(userId, body.code(),
                ClientContext.of(body.ipAddress(), body.userAgent(), null));
        if (result instanceof TotpVerification.Valid valid) {
            return new TotpVerifyResponse(true, null, valid.factorId());
        }
        return new TotpVerifyResponse(false, ((TotpVerification.Invalid) result).reason().name(), null);
    }

    @GetMapping
    @Operation(summary = "The user's factors, confirmed or pending, oldest first; never a secret")
    public TotpFactorsResponse list(@PathVariable String userId) {
        return new TotpFactorsResponse(verification.totp().list(userId).stream().map(TotpFactorView::of).toList());
    }

    @DeleteMapping("/{factorId}")
    @Operation(summary = "Remove a factor; removing the last confirmed one removes the recovery codes too")
    public TotpRemovedResponse remove(@PathVariable String userId, @PathVariable String factorId) {
        return new TotpRemovedResponse(verification.totp().remove(userId, factorId, ClientContext.none()) ? 1 : 0);
    }
}
