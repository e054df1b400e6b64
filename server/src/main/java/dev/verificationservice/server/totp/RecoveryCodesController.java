package dev.verificationservice.server.totp;

import static io.swagger.v3.oas.annotations.media.Schema.RequiredMode.REQUIRED;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.verificationservice.Verification;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.recovery.IssuedRecoveryCodes;
import dev.verificationservice.recovery.RecoveryCodeIssue;
import dev.verificationservice.recovery.RecoveryVerification;
import dev.verificationservice.server.config.JsonTimes;
import dev.verificationservice.server.config.Requests;
import dev.verificationservice.server.errors.ApiProblem;
import dev.verificationservice.server.idempotency.IdempotencyFilter;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * Recovery codes: a new set, and the use of one. The rules are the core's; the codes leave the service
 * once, in the answer that issues them.
 */
@RestController
@RequestMapping(path = "/v1/users/{userId}/recovery-codes", produces = MediaType.APPLICATION_JSON_VALUE)
@Tag(name = "totp")
public class RecoveryCodesController {

    /** The problem code of an issue for a user without a confirmed factor. */
    public static final String NO_FACTOR = "NO_FACTOR";
    /** The problem code of an issue that a simultaneous one for the same user came before. */
    public static final String CONFLICT = "RECOVERY_CODES_CONFLICT";

    /** The codes are in this answer and nowhere else, ever. */
    public record RecoveryCodesResponse(@Schema(requiredMode = REQUIRED, description = "10 codes such as "
                                                + "7kq2m-x9fhc, each good once; the earlier set is void")
                                        List<String> recoveryCodes,
                                        @Schema(requiredMode = REQUIRED) String issuedAt) {
        @Override
        public String toString() {
            return "RecoveryCodesResponse[" + recoveryCodes.size() + " code(s), redacted, issuedAt=" + issuedAt + "]";
        }
    }

    public record RecoveryCodeBody(@Schema(requiredMode = REQUIRED, description = "Case, spaces and hyphens do not "
                                           + "matter", example = "7kq2m-x9fhc") String code,
                                   String ipAddress, String userAgent) {
        @Override
        public String toString() {
            return "RecoveryCodeBody[code=<redacted>]";
        }
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record RecoveryVerifyResponse(@Schema(requiredMode = REQUIRED) boolean valid,
                                         @Schema(allowableValues = {"INVALID_CODE", "USED", "TOO_MANY_ATTEMPTS"})
                                         String reason,
                                         @Schema(requiredMode = REQUIRED, description = "Unused codes left")
                                         int remaining) {
    }

    private final Verification verification;

    public RecoveryCodesController(Verification verification) {
        this.verification = verification;
    }

    @PostMapping
    @ResponseStatus(HttpStatus.CREATED)
    @Operation(summary = "A new set of 10 recovery codes, shown this once; the earlier set is void. Only for a user "
            + "with a confirmed factor (else 409 NO_FACTOR); a simultaneous issue for the user that came first makes "
            + "this one a 409 RECOVERY_CODES_CONFLICT")
    public RecoveryCodesResponse issue(@PathVariable String userId) {
        RecoveryCodeIssue issue = verification.totp().regenerateRecoveryCodes(userId, ClientContext.none())
                .orElseThrow(() -> new ApiProblem(HttpStatus.CONFLICT, NO_FACTOR, "The user has no confirmed "
                        + "authenticator factor, so no recovery codes: enrol and confirm a factor first.", Map.of()));
        if (!(issue instanceof RecoveryCodeIssue.Issued issued)) {
            throw new ApiProblem(HttpStatus.CONFLICT, CONFLICT, "Another request issued this user new recovery codes "
                    + "at the same moment, and this one wrote nothing: the user's codes are the ones that request "
                    + "answered. Show those, or send this request again for a new set, which voids them.", Map.of());
        }
        IdempotencyFilter.answerHoldsSecretShownOnce();
        return of(issued.codes());
    }

    @PostMapping(path = "/verify", consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(summary = "Use a recovery code: each works once (USED after); wrong codes count in VERIFY_RECOVERY, "
            + "5 per 15 minutes by default")
    public RecoveryVerifyResponse verify(@PathVariable String userId, @RequestBody RecoveryCodeBody body) {
        Requests.body(body);
        RecoveryVerification result = verification.recovery().verify(userId, body.code(),
                ClientContext.of(body.ipAddress(), body.userAgent(), null));
        String reason = result instanceof RecoveryVerification.Invalid invalid ? invalid.reason().name() : null;
        return new RecoveryVerifyResponse(result.valid(), reason, result.remaining());
    }

    static RecoveryCodesResponse of(IssuedRecoveryCodes issued) {
        return new RecoveryCodesResponse(issued.codes(), JsonTimes.format(issued.issuedAt()));
    }
}
