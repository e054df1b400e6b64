package dev.verificationservice.testsupport.dynamodb.faults;

/**
 * The capacity one partition key may use a second, of a table or of one of its global secondary indexes: the
 * limit {@link PartitionThrottling} holds each key to. DynamoDB's is {@link #DYNAMODB}, whatever the table's
 * capacity mode; a scaled-down test divides it.
 *
 * @param writeUnitsPerSecond write units a second per partition key
 * @param readUnitsPerSecond  read units a second per partition key
 */
public record PartitionLimits(double writeUnitsPerSecond, double readUnitsPerSecond) {

    /** DynamoDB's limits per partition key: 1,000 write units and 3,000 read units a second. */
    public static final PartitionLimits DYNAMODB = new PartitionLimits(1_000, 3_000);

    public PartitionLimits {
        if (!(writeUnitsPerSecond > 0) || !(readUnitsPerSecond > 0)) {
            throw new IllegalArgumentException("a partition's limits are positive: " + writeUnitsPerSecond + " write, "
                    + readUnitsPerSecond + " read units a second");
        }
    }

    /** These limits divided by {@code factor}: {@code DYNAMODB.dividedBy(100)} is 10 write, 30 read units a second. */
    public PartitionLimits dividedBy(double factor) {
        return new PartitionLimits(writeUnitsPerSecond / factor, readUnitsPerSecond / factor);
    }
}
