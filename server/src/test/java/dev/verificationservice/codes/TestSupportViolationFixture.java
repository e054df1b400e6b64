package dev.verificationservice.codes;

import dev.verificationservice.testsupport.time.MutableClock;
import java.time.Instant;

/**
 * A deliberately wrong class for the architecture test: it sits in a domain package and takes the tests' clock
 * from the test-support module, which no product class may do. It exists only in the server's test sources.
 */
public final class TestSupportViolationFixture {

    private TestSupportViolationFixture() {
    }

    public static Instant now() {
        return new MutableClock(Instant.EPOCH).instant();
    }
}
