package dev.verificationservice.bench;

import dev.verificationservice.Verification;
import dev.verificationservice.sms.SmsRange;
import dev.verificationservice.sms.SmsSignals;
import dev.verificationservice.store.memory.MemoryVerificationStore;
import dev.verificationservice.testsupport.pumping.PumpingTally;
import dev.verificationservice.testsupport.time.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;
import java.util.Set;

/**
 * The SMS pumping simulation ({@code bench/run pumping}): the shipped signal defaults on the memory store, time on
 * a hand-moved clock, every figure drawn from one seeded generator, so a seed always gives the same run.
 *
 * <p>Three hours of legitimate traffic, one SMS a second over 20 countries of 50 ranges each (each range's share
 * drawn between 1 and 3), 85 % of the codes verified 5 to 300 seconds after the send. From minute 45, a pumping
 * run: 3,000 SMS, three a second, to random numbers in four ranges of one country (two of them ranges real users
 * send to, two not), each to a new number from a new user and address (so no per-user, per-target or per-address
 * limit stops it: only the range signals can), none verified. Judged by {@link PumpingTally}.
 */
final class PumpingRun {

    static final long[] SEEDS = {1, 2, 3, 4, 5};
    private static final int[] COUNTRIES = {44, 49, 33, 34, 39, 31, 46, 48, 55, 52, 91, 62, 63, 81, 82, 61, 27, 234,
        20, 1};
    private static final int RANGES_PER_COUNTRY = 50;
    private static final Duration LENGTH = Duration.ofHours(3);
    private static final Duration LEGITIMATE_EVERY = Duration.ofSeconds(1);
    private static final Duration PUMP_FROM = Duration.ofMinutes(45);
    private static final int PUMP_SENDS = 3000;
    private static final Duration PUMP_EVERY = Duration.ofMillis(333);
    private static final double VERIFIED = 0.85;

    private PumpingRun() {
    }

    /** One SMS about to be asked for, or one code being verified, at its moment. */
    private record Event(Instant at, long order, String number, Kind kind, boolean inAttackedRange) {
    }

    private enum Kind { LEGITIMATE, PUMP, VERIFY }

    static PumpingTally run(long seed) {
        Random random = new Random(seed);
        Instant start = Instant.parse("2026-12-01T00:00:00Z");
        MutableClock clock = new MutableClock(start);
        Verification verification = Verification.builder().store(new MemoryVerificationStore()).keys(Fixtures.KEYS)
                .sender(new Fixtures.KeepingSender()).clock(clock).build();
        SmsSignals signals = verification.smsSignals();

        List<String> ranges = new ArrayList<>();
        List<Double> weights = new ArrayList<>();
        for (int country : COUNTRIES) {
            Set<String> seen = new HashSet<>();
            while (seen.size() < RANGES_PER_COUNTRY) {
                String range = "+" + country + digits(random, country == 1 ? 6 : 4, true);
                if (seen.add(range)) {
                    ranges.add(range);
                    weights.add(1 + 2 * random.nextDouble());
                }
            }
        }
        double total = weights.stream().mapToDouble(Double::doubleValue).sum();
        // Four ranges of the first country: two real users send to, two nobody does.
        int first = random.nextInt(RANGES_PER_COUNTRY - 1);
        List<String> attacked = new ArrayList<>(List.of(ranges.get(first), ranges.get(first + 1)));
        while (attacked.size() < 4) {
            String fresh = "+44" + digits(random, 4, true);
            if (!ranges.contains(fresh) && !attacked.contains(fresh)) {
                attacked.add(fresh);
            }
        }
        Set<String> attackedPrefixes = new HashSet<>();
        attacked.forEach(prefix -> attackedPrefixes.add(signals.rangeOf(prefix + "000000").orElseThrow().prefix()));

        PriorityQueue<Event> events = new PriorityQueue<>((a, b) -> a.at().equals(b.at())
                ? Long.compare(a.order(), b.order()) : a.at().compareTo(b.at()));
        long order = 0;
        for (Instant at = start; at.isBefore(start.plus(LENGTH)); at = at.plus(LEGITIMATE_EVERY)) {
            String range = pick(random, ranges, weights, total);
            String number = range + digits(random, 6, false);
            events.add(new Event(at, order++, number, Kind.LEGITIMATE, inRange(signals, number, attackedPrefixes)));
        }
        Instant at = start.plus(PUMP_FROM);
        for (int n = 0; n < PUMP_SENDS; n++, at = at.plus(PUMP_EVERY)) {
            String number = attacked.get(random.nextInt(attacked.size())) + digits(random, 6, false);
            events.add(new Event(at, order++, number, Kind.PUMP, true));
        }

        PumpingTally tally = new PumpingTally();
        while (!events.isEmpty()) {
            Event event = events.poll();
            clock.set(event.at());
            if (event.kind() == Kind.VERIFY) {
                signals.verified(event.number());
                continue;
            }
            boolean sent = !signals.check(event.number(), false).refuses();
            if (sent) {
                signals.sent(event.number());
            }
            if (event.kind() == Kind.PUMP) {
                tally.pump(signals.rangeOf(event.number()).map(SmsRange::prefix).orElseThrow(), sent);
            } else {
                tally.legitimate(event.inAttackedRange(), sent);
                if (sent && random.nextDouble() < VERIFIED) {
                    events.add(new Event(event.at().plusSeconds(5 + random.nextInt(296)), order++, event.number(),
                            Kind.VERIFY, event.inAttackedRange()));
                }
            }
        }
        return tally;
    }

    static String table() {
        StringBuilder table = new StringBuilder(PumpingTally.header()).append('\n');
        boolean all = true;
        for (long seed : SEEDS) {
            PumpingTally tally = run(seed);
            all &= tally.goalMet();
            table.append(tally.row(seed)).append('\n');
        }
        return table.append('\n').append(all ? "every seed: GOAL MET" : "some seed: NOT MET").append('\n').toString();
    }

    private static boolean inRange(SmsSignals signals, String number, Set<String> prefixes) {
        return prefixes.contains(signals.rangeOf(number).orElseThrow().prefix());
    }

    private static String pick(Random random, List<String> ranges, List<Double> weights, double total) {
        double point = random.nextDouble() * total;
        for (int index = 0; index < ranges.size(); index++) {
            point -= weights.get(index);
            if (point < 0) {
                return ranges.get(index);
            }
        }
        return ranges.get(ranges.size() - 1);
    }

    /** {@code count} random digits; a leading one from 1 to 9 when {@code leading}, as a national number starts. */
    private static String digits(Random random, int count, boolean leading) {
        StringBuilder digits = new StringBuilder();
        for (int n = 0; n < count; n++) {
            digits.append(n == 0 && leading ? 1 + random.nextInt(9) : random.nextInt(10));
        }
        return digits.toString();
    }

    public static void main(String[] args) {
        System.out.println(table());
    }
}
