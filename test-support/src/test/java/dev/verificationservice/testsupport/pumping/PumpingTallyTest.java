package dev.verificationservice.testsupport.pumping;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class PumpingTallyTest {

    private static PumpingTally pumped(int perRange, int ranges) {
        PumpingTally tally = new PumpingTally();
        for (int range = 0; range < ranges; range++) {
            for (int n = 0; n < perRange; n++) {
                tally.pump("+44770" + range, true);
            }
            tally.pump("+44770" + range, false);
        }
        return tally;
    }

    @Test
    void aRunCutOffWithinBothLimitsMeetsTheGoal() {
        PumpingTally tally = pumped(100, 3);
        tally.legitimate(false, true);
        assertThat(tally.mostPumpedInOneRange()).isEqualTo(100);
        assertThat(tally.pumpedInAll()).isEqualTo(300);
        assertThat(tally.goalMet()).isTrue();
        assertThat(tally.row(1)).endsWith("GOAL MET |");
    }

    @Test
    void oneRangePastItsLimitOrTooManyInAllFails() {
        assertThat(pumped(101, 1).goalMet()).isFalse();
        assertThat(pumped(61, 5).goalMet()).as("305 in all").isFalse();
    }

    @Test
    void legitimateSmsOutsideTheRangesMustGoOutButThoseInsideAreOnlyReported() {
        PumpingTally tally = pumped(10, 1);
        for (int n = 0; n < 99; n++) {
            tally.legitimate(false, true);
        }
        tally.legitimate(false, false);
        tally.legitimate(true, false);
        assertThat(tally.legitimateOutsideShare()).isEqualTo(0.99);
        assertThat(tally.goalMet()).isTrue();
        tally.legitimate(false, false);
        assertThat(tally.goalMet()).isFalse();
        assertThat(tally.row(7)).contains("0 of 1").endsWith("NOT MET |");
    }
}
