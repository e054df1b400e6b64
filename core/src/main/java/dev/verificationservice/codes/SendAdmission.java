package dev.verificationservice.codes;

import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.ratelimit.Cooldown;
import dev.verificationservice.ratelimit.RateLimitDecision;
import dev.verificationservice.ratelimit.RateLimitRepository;
import dev.verificationservice.ratelimit.RateLimiter;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.security.SecureTokens;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides whether a code may be sent now, by every limit in turn, each keyed by what it protects:
 * <ol>
 *   <li>the user is not locked out of guessing this type (NUMERIC codes only: a lock-out of guessing never
 *   stops a password-reset LINK);</li>
 *   <li>{@code SEND_<type>}: requests of the user for the type;</li>
 *   <li>{@code SEND_TO_TARGET}: sends to the delivery target whatever the userId, counted under the HMAC of
 *   the normalised target ({@code target:<digest>}), never in clear: cycling userIds cannot pump one number or
 *   bomb one inbox;</li>
 *   <li>{@code SEND_FROM_IP}: sends per client address when the caller passes one ({@code ip:<address>}; an
 *   IPv6 address by its /64, the block one subscriber gets);</li>
 *   <li>{@code SMS_BUDGET}: SMS across all users ({@code global}), when a budget is set;</li>
 *   <li>{@code RESEND_<type>}: the cooldown after the user's last code of the type, one conditional write.</li>
 * </ol>
 * Each count is one atomic write, so every limit is exact under concurrency. When one refuses, the places the
 * request took before it are given back: a refused request counts against nothing. The cooldown is claimed
 * last, so it only starts when a code is actually going out.
 */
final class SendAdmission {

    static final String TARGET_ACTION = "SEND_TO_TARGET";
    static final String IP_ACTION = "SEND_FROM_IP";
    static final String SMS_BUDGET_ACTION = "SMS_BUDGET";
    static final String GLOBAL_SUBJECT = "global";

    private static final Logger LOG = LoggerFactory.getLogger(SendAdmission.class);

    private final RateLimiter rateLimiter;
    private final RateLimitRepository counters;
    private final CodePolicy policy;
    private final SecretKeyRing keys;
    private final SecureTokens tokens;
    private final Clock clock;

    SendAdmission(RateLimiter rateLimiter, RateLimitRepository counters, CodePolicy policy, SecretKeyRing keys,
                  SecureTokens tokens, Clock clock) {
        this.rateLimiter = rateLimiter;
        this.counters = counters;
        this.policy = policy;
        this.keys = keys;
        this.tokens = tokens;
        this.clock = clock;
    }

    static String resendAction(CodeType type) {
        return "RESEND_" + type.name();
    }

    /** Empty when the code may go out (every place is taken); otherwise the decision that refused it. */
    Optional<RateLimitDecision> admit(String userId, CodeType type, CodeFormat format, DeliveryMethod method,
                                      String normalizedTarget, ClientContext client) {
        if (format == CodeFormat.NUMERIC) {
            RateLimitDecision failures = rateLimiter.currentOverWindows(userId, CodeService.verifyAction(type),
                    policy.verifyLimit(), policy.verifyLookBack());
            if (failures.limitReached()) {
                return Optional.of(failures);
            }
        }
        List<RateLimitDecision> taken = new ArrayList<>();
        Optional<RateLimitDecision> refused = take(taken, rateLimiter.acquire(userId, CodeService.sendAction(type),
                policy.sendLimit()))
                .or(() -> take(taken, rateLimiter.acquire(targetSubject(method, normalizedTarget), TARGET_ACTION,
                        policy.targetLimit())))
                .or(() -> client.ipAddress().flatMap(ip -> take(taken, rateLimiter.acquire(ipSubject(ip), IP_ACTION,
                        policy.ipLimit()))))
                .or(() -> method == DeliveryMethod.SMS ? policy.smsBudget().flatMap(budget -> {
                    Optional<RateLimitDecision> outOfBudget = take(taken, rateLimiter.acquireUnnamed(GLOBAL_SUBJECT,
                            SMS_BUDGET_ACTION, budget));
                    outOfBudget.ifPresent(decision -> LOG.warn("SMS budget of {} per {} is spent until {}: SMS codes are "
                            + "refused (429 SMS_BUDGET_EXHAUSTED), email still works", budget.limit(), budget.window(),
                            decision.resetsAt()));
                    return outOfBudget;
                }) : Optional.empty())
                .or(() -> claimCooldown(userId, type));
        if (refused.isPresent()) {
            taken.forEach(rateLimiter::release);
        }
        return refused;
    }

    private static Optional<RateLimitDecision> take(List<RateLimitDecision> taken, RateLimitDecision decision) {
        if (decision.allowed()) {
            taken.add(decision);
            return Optional.empty();
        }
        return Optional.of(decision);
    }

    private Optional<RateLimitDecision> claimCooldown(String userId, CodeType type) {
        if (policy.resendCooldown().isZero()) {
            return Optional.empty();
        }
        Instant now = clock.instant();
        String action = resendAction(type);
        return counters.claimCooldown(new Cooldown(userId, action, now, policy.resendCooldown(), tokens.attemptId()))
                .map(busyUntil -> new RateLimitDecision(action, 2, 1, now, busyUntil));
    }

    /** {@code target:<HMAC of the normalised target>}: the target is never counted in clear. */
    String targetSubject(DeliveryMethod method, String normalizedTarget) {
        return "target:" + keys.currentDigest("TARGET|" + DeliveryTargets.countingKey(method, normalizedTarget));
    }

    /** {@code ip:<address>}; an IPv6 address by its /64 prefix, the block one subscriber is given. */
    static String ipSubject(String ipAddress) {
        try {
            byte[] address = InetAddress.getByName(ipAddress).getAddress();
            if (address.length == 16) {
                return "ip:" + HexFormat.of().formatHex(address, 0, 8) + "/64";
            }
            return "ip:" + InetAddress.getByAddress(address).getHostAddress();
        } catch (UnknownHostException e) {
            // Validated as a literal before; a literal is never looked up.
            throw new IllegalStateException("not an IP literal", e);
        }
    }
}
