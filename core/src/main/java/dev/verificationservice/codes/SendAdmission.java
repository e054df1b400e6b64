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
import java.util.concurrent.CompletableFuture;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides whether a code may be sent now, by every limit, each keyed by what it protects:
 * <ol>
 *   <li>the user is not locked out of guessing this type (NUMERIC codes only: a lock-out of guessing never
 *   stops a password-reset LINK);</li>
 *   <li>{@code SEND_<type>}: requests of the user for the type;</li>
 *   <li>{@code SEND_TO_TARGET}: sends to the delivery target whatever the userId, counted under the HMAC of
 *   the mailbox the normalised target reaches ({@code target:<digest>}, {@link Mailboxes}), never in clear: cycling userIds cannot pump one number or
 *   bomb one inbox;</li>
 *   <li>{@code SEND_FROM_IP}: sends per client address when the caller passes one ({@code ip:<address>}; an
 *   IPv6 address by its /64, the block one subscriber gets);</li>
 *   <li>{@code SMS_BUDGET}: SMS across all users ({@code global}), when a budget is set;</li>
 *   <li>{@code RESEND_<type>}: the cooldown after the user's last code of the type, one conditional write.</li>
 * </ol>
 * Each count is one atomic write, so every limit is exact under concurrency. In four steps:
 * <ol>
 *   <li>what concerns the user alone, at once (on DynamoDB one round trip): the lock-out read and the place of
 *   item 2, with the caller's read of the user's earlier codes beside them ({@link RateLimiter#beside});</li>
 *   <li>only if those let the request through, the places shared with other users, at once: items 3 and 4. A
 *   user over its own limit, or locked out, never takes a place in a target's or an address's count, not even
 *   for a moment, so a flood from one account cannot crowd out a victim's address or a shared network;</li>
 *   <li>then the SMS budget, alone: its place is unnamed and cannot be given back, so it is only taken once
 *   every other place is granted;</li>
 *   <li>then the cooldown, alone and last, so it only starts when a code is actually going out.</li>
 * </ol>
 * Within a step, the answers are judged in the order of the list once all have come, so the refusal reported
 * is the one the limits checked one after another would report, the first in that order. When one refuses,
 * or a store call fails, every place the request took is given back: a refused request counts against nothing
 * (the SMS budget excepted, whose place cannot be given back when the cooldown refuses after it).
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

    /**
     * Empty when the code may go out (every place is taken); otherwise the decision that refused it.
     * {@code alongside} is a call the caller started beside the first step ({@link RateLimiter#beside}); it is
     * waited for with the first step, and its failure fails the send before the SMS budget and the cooldown are
     * touched, with every place given back.
     */
    Optional<RateLimitDecision> admit(String userId, CodeType type, CodeFormat format, DeliveryMethod method,
                                      String normalizedTarget, ClientContext client, CompletableFuture<?> alongside) {
        // Every subject is worked out before anything goes out.
        String target = targetSubject(method, normalizedTarget);
        Optional<String> ip = client.ipAddress().map(SendAdmission::ipSubject);

        // Every place granted, whatever else answered: all of them go back on a refusal or a failure.
        List<RateLimitDecision> taken = new ArrayList<>();
        Optional<RateLimitDecision> refused;
        try {
            // The first step: what concerns the user alone (the lock-out read, the user's place) and the caller's
            // read of the earlier codes, at once.
            List<Check> first = new ArrayList<>();
            if (format == CodeFormat.NUMERIC) {
                first.add(new Check(true, rateLimiter.beside(() -> rateLimiter.currentOverWindows(userId,
                        CodeService.verifyAction(type), policy.verifyLimit(), policy.verifyLookBack()))));
            }
            first.add(new Check(false, rateLimiter.beside(() -> rateLimiter.acquire(userId,
                    CodeService.sendAction(type), policy.sendLimit()))));
            refused = step(first, Optional.of(alongside), taken);
            if (refused.isEmpty()) {
                RateLimiter.join(alongside);
                // The second step, only for a request the user's own limits let through: the places shared with
                // other users, the target's and the client address's, at once. A user over its own limit never
                // touches them, not even for a moment: a flood from one account cannot crowd out a victim's
                // address or a shared network.
                List<Check> second = new ArrayList<>();
                second.add(new Check(false, rateLimiter.beside(() -> rateLimiter.acquire(target, TARGET_ACTION,
                        policy.targetLimit()))));
                ip.ifPresent(subject -> second.add(new Check(false, rateLimiter.beside(() -> rateLimiter.acquire(
                        subject, IP_ACTION, policy.ipLimit())))));
                refused = step(second, Optional.empty(), taken);
            }
            if (refused.isEmpty()) {
                // Every place is granted: the SMS budget, then the cooldown, each alone.
                refused = smsBudget(method).or(() -> claimCooldown(userId, type));
            }
        } catch (RuntimeException failure) {
            giveBack(taken).ifPresent(failure::addSuppressed);
            throw failure;
        }
        if (refused.isPresent()) {
            Optional<RuntimeException> failed = giveBack(taken);
            if (failed.isPresent()) {
                throw failed.get();
            }
        }
        return refused;
    }

    /**
     * Waits for every call of one step (and {@code alongside}), adds each place granted to {@code taken}, then
     * judges the checks in their order: the first refusal, or the first failure before any refusal, as the
     * checks made one after another would meet it.
     */
    private static Optional<RateLimitDecision> step(List<Check> checks, Optional<CompletableFuture<?>> alongside,
                                                    List<RateLimitDecision> taken) {
        List<CompletableFuture<?>> calls = new ArrayList<>();
        checks.forEach(check -> calls.add(check.call()));
        alongside.ifPresent(calls::add);
        RateLimiter.awaitAll(calls);
        for (Check check : checks) {
            if (!check.lockOut() && !check.call().isCompletedExceptionally()) {
                RateLimitDecision place = check.call().join();
                if (place.allowed()) {
                    taken.add(place);
                }
            }
        }
        return firstRefusal(checks);
    }

    /** One call of a step; a lock-out read refuses when its limit is reached, a place when not allowed. */
    private record Check(boolean lockOut, CompletableFuture<RateLimitDecision> call) {

        boolean refuses(RateLimitDecision decision) {
            return lockOut ? decision.limitReached() : !decision.allowed();
        }
    }

    /**
     * The first refusal in the order of the checks, as the checks made one after another would find it: a call
     * that failed before any refusal fails the send with its own exception.
     */
    private static Optional<RateLimitDecision> firstRefusal(List<Check> checks) {
        for (Check check : checks) {
            RateLimitDecision decision = RateLimiter.join(check.call());
            if (check.refuses(decision)) {
                return Optional.of(decision);
            }
        }
        return Optional.empty();
    }

    /** The global SMS budget, taken only once every other place is granted (its place cannot be given back). */
    private Optional<RateLimitDecision> smsBudget(DeliveryMethod method) {
        if (method != DeliveryMethod.SMS) {
            return Optional.empty();
        }
        return policy.smsBudget().flatMap(budget -> {
            RateLimitDecision decision = rateLimiter.acquireUnnamed(GLOBAL_SUBJECT, SMS_BUDGET_ACTION, budget);
            if (decision.allowed()) {
                return Optional.empty();
            }
            LOG.warn("SMS budget of {} per {} is spent until {}: SMS codes are refused (429 SMS_BUDGET_EXHAUSTED), "
                    + "email still works", budget.limit(), budget.window(), decision.resetsAt());
            return Optional.of(decision);
        });
    }

    /** Gives back every place taken, each tried even if another fails; the first failure, the others added to it. */
    private Optional<RuntimeException> giveBack(List<RateLimitDecision> taken) {
        RuntimeException first = null;
        for (RateLimitDecision place : taken) {
            try {
                rateLimiter.release(place);
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        return Optional.ofNullable(first);
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

    /**
     * {@code target:<HMAC of the mailbox>}: the target is never counted in clear, and an email address is counted
     * as the mailbox it reaches ({@link Mailboxes}), so other spellings of one inbox share its count.
     */
    String targetSubject(DeliveryMethod method, String normalizedTarget) {
        return "target:" + keys.currentDigest("TARGET|"
                + DeliveryTargets.countingKey(method, normalizedTarget, policy.mailboxes()));
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
