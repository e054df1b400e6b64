package dev.verificationservice.server.admin;

import static io.swagger.v3.oas.annotations.media.Schema.RequiredMode.REQUIRED;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.verificationservice.Verification;
import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.operator.OperatorService;
import dev.verificationservice.server.audit.AuditController.AuditEventView;
import dev.verificationservice.server.config.JsonTimes;
import dev.verificationservice.server.security.ApiKeyFilter;
import dev.verificationservice.sms.NumberRanges;
import dev.verificationservice.sms.SmsFigures;
import dev.verificationservice.sms.SmsSignals;
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
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * The operator API's SMS countries ({@code /v1/admin/sms/countries}): the countries whose breaker is open, and of
 * one country ({@code /{country}}, an ISO region such as {@code GB}) its figures over its shards and its breaker,
 * with its openings and lifts, and the lift of its breaker ({@link OperatorService#liftSmsCountryBreaker}, audited
 * with the operator's key id). Translation only.
 */
@RestController
@RequestMapping(path = ApiKeyFilter.ADMIN_PREFIX + "/sms/countries", produces = MediaType.APPLICATION_JSON_VALUE)
@Tag(name = "operator")
@SecurityRequirement(name = "adminKey")
public class SmsCountriesController {

    /** A country's sends and verifications over the current and previous window, and its breaker if open. */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record SmsCountryView(@Schema(requiredMode = REQUIRED, example = "GB") String country,
                                 @Schema(requiredMode = REQUIRED) long sent,
                                 @Schema(requiredMode = REQUIRED) long verified,
                                 @Schema(requiredMode = REQUIRED) double conversion,
                                 @Schema(description = "When the open breaker closes on its own; absent while closed")
                                 String openUntil,
                                 @Schema(requiredMode = REQUIRED) List<AuditEventView> history) {

        static SmsCountryView of(SmsSignals.CountryState state, List<AuditEntry> history) {
            SmsFigures figures = state.figures();
            return new SmsCountryView(state.country(), figures.sent(), figures.verified(), figures.conversion(),
                    state.openUntil().map(JsonTimes::format).orElse(null),
                    history.stream().map(AuditEventView::of).toList());
        }
    }

    /** A country whose breaker is open: its figures now, when its breaker opened and when it closes on its own. */
    public record OpenCountryRow(@Schema(requiredMode = REQUIRED, example = "GB") String country,
                                 @Schema(requiredMode = REQUIRED) long sent,
                                 @Schema(requiredMode = REQUIRED) long verified,
                                 @Schema(requiredMode = REQUIRED) double conversion,
                                 @Schema(requiredMode = REQUIRED) String openedAt,
                                 @Schema(requiredMode = REQUIRED) String openUntil) {

        static OpenCountryRow of(SmsSignals.OpenCountry open) {
            SmsFigures figures = open.state().figures();
            return new OpenCountryRow(open.state().country(), figures.sent(), figures.verified(),
                    figures.conversion(), JsonTimes.format(open.openedAt()),
                    JsonTimes.format(open.state().openUntil().orElseThrow()));
        }
    }

    /** The countries whose breaker is open, the latest to close first. */
    public record SmsCountriesResponse(@Schema(requiredMode = REQUIRED) List<OpenCountryRow> openBreakers) {
    }

    private final OperatorService support;

    public SmsCountriesController(Verification verification) {
        this.support = verification.operator();
    }

    @GetMapping
    @Operation(summary = "The countries whose SMS breaker is open (the latest to close first), each with its figures "
            + "now (sent, verified over one to two windows, all shards), when it opened and when it closes")
    public SmsCountriesResponse countries(HttpServletRequest request) {
        AdminController.operatorKeyId(request);
        return new SmsCountriesResponse(support.smsCountries().stream().map(OpenCountryRow::of).toList());
    }

    @GetMapping("/{country}")
    @Operation(summary = "A country's SMS figures (sent, verified over one to two windows, all shards) and breaker")
    public SmsCountryView country(@PathVariable String country, HttpServletRequest request) {
        AdminController.operatorKeyId(request);
        String region = region(country);
        return SmsCountryView.of(support.smsCountry(region), support.smsCountryHistory(region));
    }

    public record LiftedCountryBreakerResponse(@Schema(requiredMode = REQUIRED) String country,
                                               @Schema(requiredMode = REQUIRED) boolean wasOpen) {
    }

    @DeleteMapping("/{country}/breaker")
    @Operation(summary = "Lift a country's SMS breaker and forget its figures (audited SMS_RANGE_RELEASED with scope "
            + "country, an sms.range_released event, with the operator's key id, when it was open); other instances "
            + "follow within VERIFICATION_SMS_SIGNALS_COUNTRY_REFRESH")
    public LiftedCountryBreakerResponse lift(@PathVariable String country, HttpServletRequest request) {
        String region = region(country);
        return new LiftedCountryBreakerResponse(region,
                support.liftSmsCountryBreaker(region, AdminController.operatorKeyId(request), ClientContext.none()));
    }

    private static String region(String country) {
        return NumberRanges.region("country", country);
    }
}
