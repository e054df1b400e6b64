package dev.verificationservice.testsupport.pumping;

import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * What an SMS pumping simulation counted, and its judgement against the goal: the pumping run cut off after at
 * most {@link #MAX_PER_RANGE} SMS per attacked range and {@link #MAX_IN_ALL} in all, while at least
 * {@link #MIN_LEGITIMATE_SHARE} of the legitimate SMS outside the attacked ranges went out (those inside them are
 * reported, not judged: a range under attack is closed to everyone). Pure, so the judgement is tested without
 * running the simulation.
 */
public final class PumpingTally {

    public static final int MAX_PER_RANGE = 100;
    public static final int MAX_IN_ALL = 300;
    public static final double MIN_LEGITIMATE_SHARE = 0.99;

    private final Map<String, Integer> pumpedByRange = new TreeMap<>();
    private int pumpAttempts;
    private int legitimateOutside;
    private int legitimateOutsideSent;
    private int legitimateInside;
    private int legitimateInsideSent;

    /** One SMS of the pumping run to {@code range}, and whether it went out. */
    public void pump(String range, boolean sent) {
        pumpAttempts++;
        pumpedByRange.merge(range, sent ? 1 : 0, Integer::sum);
    }

    /** One legitimate SMS, inside an attacked range or not, and whether it went out. */
    public void legitimate(boolean insideAttackedRange, boolean sent) {
        if (insideAttackedRange) {
            legitimateInside++;
            legitimateInsideSent += sent ? 1 : 0;
        } else {
            legitimateOutside++;
            legitimateOutsideSent += sent ? 1 : 0;
        }
    }

    public int pumpedInAll() {
        return pumpedByRange.values().stream().mapToInt(Integer::intValue).sum();
    }

    public int mostPumpedInOneRange() {
        return pumpedByRange.values().stream().mapToInt(Integer::intValue).max().orElse(0);
    }

    /** The share of legitimate SMS outside the attacked ranges that went out; 1 when there were none. */
    public double legitimateOutsideShare() {
        return legitimateOutside == 0 ? 1 : (double) legitimateOutsideSent / legitimateOutside;
    }

    public boolean goalMet() {
        return mostPumpedInOneRange() <= MAX_PER_RANGE && pumpedInAll() <= MAX_IN_ALL
                && legitimateOutsideShare() >= MIN_LEGITIMATE_SHARE;
    }

    /** One row of the report: the seed's figures and GOAL MET or NOT MET. */
    public String row(long seed) {
        return String.format(Locale.ROOT, "| %d | %,d | %d | %d | %,d of %,d (%.2f %%) | %d of %d | %s |", seed,
                pumpAttempts, mostPumpedInOneRange(), pumpedInAll(), legitimateOutsideSent, legitimateOutside,
                100 * legitimateOutsideShare(), legitimateInsideSent, legitimateInside,
                goalMet() ? "GOAL MET" : "NOT MET");
    }

    public static String header() {
        return "| Seed | Pumping SMS tried | Most sent to one range | Sent in all | Legitimate outside the ranges sent "
                + "| Legitimate inside sent | |\n|---|---|---|---|---|---|---|";
    }
}
