package dev.verificationservice.store.dynamodb;

/**
 * Which tables replicated to other Regions (DynamoDB global tables) the store accepts; see docs/multi-region.md.
 * A table of one Region is always accepted, and one of multi-Region strong consistency (MRSC) never: it supports
 * neither the transactions every verification writes nor TTL.
 */
public enum GlobalTableMode {

    /** No global table: replicas in other Regions stop the start (the default). */
    NONE,

    /**
     * A global table of multi-Region eventual consistency (MREC), on the operator's promise that the service writes
     * in one Region only at any time (the other Regions' replicas are read-only copies to fail over to). Conditions
     * and transactions then hold as on one Region; writing in two Regions at once would lose them (last writer wins).
     * The promise covers the webhook relay, which writes with no request on every instance whose webhooks are on;
     * nothing here can check it.
     */
    SINGLE_WRITER
}
