package dev.verificationservice.bench;

import dev.verificationservice.testsupport.dynamodb.DynamoDbUnits;

/**
 * DynamoDB's on-demand prices, applied to the units {@link DynamoDbUnits} computes from the items a request read
 * or wrote (dynalite's own ConsumedCapacity leaves out index writes and failed conditional writes, so the
 * benchmarks compute the bill themselves).
 */
public final class Billing {

    /** On-demand prices, US East (N. Virginia), standard table class, in force since 2024-11-01 (USD). */
    public static final double USD_PER_MILLION_WRITE_UNITS = 0.625;
    public static final double USD_PER_MILLION_READ_UNITS = 0.125;
    public static final String PRICE_LIST = "DynamoDB on-demand, US East (N. Virginia), standard table class, list "
            + "prices in force since 2024-11-01: $0.625 per million write request units, $0.125 per million read "
            + "request units";

    private Billing() {
    }

    /** USD per million calls of an operation that uses these units per call. */
    public static double usdPerMillion(double readUnits, double writeUnits) {
        return readUnits * USD_PER_MILLION_READ_UNITS + writeUnits * USD_PER_MILLION_WRITE_UNITS;
    }
}
