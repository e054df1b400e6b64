package dev.verificationservice.server.ratelimit;

import static io.swagger.v3.oas.annotations.media.Schema.RequiredMode.REQUIRED;

import dev.verificationservice.Verification;
import dev.verificationservice.ratelimit.RateLimitDecision;
import dev.verificationservice.server.config.JsonTimes;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.List;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /v1/users/{userId}/rate-limits}: every limit of the user, as the operator overview lists it (the code
 * types' send limits; each factor's window and wrong answers in a row).
 */
@RestController
public class RateLimitsController {

    public record LimitView(@Schema(requiredMode = REQUIRED) String action,
                            @Schema(requiredMode = REQUIRED) String windowStart,
                            @Schema(requiredMode = REQUIRED) long count,
                            @Schema(requiredMode = REQUIRED) int limit,
                            @Schema(requiredMode = REQUIRED) String resetsAt) {
        public static LimitView of(RateLimitDecision limit) {
            return new LimitView(limit.action(), JsonTimes.format(limit.windowStart()), limit.count(), limit.limit(),
                    JsonTimes.format(limit.resetsAt()));
        }
    }

    public record LimitsResponse(@Schema(requiredMode = REQUIRED) List<LimitView> limits) {
    }

    private final Verification verification;

    public RateLimitsController(Verification verification) {
        this.verification = verification;
    }

    @GetMapping(path = "/v1/users/{userId}/rate-limits", produces = MediaType.APPLICATION_JSON_VALUE)
    public LimitsResponse limits(@PathVariable String userId) {
        return new LimitsResponse(verification.operator().rateLimits(userId).stream().map(LimitView::of).toList());
    }
}
