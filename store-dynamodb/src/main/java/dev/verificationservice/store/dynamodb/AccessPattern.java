package dev.verificationservice.store.dynamodb;

/** The table's access patterns, by which consumed capacity is recorded. */
public enum AccessPattern {
    /** GetItem of the user's code slot (a NUMERIC code) or of {@code CODE#<digest>} (a LINK code). */
    VALIDATE_CODE,
    /** A NUMERIC code's conditional UpdateItem of the user's code slot, or a LINK code's conditional PutItem. */
    INSERT_CODE,
    /** The attempt's TransactWriteItems: {@code SET isUsed = true} on the slot or the LINK code's item. */
    CONSUME_CODE,
    /**
     * UpdateItem clearing the user's code slot, DeleteItem of the LINK code it named, then Query GSI1 for
     * the user's other codes of one type and BatchWriteItem deletes.
     */
    INVALIDATE_CODES,
    /** GetItem of the user's code slot and Query GSI1 for the user's LINK codes of one type: a listing. */
    FIND_CODES,
    /** A LINK code's conditional UpdateItem of the user's code slot, then DeleteItem of the code it replaced. */
    KEEP_NEWEST_CODE,
    /** One code cleared from its slot (NUMERIC) or its item deleted (LINK), after a failed delivery. */
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
    /** TransactWriteItems: a pending TOTP factor and its TOTP_ENROLLED entry. */
    ENROL_TOTP,
    /** Consistent GetItem of one TOTP factor, or consistent Query of a user's factors (on the table, not GSI1). */
    FIND_TOTP,
    /** TransactWriteItems: the factor confirmed on its pending condition, TOTP_CONFIRMED, the give-back. */
    CONFIRM_TOTP,
    /** TransactWriteItems: the replay rule's conditional Update, TOTP_VERIFIED, the give-back. */
    ACCEPT_TOTP_STEP,
    /** DeleteItem of one factor, or the Query of a user's factors then BatchWriteItem deletes. */
    DELETE_TOTP,
    /** PutItem of a passkey challenge on KEY_IS_NEW, or its consistent GetItem. */
    PASSKEY_CHALLENGE,
    /** Consistent GetItem of a passkey, or of the user's passkey item and then each of the user's passkeys. */
    FIND_PASSKEYS,
    /** TransactWriteItems: the challenge consumed, the passkey's Put, the user's ids, PASSKEY_ADDED. */
    REGISTER_PASSKEY,
    /** TransactWriteItems: the challenge consumed, the sign count on its tested value, PASSKEY_VERIFIED, give-back. */
    ACCEPT_PASSKEY,
    /** The user's handle on KEY_IS_NEW, a rename, or revocation's BatchWriteItem deletes and the ids' Update. */
    MANAGE_PASSKEYS,
    /**
     * Consistent GetItem of the user's set marker, then TransactWriteItems: the old set's Deletes, the new set's
     * Puts, the marker's conditioned Put, RECOVERY_CODES_ISSUED.
     */
    ISSUE_RECOVERY_CODES,
    /** Consistent Query of a user's recovery codes. */
    FIND_RECOVERY_CODES,
    /** TransactWriteItems: the code used on its condition, RECOVERY_CODE_USED, the give-back. */
    USE_RECOVERY_CODE,
    /** Query of a user's recovery codes, then BatchWriteItem deletes. */
    DELETE_RECOVERY_CODES,
    /** PutItem, GetItem, Query, DeleteItem of webhook endpoints (the WEBHOOKS partition). */
    WEBHOOK_ENDPOINTS,
    /** Query the OUTBOX index for undelivered events or due deliveries (and their count, for the metrics). */
    OUTBOX,
    /** PutItem on a new key of each delivery of an event, then UpdateItem REMOVE of the entry's outbox attributes. */
    FAN_OUT,
    /** Conditional UpdateItem (a lease) or PutItem (an outcome) of a delivery, its GetItem, and an endpoint's Query. */
    DELIVERY,
    /** PutItem, Query or DeleteItem of a mark in the operators' registry of number ranges (SMSRANGES#...). */
    SMS_RANGE_MARKS,
    /** DescribeTable, for readiness. */
    CHECK_READY
}
