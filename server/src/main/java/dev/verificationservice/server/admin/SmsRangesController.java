package dev.verificationservice.server.admin;

import static io.swagger.v3.oas.annotations.media.Schema.RequiredMode.REQUIRED;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import dev.verificationservice.Verification;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.operator.OperatorService;
import dev.verificationservice.server.admin.SmsRangeListController.SmsRangeRow;
import dev.verificationservice.server.audit.AuditController.AuditEventView;
import dev.verificationservice.server.security.ApiKeyFilter;
import dev.verificationservice.sms.NumberRanges;
import dev.verificationservice.sms.SmsRange;
import dev.verificationservice.sms.SmsSignals;
import dev.verificationservice.validation.InvalidInputException;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.security.SecurityRequirement;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.servlet.http.HttpServletRequest;
import java.util.List;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PutMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The operator API's SMS number ranges ({@code /v1/admin/sms/ranges/{prefix}}, a prefix such as {@code +447700}):
 * a range's figures and breaker as the next SMS to it would be judged, with its openings and lifts, and the lift
 * of its breaker ({@link OperatorService#liftSmsBreaker}, audited with the operator's key id), and its allow (set and
 * removed, audited likewise). Translation only.
 */
@RestController
@RequestMapping(path = ApiKeyFilter.ADMIN_PREFIX + "/sms/ranges/{prefix}", produces = MediaType.APPLICATION_JSON_VALUE)
@Tag(name = "operator")
@SecurityRequirement(name = "adminKey")
public class SmsRangesController {

    /** A range's figures, breaker and allow ({@link SmsRangeRow}), with its openings, lifts and allows. */
    public record SmsRangeView(@JsonUnwrapped SmsRangeRow figures,
                               @Schema(requiredMode = REQUIRED) List<AuditEventView> history) {
    }

    public record AllowedRangeResponse(@Schema(requiredMode = REQUIRED) String range,
                                       @Schema(requiredMode = REQUIRED) boolean wasAllowed) {
    }

    public record LiftedBreakerResponse(@Schema(requiredMode = REQUIRED) String range,
                                        @Schema(requiredMode = REQUIRED) boolean wasOpen) {
    }

    private final OperatorService support;

    public SmsRangesController(Verification verification) {
        this.support = verification.operator();
    }

    @GetMapping
    @Operation(summary = "A number range's SMS figures (sent, verified over one to two windows) and breaker")
    public SmsRangeView range(@PathVariable String prefix, HttpServletRequest request) {
        AdminController.operatorKeyId(request);
        SmsRange range = range(prefix);
        SmsSignals.RangeState state = support.smsRange(range);
        return new SmsRangeView(SmsRangeRow.of(state),
                support.smsRangeHistory(range).stream().map(AuditEventView::of).toList());
    }

    @DeleteMapping("/breaker")
    @Operation(summary = "Lift a number range's SMS breaker and forget its figures (audited SMS_RANGE_RELEASED, an "
            + "sms.range_released event, with the operator's key id, when it was open)")
    public LiftedBreakerResponse lift(@PathVariable String prefix, HttpServletRequest request) {
        SmsRange range = range(prefix);
        return new LiftedBreakerResponse(range.prefix(),
                support.liftSmsBreaker(range, AdminController.operatorKeyId(request), ClientContext.none()));
    }

    @PutMapping("/allowed")
    @Operation(summary = "Allow a number range: its SMS breaker never refuses it until the allow is removed "
            + "(audited SMS_RANGE_ALLOWED, an sms.range_allowed event, with the operator's key id); a repeat changes "
            + "nothing")
    public AllowedRangeResponse allow(@PathVariable String prefix, HttpServletRequest request) {
        return allowed(prefix, request, true);
    }

    @DeleteMapping("/allowed")
    @Operation(summary = "Remove a number range's allow: its breaker judges it again (audited SMS_RANGE_DISALLOWED "
            + "when it was allowed)")
    public AllowedRangeResponse disallow(@PathVariable String prefix, HttpServletRequest request) {
        return allowed(prefix, request, false);
    }

    /** Allows the range or removes its allow, answering whether it was allowed before. */
    private AllowedRangeResponse allowed(String prefix, HttpServletRequest request, boolean allow) {
        SmsRange range = range(prefix);
        String keyId = AdminController.operatorKeyId(request);
        return new AllowedRangeResponse(range.prefix(), allow ? !support.allowSmsRange(range, keyId, ClientContext.none())
                : support.disallowSmsRange(range, keyId, ClientContext.none()));
    }

    private static SmsRange range(String prefix) {
        return NumberRanges.rangeOfPrefix(prefix).orElseThrow(() -> new InvalidInputException("prefix",
                "must be a number range as '+', a country calling code and national digits, such as +447700"));
    }
}
