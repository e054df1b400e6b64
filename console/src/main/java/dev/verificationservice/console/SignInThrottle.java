package dev.verificationservice.console;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.stereotype.Component;

/**
 * Slows down guessing of admin keys at the console's sign-in; without it a client tried 1,000 keys in 6.3 s.
 * <ul>
 *   <li><b>Per client address</b>: the {@value #FREE_FAILURES}th failed sign-in in a row, and each one after it,
 *   locks the address out: for {@link #FIRST_LOCK_OUT}, then twice as long each time, up to
 *   {@link #LONGEST_LOCK_OUT}.
 *   A successful sign-in, or {@link #LONGEST_LOCK_OUT} without a failure, forgets the address.</li>
 *   <li><b>Overall</b>: at most {@value #FAILURES_PER_MINUTE} failed sign-ins a minute from all addresses
 *   together, so that many addresses cannot guess fast either; past that every sign-in waits for the next
 *   minute (a distributed guesser can then hold the console's sign-in for a minute at a time, the price of the
 *   cap; the operator API with its key is not affected).</li>
 * </ul>
 * A throttled sign-in is not checked at all, so a guess made while locked out tells nothing. The state is in
 * memory, per instance: the console is an operator's tool on one instance at a time, and a restart forgetting
 * lock-outs costs a guesser a restart of the service, which it cannot cause. Refusals are logged as a summary, at
 * most one line a minute with their count and addresses, never one line per failure.
 */
@Component
public class SignInThrottle {

    static final int FREE_FAILURES = 5;
    static final Duration FIRST_LOCK_OUT = Duration.ofMinutes(1);
    static final Duration LONGEST_LOCK_OUT = Duration.ofHours(1);
    static final int FAILURES_PER_MINUTE = 30;
    static final Duration MINUTE = Duration.ofMinutes(1);
    /** Above this many addresses, the forgotten ones are dropped on each failure: memory stays bounded. */
    private static final int PRUNE_ABOVE = 1000;
    /** Addresses a summary counts at the most (a summary says "at least" then). */
    private static final int MAX_REPORTED_ADDRESSES = 1000;

    private static final Logger LOG = LoggerFactory.getLogger(SignInThrottle.class);

    /** One address's failures since its last success, and until when it is locked out. */
    private record Address(int failures, Instant lastFailure, Instant lockedUntil) {
    }

    private final Clock clock;
    private final Map<String, Address> addresses = new HashMap<>();
    private Instant minuteStart = Instant.EPOCH;
    private int failuresThisMinute;
    // What the next summary line reports, and when it may be written.
    private Instant nextSummary = Instant.EPOCH;
    private int unreportedWrongKeys;
    private int unreportedThrottled;
    private final Set<String> unreportedAddresses = new HashSet<>();

    public SignInThrottle(Clock clock) {
        this.clock = clock;
    }

    /** Empty when a sign-in from {@code address} may be checked now; otherwise how long it must wait. */
    public synchronized Optional<Duration> waitFor(String address) {
        Instant now = clock.instant();
        Duration wait = Duration.ZERO;
        if (failuresThisMinute >= FAILURES_PER_MINUTE && now.isBefore(minuteStart.plus(MINUTE))) {
            wait = Duration.between(now, minuteStart.plus(MINUTE));
        }
        Address known = addresses.get(address);
        if (known != null && now.isBefore(known.lockedUntil())) {
            Duration lockedOut = Duration.between(now, known.lockedUntil());
            wait = lockedOut.compareTo(wait) > 0 ? lockedOut : wait;
        }
        if (wait.isZero()) {
            return Optional.empty();
        }
        unreportedThrottled++;
        report(address, now);
        return Optional.of(wait);
    }

    /** A sign-in from {@code address} offered a key that is not an admin key. */
    public synchronized void failed(String address) {
        Instant now = clock.instant();
        if (!now.isBefore(minuteStart.plus(MINUTE))) {
            minuteStart = now;
            failuresThisMinute = 0;
        }
        failuresThisMinute++;
        Address known = addresses.get(address);
        int failures = known == null || forgotten(known, now) ? 1 : known.failures() + 1;
        Instant lockedUntil = failures < FREE_FAILURES ? Instant.EPOCH
                : now.plus(lockOut(failures - FREE_FAILURES + 1));
        addresses.put(address, new Address(failures, now, lockedUntil));
        if (addresses.size() > PRUNE_ABOVE) {
            addresses.values().removeIf(entry -> forgotten(entry, now));
        }
        unreportedWrongKeys++;
        report(address, now);
    }

    /** A sign-in from {@code address} succeeded: its failures are forgotten. */
    public synchronized void succeeded(String address) {
        addresses.remove(address);
    }

    /** The n-th lock-out (n from 1): the first, doubled n - 1 times, at most the longest. */
    static Duration lockOut(int n) {
        long minutes = FIRST_LOCK_OUT.toMinutes() << Math.min(n - 1, 20);
        Duration lockOut = Duration.ofMinutes(minutes);
        return lockOut.compareTo(LONGEST_LOCK_OUT) > 0 ? LONGEST_LOCK_OUT : lockOut;
    }

    private static boolean forgotten(Address address, Instant now) {
        return !now.isBefore(address.lockedUntil()) && !now.isBefore(address.lastFailure().plus(LONGEST_LOCK_OUT));
    }

    /** Writes the summary when a minute has passed since the last one (so the first refusal is logged at once). */
    private void report(String address, Instant now) {
        if (unreportedAddresses.size() < MAX_REPORTED_ADDRESSES) {
            unreportedAddresses.add(address);
        }
        if (now.isBefore(nextSummary)) {
            return;
        }
        LOG.warn("Console sign-in refused {} time(s) since the last report ({} not an admin key, {} throttled), "
                        + "from {}{} address(es), among them {}", unreportedWrongKeys + unreportedThrottled,
                unreportedWrongKeys, unreportedThrottled,
                unreportedAddresses.size() >= MAX_REPORTED_ADDRESSES ? "at least " : "", unreportedAddresses.size(),
                unreportedAddresses.stream().sorted().limit(10).toList());
        unreportedWrongKeys = 0;
        unreportedThrottled = 0;
        unreportedAddresses.clear();
        nextSummary = now.plus(MINUTE);
    }
}
