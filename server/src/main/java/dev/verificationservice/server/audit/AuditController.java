package dev.verificationservice.server.audit;

import static io.swagger.v3.oas.annotations.media.Schema.RequiredMode.REQUIRED;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.verificationservice.Verification;
import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditPage;
import dev.verificationservice.server.config.Requests;
import dev.verificationservice.server.config.JsonTimes;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/** {@code GET /v1/users/{userId}/audit}: the security history, newest first, one page at a time. */
@RestController
public class AuditController {

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record AuditEventView(@Schema(requiredMode = REQUIRED) String timestamp,
                                 @Schema(requiredMode = REQUIRED) String eventType,
                                 @Schema(requiredMode = REQUIRED) boolean success, String failureReason,
                                 Map<String, String> details, String ipAddress, String userAgent, String deviceId) {
        public static AuditEventView of(AuditEntry entry) {
            return new AuditEventView(JsonTimes.format(entry.timestamp()), entry.eventType().name(), entry.success(),
                    entry.failureReason().orElse(null), entry.details(), entry.ipAddress().orElse(null),
                    entry.userAgent().orElse(null), entry.deviceId().orElse(null));
        }
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record AuditResponse(@Schema(requiredMode = REQUIRED) List<AuditEventView> events, String nextCursor) {
    }

    private final Verification verification;

    public AuditController(Verification verification) {
        this.verification = verification;
    }

    @GetMapping(path = "/v1/users/{userId}/audit", produces = MediaType.APPLICATION_JSON_VALUE)
    public AuditResponse history(@PathVariable String userId,
                                 @RequestParam(required = false) String from,
                                 @RequestParam(required = false) String to,
                                 @RequestParam(required = false) String limit,
                                 @RequestParam(required = false) String cursor) {
        AuditPage page = verification.audit().query(userId, Requests.optionalInstant("from", from),
                Requests.optionalInstant("to", to), Requests.optionalInt("limit", limit),
                Optional.ofNullable(cursor).filter(value -> !value.isEmpty()));
        return new AuditResponse(page.entries().stream().map(AuditEventView::of).toList(), page.nextCursor().orElse(null));
    }
}
