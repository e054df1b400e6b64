package dev.verificationservice.server.admin;

import static io.swagger.v3.oas.annotations.media.Schema.RequiredMode.REQUIRED;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.verificationservice.Verification;
import dev.verificationservice.operator.OperatorService;
import dev.verificationservice.server.config.JsonTimes;
import dev.verificationservice.server.security.ApiKeyFilter;
import dev.verificationservice.sms.SmsRangeMark;
import dev.verificationservice.sms.SmsSignals;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.security.SecurityRequirement;
import io.swagger.v3.oas.annotations.tags.Tag;
import jakarta.servlet.http.HttpServletRequest;
import java.util.List;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The operator API's list of SMS number ranges ({@code GET /v1/admin/sms/ranges}): the open breakers, the worst
 * watched ranges and the allowed ranges, as {@link OperatorService#smsRanges} reads them. Translation only.
 */
@RestController
@Tag(name = "operator")
@SecurityRequirement(name = "adminKey")
public class SmsRangeListController {

    /** A range's figures now (sent, verified over one to two windows), its breaker if open and its allow. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record SmsRangeRow(@Schema(requiredMode = REQUIRED, example = "+447700") String range,
                              @Schema(requiredMode = REQUIRED, example = "GB") String country,
                              @Schema(requiredMode = REQUIRED) long sent,
                              @Schema(requiredMode = REQUIRED) long verified,
                              @Schema(requiredMode = REQUIRED) double conversion,
                              @Schema(description = "When the open breaker closes on its own; absent while closed")
                              String openUntil,
                              @Schema(requiredMode = REQUIRED) boolean allowed) {

        static SmsRangeRow of(SmsSignals.RangeState state) {
            return new SmsRangeRow(state.range().prefix(), state.range().country(), state.figures().sent(),
                    state.figures().verified(), state.figures().conversion(),
                    state.openUntil().map(JsonTimes::format).orElse(null), state.allowed());
        }
    }

    /** A range an operator allowed, when and with which key id. */
    public record AllowedRangeRow(@Schema(requiredMode = REQUIRED, example = "+447700") String range,
                                  @Schema(requiredMode = REQUIRED, example = "GB") String country,
                                  @Schema(requiredMode = REQUIRED) String allowedAt,
                                  @Schema(requiredMode = REQUIRED) String operatorKeyId) {

        static AllowedRangeRow of(SmsRangeMark mark) {
            return new AllowedRangeRow(mark.prefix(), mark.country(), JsonTimes.format(mark.at()),
                    mark.operatorKeyId().orElse(""));
        }
    }

    /**
     * The open breakers (the latest to close first), the ranges whose sends reached half the breaker's minimum in
     * the current or previous window (lowest conversion first, at most 20), the allowed ranges.
     */
    public record SmsRangesResponse(@Schema(requiredMode = REQUIRED) List<SmsRangeRow> openBreakers,
                                    @Schema(requiredMode = REQUIRED) List<SmsRangeRow> worst,
                                    @Schema(requiredMode = REQUIRED) List<AllowedRangeRow> allowed) {
    }

    private final OperatorService support;

    public SmsRangeListController(Verification verification) {
        this.support = verification.operator();
    }

    @GetMapping(path = ApiKeyFilter.ADMIN_PREFIX + "/sms/ranges", produces = MediaType.APPLICATION_JSON_VALUE)
    @Operation(summary = "The open SMS breakers (the latest to close first), the worst number ranges with their "
            + "figures (those whose sends reached half the breaker's minimum in the current or previous window, lowest "
            + "conversion first, at most 20) and the allowed ranges")
    public SmsRangesResponse ranges(HttpServletRequest request) {
        AdminController.operatorKeyId(request);
        SmsSignals.Overview overview = support.smsRanges();
        return new SmsRangesResponse(overview.openBreakers().stream().map(SmsRangeRow::of).toList(),
                overview.worst().stream().map(SmsRangeRow::of).toList(),
                overview.allowed().stream().map(AllowedRangeRow::of).toList());
    }
}
