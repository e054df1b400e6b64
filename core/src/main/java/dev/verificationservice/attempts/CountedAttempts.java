package dev.verificationservice.attempts;

import dev.verificationservice.ratelimit.RateLimitDecision;
import dev.verificationservice.ratelimit.RateLimitPolicy;
import dev.verificationservice.ratelimit.RateLimiter;
import dev.verificationservice.ratelimit.UserLimit;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one rule for guesses at a user's secrets, the same for every factor: each code type, authenticator apps,
 * recovery codes. A factor names its action and its window limit ({@link #factor}) and gets the rule:
 * <ol>
 *   <li><b>Counted before it is tested.</b> An attempt takes a place in the factor's window limit ({@code <action>},
 *   default 5 per 15 minutes per user) before the secret is tested, so of any number of simultaneous guesses only
 *   the first {@code limit} of a window are tested. The guess that reaches the limit, and every attempt after it
 *   until the window ends, answers TOO_MANY_ATTEMPTS: a third party can keep a user out of one factor for one
 *   window at a time (codes: until the failures leave the windows a live code spans).</li>
 *   <li><b>Wrong answers in a row.</b> A wrong guess also counts in {@code <action>_CONSECUTIVE} ({@link
 *   #DEFAULT_CONSECUTIVE_LIMIT}: 100, counted over the current 30-day window and the one before it, NIST SP
 *   800-63B-4's bound on consecutive failures). The hundredth closes the factor until a success of any of the
 *   user's factors or a remembered device resets the user's counts in a row ({@link #succeeded}), an operator
 *   lifts it, or those wrong answers are more than a whole window old.</li>
 *   <li><b>Only a wrong guess keeps its places.</b> Every other outcome (a success, the user's own used code or
 *   replayed step, nothing to test against, a server fault) gives them back.</li>
 * </ol>
 * <b>No write on the sunny path beyond the window place</b>, which the stores give back in the success's own
 * write: while nothing is counted in a row, an attempt only reads the user's counts in a row of every factor
 * (beside its window place: one round trip, so a success resets what they hold with no read after it), and a wrong
 * answer counts itself afterwards. Once something is counted in a row, every attempt takes its
 * place there before the test as well, so the bound is exact under concurrency (the first simultaneous wrong
 * answers counted afterwards are at most the window limit). A success resets only the counts in a row that hold
 * something.
 *
 * <p><b>A lock-out is remembered.</b> Once the store refuses an attempt, and again at least a second later (a
 * refusal only simultaneous attempts caused does not last), this instance refuses the user's next
 * attempts at the factor from memory for up to 5 seconds ({@link KnownLockOuts}), untested, unaudited and with no
 * store call, and counts them ({@link #refusedFromMemory}): a flood of guesses against a locked-out user costs
 * that user's partitions nothing. A success or a lift on this instance forgets the user's lock-outs at once.
 */
public final class CountedAttempts {

    /** Wrong answers in a row per user and factor: NIST SP 800-63B-4's bound, over a 30-day window and the one before. */
    public static final RateLimitPolicy DEFAULT_CONSECUTIVE_LIMIT = new RateLimitPolicy(100, Duration.ofDays(30));
    /** How a factor's count of wrong answers in a row is named: its action and this. */
    public static final String CONSECUTIVE_SUFFIX = "_CONSECUTIVE";
    /**
     * Windows before the current one that the count in a row also holds: a run of wrong answers cannot start over
     * at a window's boundary, so any two adjacent windows (any 30 days) hold at most the limit.
     */
    static final int CONSECUTIVE_LOOK_BACK = 1;

    private static final Logger LOG = LoggerFactory.getLogger(CountedAttempts.class);

    private final RateLimiter rateLimiter;
    private final RateLimitPolicy consecutiveLimit;
    private final List<CountedFactor> factors = new ArrayList<>();
    private final KnownLockOuts lockOuts;

    public CountedAttempts(RateLimiter rateLimiter, RateLimitPolicy consecutiveLimit) {
        this.rateLimiter = Objects.requireNonNull(rateLimiter, "rateLimiter");
        this.consecutiveLimit = Objects.requireNonNull(consecutiveLimit, "consecutiveLimit");
        this.lockOuts = new KnownLockOuts(rateLimiter.clock());
        if (consecutiveLimit.shards() != 1) {
            throw new IllegalArgumentException("a count in a row is read over several windows, one counter each");
        }
    }

    /** With the default bound on wrong answers in a row ({@link #DEFAULT_CONSECUTIVE_LIMIT}). */
    public CountedAttempts(RateLimiter rateLimiter) {
        this(rateLimiter, DEFAULT_CONSECUTIVE_LIMIT);
    }

    /**
     * The factor counted under {@code action} (for example {@code VERIFY_TOTP}): at most {@code limit} wrong guesses
     * per window, over the current window and {@code lookBack} before it. A factor registered again with the same
     * limits is the same factor.
     */
    public synchronized CountedFactor factor(String action, RateLimitPolicy limit, int lookBack) {
        for (CountedFactor known : factors) {
            if (known.action().equals(action)) {
                if (!known.limit().equals(limit) || known.lookBack() != lookBack) {
                    throw new IllegalArgumentException(action + " is counted already, with other limits");
                }
                return known;
            }
        }
        CountedFactor factor = new CountedFactor(this, action, limit, lookBack);
        factors.add(factor);
        return factor;
    }

    /** Every factor's two limits, the window and the count in a row, in the order the factors were named. */
    public synchronized List<UserLimit> limits() {
        List<UserLimit> limits = new ArrayList<>();
        for (CountedFactor factor : factors) {
            limits.add(new UserLimit(factor.action(), factor::windowState));
            limits.add(new UserLimit(factor.consecutiveAction(), factor::consecutiveState));
        }
        return limits;
    }

    /**
     * A success of one of the user's factors, or of a remembered device: resets every count in a row of the user
     * that holds something (a success costs no write when nothing was counted). A failure to reset is logged, not
     * thrown: the success stands, and the count keeps too many, never too few.
     */
    public void succeeded(String userId) {
        resetConsecutive(userId, Optional.empty(), false, Optional.empty());
    }

    /**
     * Resets the user's counts in a row that hold something; {@code self}, whose count the attempt read already, is
     * reset when {@code selfCounted} and not read again, and so are the others when {@code othersRead} holds them
     * (read beside the attempt's place: a count taken since then stays, too many and never too few).
     */
    void resetConsecutive(String userId, Optional<CountedFactor> self, boolean selfCounted,
                          Optional<List<RateLimitDecision>> othersRead) {
        lockOuts.forgetInARow(userId);
        try {
            List<CountedFactor> others = othersThan(self.orElse(null));
            List<Supplier<RateLimitDecision>> reads = new ArrayList<>();
            others.forEach(factor -> reads.add(() -> factor.consecutiveState(userId)));
            List<RateLimitDecision> states = othersRead.orElseGet(() -> rateLimiter.states(reads));
            List<String> counted = new ArrayList<>();
            self.filter(ignored -> selfCounted).ifPresent(factor -> counted.add(factor.consecutiveAction()));
            states.stream().filter(state -> state.count() > 0).forEach(state -> counted.add(state.action()));
            for (String action : counted) {
                rateLimiter.reset(userId, action);
            }
        } catch (RuntimeException e) {
            LOG.warn("The wrong answers in a row of user {} could not be reset after a success ({}); they stay "
                    + "counted until the next success, a lift or their window's end", userId, e.toString());
        }
    }

    /**
     * An operator lifted a limit of the user: the lock-outs this instance remembers of the user go at once (other
     * instances see the lift within {@link KnownLockOuts#RECHECK}).
     */
    public void lifted(String userId) {
        lockOuts.forget(userId);
    }

    /**
     * Attempts refused from memory since start ({@link CountedFactor#knownLockOut}): they are not audited one by
     * one, so this count (a metric in the server) is where a flood of guesses against locked-out users shows.
     */
    public long refusedFromMemory() {
        return lockOuts.answered();
    }

    /** Every factor but {@code self}, in the order they were named. */
    synchronized List<CountedFactor> othersThan(CountedFactor self) {
        return factors.stream().filter(factor -> factor != self).toList();
    }

    KnownLockOuts lockOuts() {
        return lockOuts;
    }

    RateLimiter rateLimiter() {
        return rateLimiter;
    }

    RateLimitPolicy consecutiveLimit() {
        return consecutiveLimit;
    }
}
