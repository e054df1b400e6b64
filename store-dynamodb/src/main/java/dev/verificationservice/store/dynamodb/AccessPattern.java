package dev.verificationservice.store.dynamodb;

/** The table's access patterns, by which consumed capacity is recorded. */
public enum AccessPattern {
    /** GetItem {@code CODE#<digest>}. */
    VALIDATE_CODE,
    /** Conditional PutItem of a new code. */
    INSERT_CODE,
    /** Conditional UpdateItem {@code SET isUsed = true}. */
    CONSUME_CODE,
    /**
     * UpdateItem clearing the user's current-code marker, DeleteItem of the code it named, then Query GSI1 for
     * the user's other codes of one type and BatchWriteItem deletes.
     */
    INVALIDATE_CODES,
    /** Query GSI1 for a user's codes of one type, without deleting (a listing, and what a send tidies up). */
    FIND_CODES,
    /** Conditional UpdateItem of the user's current-code marker, then DeleteItem of the code it replaced. */
    KEEP_NEWEST_CODE,
    /** DeleteItem of one code after a failed delivery. */
    DELETE_CODE,
    /** TransactWriteItems: the device token and its DEVICE_ADDED audit entry. */
    REGISTER_DEVICE,
    /** Conditional UpdateItem sliding a device token's expiry. */
    USE_DEVICE,
    /** Query GSI1 for a user's device tokens. */
    LIST_DEVICES,
    /**
     * Query GSI1 for a user's device tokens (revoke-all), or a consistent Query of one device's partition, then
     * BatchWriteItem deletes.
     */
    REVOKE_DEVICES,
    /** Conditional PutItem of an audit entry. */
    APPEND_AUDIT,
    /** Query on the user's partition over an audit time range. */
    QUERY_AUDIT,
    /** Conditional UpdateItem on a window's counter: take a place, give it back or keep it. */
    COUNT_RATE_LIMIT,
    /** Query on a rate-limit counter's partition. */
    READ_RATE_LIMIT,
    /** Conditional UpdateItem on a cooldown item (a claim), or conditional DeleteItem (its release). */
    CLAIM_COOLDOWN,
    /** Query on a rate-limit counter's partition, then BatchWriteItem deletes (an operator lifting a limit). */
    RESET_RATE_LIMIT,
    /** Claim, complete, release or read an Idempotency-Key. */
    IDEMPOTENCY,
    /** PutItem, GetItem, Query, DeleteItem of webhook endpoints (the WEBHOOKS partition). */
    WEBHOOK_ENDPOINTS,
    /** Query the OUTBOX index for undelivered events or due deliveries (and their count, for the metrics). */
    OUTBOX,
    /** PutItem on a new key of each delivery of an event, then UpdateItem REMOVE of the entry's outbox attributes. */
    FAN_OUT,
    /** Conditional UpdateItem (a lease) or PutItem (an outcome) of a delivery, its GetItem, and an endpoint's Query. */
    DELIVERY,
    /** DescribeTable, for readiness. */
    CHECK_READY
}
