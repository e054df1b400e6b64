package dev.verificationservice.codes;

import dev.verificationservice.attempts.CountedFactor;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.ratelimit.Cooldown;
import dev.verificationservice.ratelimit.RateLimitDecision;
import dev.verificationservice.ratelimit.RateLimitPolicy;
import dev.verificationservice.ratelimit.RateLimiter;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.security.SecureTokens;
import dev.verificationservice.sms.SmsRange;
import dev.verificationservice.sms.SmsSignals;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.store.UnitOfWork;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Decides whether a code may be sent now, by every limit, each keyed by what it protects:
 * <ol>
 *   <li>the user is not locked out of guessing this type, by its window or its wrong answers in a row (NUMERIC
 *   codes only: a lock-out of guessing never stops a password-reset LINK);</li>
 *   <li>{@code SEND_<type>}: requests of the user for the type;</li>
 *   <li>{@code SEND_TO_TARGET}: sends to the delivery target whatever the userId, counted under the HMAC of
 *   the mailbox the normalised target reaches ({@code target:<digest>}, {@link Mailboxes}), never in clear: cycling userIds cannot pump one number or
 *   bomb one inbox;</li>
 *   <li>{@code SEND_FROM_IP}: sends per client address when the caller passes one ({@link ClientAddresses}: an
 *   IPv4 address as itself, also when an IPv6 address carries it; any other IPv6 address by its /64, the block
 *   one subscriber gets);</li>
 *   <li>{@code RESEND_<type>}: the cooldown after the user's last code of the type, one conditional write;</li>
 *   <li>{@code SMS_BUDGET}: SMS across all users ({@code global}), when a budget is set;</li>
 *   <li>the SMS breakers of the number's range and country ({@link SmsSignals}), for an SMS while the signals are
 *   on: the range's four reads (and, when the instance's view of the country is due, the country's) go with the
 *   first step, so they add no round trip; they are judged once the user's own limits let the
 *   request through, before any shared place is taken. A read that fails lets the SMS go (fail open), noted on the
 *   admission ({@link SmsSignals.Unavailable}).</li>
 * </ol>
 * Each count is one atomic write, so every limit is exact under concurrency. In four steps:
 * <ol>
 *   <li>what concerns the user alone, at once (on DynamoDB one round trip): the lock-out reads and the place of
 *   item 2 (independent calls, handed to the store together: {@link UnitOfWork#together});</li>
 *   <li>only if those let the request through, the places shared with other users, at once: items 3 and 4. A
 *   user over its own limit, or locked out, never takes a place in a target's or an address's count, not even
 *   for a moment, so a flood from one account cannot crowd out a victim's address or a shared network;</li>
 *   <li>then the cooldown, alone, so it only starts for a request every place let through;</li>
 *   <li>then the SMS budget, alone and last: a request the cooldown refuses (one user resending into it, however
 *   many at once) never touches the count every user shares, not even for a moment. When the budget refuses,
 *   the cooldown claimed a moment before is released, so the user may try again at once.</li>
 * </ol>
 * Within a step, the answers are judged in the order of the list once all have come, so the refusal reported
 * is the one the limits checked one after another would report, the first in that order. When one refuses,
 * or a store call fails, every place the request took is given back and its cooldown released: a refused
 * request holds nothing. Every place is named by its attempt id (a retried write counts once, a place goes back
 * once), the budget's too; once the SMS is handed to the channel the budget's place stays counted, with no write
 * (a counter holds no mark per place). A send that fails after admission and before its message goes out gives
 * everything back ({@link #withdraw}).
 */
final class SendAdmission {

    static final String TARGET_ACTION = "SEND_TO_TARGET";
    static final String IP_ACTION = "SEND_FROM_IP";
    static final String SMS_BUDGET_ACTION = "SMS_BUDGET";
    static final String GLOBAL_SUBJECT = "global";

    private static final Logger LOG = LoggerFactory.getLogger(SendAdmission.class);

    private final RateLimiter rateLimiter;
    private final CodePolicy policy;
    private final SecretKeyRing keys;
    private final SecureTokens tokens;
    private final Clock clock;
    private final UnitOfWork units;

    private final Map<CodeType, CountedFactor> factors;
    private final SmsSignals signals;

    /**
     * @param factors each type's counted attempts, whose lock-outs stop a NUMERIC send
     * @param signals the SMS pumping signals, whose range breaker stops an SMS
     */
    SendAdmission(CodePolicy policy, RateLimiter rateLimiter, SecretKeyRing keys, SecureTokens tokens, Clock clock,
                  UnitOfWork units, Map<CodeType, CountedFactor> factors, SmsSignals signals) {
        this.factors = factors;
        this.signals = signals;
        this.rateLimiter = rateLimiter;
        this.policy = policy;
        this.keys = keys;
        this.tokens = tokens;
        this.clock = clock;
        this.units = units;
    }

    static String resendAction(CodeType type) {
        return "RESEND_" + type.name();
    }

    /** What admission decided about one send. */
    sealed interface Outcome permits Admitted, Refused, RangeBlocked {
    }

    /**
     * The send may go out: every place it took (its place in the SMS budget among them) and the cooldown it
     * claimed. {@link #withdraw} it if its message does not go out. {@code sms}: what the SMS signals said, for an
     * SMS while they are on.
     */
    record Admitted(List<RateLimitDecision> places, Optional<Cooldown> cooldown, Optional<SmsSignals.Verdict> sms)
            implements Outcome {

        Admitted(List<RateLimitDecision> places, Optional<Cooldown> cooldown) {
            this(places, cooldown, Optional.empty());
        }
    }

    /** The breaker of the number's range is open: the SMS is refused, and nothing of it is held any more. */
    record RangeBlocked(SmsSignals.Blocked verdict) implements Outcome {
    }

    /**
     * The send admission decides about, every value already checked and normalised.
     *
     * @param normalizedTarget the delivery target as {@link DeliveryTargets#normalize} wrote it
     * @param client           the caller's address (for the per-address limit) and user agent
     * @param humanVerified    the caller, permitted to say so, checked a human itself: an open breaker lets it by
     */
    record Send(String userId, CodeType type, CodeFormat format, DeliveryMethod method, String normalizedTarget,
                ClientContext client, boolean humanVerified) {
    }

    /** A limit refused the send, and nothing of it is held any more. */
    record Refused(RateLimitDecision decision) implements Outcome {
    }

    /** Admits the send (every place taken, the cooldown claimed) or says which limit refused it. */
    Outcome admit(Send send) {
        String userId = send.userId();
        CodeType type = send.type();
        DeliveryMethod method = send.method();
        // Every subject is worked out before anything goes out.
        String target = targetSubject(method, send.normalizedTarget());
        Optional<String> ip = send.client().ipAddress().map(ClientAddresses::subject);

        // Every place granted, whatever else answered, and the cooldown once claimed: all of it goes back on a
        // refusal or a failure.
        List<RateLimitDecision> taken = new ArrayList<>();
        Optional<Cooldown> claimed = Optional.empty();
        Optional<RateLimitDecision> refused;
        Optional<SmsRange> range = method == DeliveryMethod.SMS && signals.enabled()
                ? signals.rangeOf(send.normalizedTarget()) : Optional.empty();
        Optional<SmsSignals.Verdict> sms = Optional.empty();
        try {
            // The first step: what concerns the user alone (the lock-out reads, the user's place), at once.
            List<Check> first = new ArrayList<>();
            if (send.format() == CodeFormat.NUMERIC) {
                CountedFactor factor = factors.get(type);
                first.add(new Check(true, () -> factor.windowState(userId)));
                first.add(new Check(true, () -> factor.consecutiveState(userId)));
            }
            first.add(new Check(false, () -> rateLimiter.acquire(userId, CodeService.sendAction(type),
                    policy.sendLimit())));
            // The range's breaker and figures ride with the first step: no round trip of their own.
            List<Supplier<Object>> signalReads = new ArrayList<>();
            range.ifPresent(found -> signals.reads(found).forEach(read -> signalReads.add(read::get)));
            List<UnitOfWork.Settled<Object>> signalAnswers = new ArrayList<>();
            refused = step(first, taken, signalReads, signalAnswers);
            if (refused.isEmpty() && range.isPresent()) {
                sms = Optional.of(judge(range.get(), signalAnswers, send.humanVerified()));
            }
            // A blocked range takes no place shared with other users, as a user over its own limit takes none.
            boolean blocked = sms.filter(SmsSignals.Verdict::refuses).isPresent();
            if (refused.isEmpty() && !blocked) {
                // The second step, only for a request the user's own limits let through: the places shared with
                // other users, the target's and the client address's, at once. A user over its own limit never
                // touches them, not even for a moment: a flood from one account cannot crowd out a victim's
                // address or a shared network.
                List<Check> second = new ArrayList<>();
                second.add(new Check(false, () -> rateLimiter.acquire(target, TARGET_ACTION, policy.targetLimit())));
                ip.ifPresent(subject -> second.add(new Check(false, () -> rateLimiter.acquire(subject, IP_ACTION,
                        policy.ipLimit()))));
                refused = step(second, taken, List.of(), new ArrayList<>());
            }
            Optional<Cooldown> cooldown = refused.isEmpty() && !blocked ? cooldown(userId, type) : Optional.empty();
            if (cooldown.isPresent()) {
                // Every place is granted: the cooldown, alone. Before the SMS budget, so that requests the
                // cooldown refuses (one user's flood of resends) never touch the count all users share.
                refused = claim(cooldown.get());
                claimed = refused.isEmpty() ? cooldown : Optional.empty();
            }
            if (refused.isEmpty() && !blocked && method == DeliveryMethod.SMS && policy.smsBudget().isPresent()) {
                // Last and alone: the SMS budget. Its place is named, so it goes back like any other.
                RateLimitDecision budget = smsBudget(policy.smsBudget().get());
                if (budget.allowed()) {
                    taken.add(budget);
                } else {
                    refused = Optional.of(budget);
                }
            }
        } catch (RuntimeException failure) {
            withdraw(new Admitted(taken, claimed)).ifPresent(failure::addSuppressed);
            throw failure;
        }
        Optional<SmsSignals.Verdict> verdict = sms;
        Admitted held = new Admitted(List.copyOf(taken), claimed, verdict);
        if (refused.isPresent() || verdict.filter(SmsSignals.Verdict::refuses).isPresent()) {
            // A refused send leaves nothing of its admission: every place and the cooldown go back, the same calls
            // on every store (inside the embedded store's unit they commit with it).
            withdraw(held).ifPresent(failed -> {
                throw failed;
            });
            return refused.<Outcome>map(Refused::new)
                    .orElseGet(() -> new RangeBlocked((SmsSignals.Blocked) verdict.orElseThrow()));
        }
        return held;
    }

    /**
     * Gives back everything an admitted send holds (every place, the cooldown): for a send refused or failed
     * before its message is handed to the channel, which must count against nothing. The give-backs are
     * independent calls: each runs even if another fails; the first failure, the others added to it.
     */
    Optional<RuntimeException> withdraw(Admitted admitted) {
        List<Supplier<Void>> returns = new ArrayList<>();
        admitted.places().forEach(place -> returns.add(() -> {
            rateLimiter.release(place);
            return null;
        }));
        admitted.cooldown().ifPresent(cooldown -> returns.add(() -> {
            rateLimiter.releaseCooldown(cooldown);
            return null;
        }));
        try {
            units.together(returns);
            return Optional.empty();
        } catch (RuntimeException first) {
            return Optional.of(first);
        }
    }

    /**
     * Hands every call of one step to the store as independent calls, adds each place granted to {@code taken},
     * then judges the checks in their order: the first refusal, or the first failure before any refusal, as the
     * checks made one after another would meet it.
     */
    private Optional<RateLimitDecision> step(List<Check> checks, List<RateLimitDecision> taken,
                                             List<Supplier<Object>> beside, List<UnitOfWork.Settled<Object>> besideAnswers) {
        List<Supplier<Object>> calls = new ArrayList<>();
        checks.forEach(check -> calls.add(check.call()::get));
        calls.addAll(beside);
        List<UnitOfWork.Settled<Object>> answers = units.settle(calls);
        besideAnswers.addAll(answers.subList(checks.size(), answers.size()));
        for (int index = 0; index < checks.size(); index++) {
            if (!checks.get(index).lockOut() && !answers.get(index).failed()) {
                RateLimitDecision place = (RateLimitDecision) answers.get(index).value();
                if (place.allowed()) {
                    taken.add(place);
                }
            }
        }
        for (int index = 0; index < checks.size(); index++) {
            RateLimitDecision decision = (RateLimitDecision) answers.get(index).get();
            if (checks.get(index).refuses(decision)) {
                return Optional.of(decision);
            }
        }
        return Optional.empty();
    }

    /**
     * The range's verdict from its reads' answers: unavailable (the SMS goes) when one failed, or when the
     * breaker's opening write fails.
     */
    @SuppressWarnings("unchecked")
    private SmsSignals.Verdict judge(SmsRange range, List<UnitOfWork.Settled<Object>> answers, boolean humanVerified) {
        if (answers.stream().anyMatch(UnitOfWork.Settled::failed)) {
            LOG.warn("The SMS signals of {} could not be read: the SMS goes unjudged", range.prefix());
            return signals.unavailable(Optional.of(range));
        }
        List<List<dev.verificationservice.ratelimit.RateLimitCounter>> found = new ArrayList<>();
        answers.forEach(answer -> found.add((List<dev.verificationservice.ratelimit.RateLimitCounter>) answer.value()));
        try {
            return signals.judge(signals.state(range, found), humanVerified);
        } catch (StoreException fault) {
            LOG.warn("The SMS breaker of {} could not be written: the SMS goes unjudged", range.prefix());
            return signals.unavailable(Optional.of(range));
        }
    }

    /** One call of a step; a lock-out read refuses when its limit is reached, a place when not allowed. */
    private record Check(boolean lockOut, Supplier<RateLimitDecision> call) {

        boolean refuses(RateLimitDecision decision) {
            return lockOut ? decision.limitReached() : !decision.allowed();
        }
    }

    /** The send's place in the global SMS budget, named like every place so that it can go back. */
    private RateLimitDecision smsBudget(RateLimitPolicy budget) {
        RateLimitDecision decision = rateLimiter.acquire(GLOBAL_SUBJECT, SMS_BUDGET_ACTION, budget);
        if (!decision.allowed()) {
            LOG.warn("SMS budget of {} per {} is spent until {}: SMS codes are refused (429 SMS_BUDGET_EXHAUSTED), "
                    + "email still works", budget.limit(), budget.window(), decision.resetsAt());
        }
        return decision;
    }

    /** The cooldown this send would claim; empty when there is none. */
    private Optional<Cooldown> cooldown(String userId, CodeType type) {
        if (policy.resendCooldown().isZero()) {
            return Optional.empty();
        }
        return Optional.of(new Cooldown(userId, resendAction(type), clock.instant(), policy.resendCooldown(),
                tokens.attemptId()));
    }

    /** Claims the cooldown; a failed call releases it (its write may have landed with the answer lost). */
    private Optional<RateLimitDecision> claim(Cooldown cooldown) {
        return RateLimiter.undoneOnFailure(() -> rateLimiter.claimCooldown(cooldown),
                        () -> rateLimiter.releaseCooldown(cooldown))
                .map(end -> new RateLimitDecision(cooldown.action(), 2, 1, cooldown.now(), end));
    }

    /**
     * {@code target:<HMAC of the mailbox>}: the target is never counted in clear, and an email address is counted
     * as the mailbox it reaches ({@link Mailboxes}), so other spellings of one inbox share its count.
     */
    String targetSubject(DeliveryMethod method, String normalizedTarget) {
        return "target:" + keys.currentDigest("TARGET|"
                + DeliveryTargets.countingKey(method, normalizedTarget, policy.mailboxes()));
    }
}
