package dev.verificationservice.support;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.AuditLog;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.codes.CodeService;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.LiveCode;
import dev.verificationservice.devices.DeviceService;
import dev.verificationservice.devices.DeviceToken;
import dev.verificationservice.ratelimit.RateLimitDecision;
import dev.verificationservice.ratelimit.RateLimiter;
import dev.verificationservice.validation.InvalidInputException;
import dev.verificationservice.validation.Inputs;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * What support staff may do for a user ("why can't this user log in?"): see everything about the user at
 * once, lift a lock-out, kill the user's codes. Every change is audited in the user's history with the
 * operator's key id (never the key).
 */
public final class UserSupport {

    /** How many of the newest audit entries the overview shows. */
    public static final int OVERVIEW_AUDIT_ENTRIES = 20;

    private final CodeService codes;
    private final DeviceService devices;
    private final AuditLog audit;
    private final RateLimiter rateLimiter;

    public UserSupport(CodeService codes, DeviceService devices, AuditLog audit, RateLimiter rateLimiter) {
        this.codes = codes;
        this.devices = devices;
        this.audit = audit;
        this.rateLimiter = rateLimiter;
    }

    /** The user's rate-limit actions an operator may lift: the send and verify limits of every code type. */
    public static Set<String> userActions() {
        Set<String> actions = new TreeSet<>();
        for (CodeType type : CodeType.values()) {
            actions.add(CodeService.sendAction(type));
            actions.add(CodeService.verifyAction(type));
        }
        return actions;
    }

    /** Devices, live codes, rate-limit state and the newest audit entries of one user. */
    public UserOverview overview(String userId) {
        Inputs.userId(userId);
        return new UserOverview(userId, devices.list(userId), codes.liveCodes(userId), codes.rateLimits(userId),
                audit.query(userId, Optional.empty(), Optional.empty(), Optional.of(OVERVIEW_AUDIT_ENTRIES),
                        Optional.empty()).entries());
    }

    /**
     * Lifts a rate limit or lock-out: forgets every window of the action. Audited {@code RATE_LIMIT_RESET}
     * with the action, the operator's key id and how many windows held a count.
     */
    public int liftRateLimit(String userId, String action, String operatorKeyId, ClientContext client) {
        Inputs.userId(userId);
        if (action == null || !userActions().contains(action)) {
            throw new InvalidInputException("action", "must be one of " + userActions());
        }
        int cleared = rateLimiter.reset(userId, action);
        Map<String, String> details = new LinkedHashMap<>();
        details.put("action", action);
        details.put("operatorKeyId", operatorKeyId);
        details.put("windowsCleared", Integer.toString(cleared));
        audit.recordSuccess(userId, AuditEventType.RATE_LIMIT_RESET, details, client);
        return cleared;
    }

    /** Deletes every code of the user, of every type; audited CODES_INVALIDATED with the operator's key id. */
    public int invalidateCodes(String userId, String operatorKeyId, ClientContext client) {
        return codes.invalidateAll(userId, "OPERATOR", Map.of("operatorKeyId", operatorKeyId), client);
    }

    /** The overview's parts, in the order support staff read them. */
    public record UserOverview(String userId, List<DeviceToken> devices, List<LiveCode> liveCodes,
                               List<RateLimitDecision> rateLimits, List<AuditEntry> latestAudit) {
    }
}
