package dev.verificationservice.codes;

import java.util.Random;

/**
 * A deliberately wrong class for the architecture test: it sits in a domain package and draws a code from
 * {@link Random}, whose next values follow from a few seen ones. It exists only in the server's test sources.
 */
public final class PredictableRandomFixture {

    private PredictableRandomFixture() {
    }

    public static String sixDigits() {
        return String.format("%06d", new Random().nextInt(1_000_000));
    }
}
