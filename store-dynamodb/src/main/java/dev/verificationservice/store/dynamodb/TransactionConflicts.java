package dev.verificationservice.store.dynamodb;

import dev.verificationservice.store.StoreException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.UUID;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Supplier;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsRequest;
import software.amazon.awssdk.services.dynamodb.model.TransactWriteItemsResponse;
import software.amazon.awssdk.services.dynamodb.model.TransactionCanceledException;
import software.amazon.awssdk.services.dynamodb.model.TransactionConflictException;
import software.amazon.awssdk.services.dynamodb.model.TransactionInProgressException;

/**
 * How the store meets what DynamoDB's transactions do to other requests, which the SDK does not retry:
 * <ul>
 *   <li>a plain write to an item that a running transaction holds fails with {@code TransactionConflictException}
 *   and writes nothing: it is sent again after a pause with jitter, up to {@value #MAX_CONFLICT_TRIES} times
 *   (under 1.3 s of pauses), then the caller gets a StoreException (busy, nothing written);</li>
 *   <li>a transaction whose outcome is in doubt (a timeout, throttling, a 5xx, a broken connection: an earlier
 *   attempt of the SDK may have reached DynamoDB; or {@code TransactionInProgressException} for its own earlier
 *   attempt) is sent again under the same
 *   ClientRequestToken until DynamoDB answers it for sure, and at least once after {@link #SETTLE_TIME} has passed
 *   since its first send: AWS advises exactly that for TransactionInProgressException, because such a retry makes
 *   DynamoDB complete the transaction and answer its outcome;</li>
 *   <li>each different request of one attempt (a retry after a cancellation, a retry without the give-back) gets a
 *   token of its own ({@link #clientRequestToken}): DynamoDB answers another request under a used token with
 *   {@code IdempotentParameterMismatchException}, and does not document whether a cancelled token runs again.</li>
 * </ul>
 */
final class TransactionConflicts {

    /** AWS's advice for TransactionInProgressException: at least one retry once 5 s have passed since the first. */
    static final Duration SETTLE_TIME = Duration.ofSeconds(5);
    /** How often a plain write that meets a running transaction is sent. */
    static final int MAX_CONFLICT_TRIES = 6;
    /** DynamoDB's limit on a ClientRequestToken. */
    static final int MAX_TOKEN_LENGTH = 36;
    private static final long BASE_PAUSE_MILLIS = 20;
    private static final long MAX_PAUSE_MILLIS = 640;

    private TransactionConflicts() {
    }

    /**
     * The ClientRequestToken of the {@code send}-th different request of one attempt: the attempt id itself for
     * the first, so that the SDK's and the store's retries of that request are answered "done" by DynamoDB once
     * it committed; the attempt id and the number for each later one.
     */
    static String clientRequestToken(String attemptId, int send) {
        String token = send == 1 ? attemptId : attemptId + "." + send;
        if (token.length() <= MAX_TOKEN_LENGTH) {
            return token;
        }
        return UUID.nameUUIDFromBytes(token.getBytes(StandardCharsets.UTF_8)).toString(); // 36 characters
    }

    /** The write, sent again while it meets a running transaction, up to {@value #MAX_CONFLICT_TRIES} times. */
    static <T> T retryingConflicts(Supplier<T> write) {
        for (int tries = 1; ; tries++) {
            try {
                return write.get();
            } catch (TransactionConflictException e) {
                if (tries >= MAX_CONFLICT_TRIES) {
                    throw e;
                }
                pause(tries);
            }
        }
    }

    /**
     * TransactWriteItems until its outcome is certain: committed (the answer), cancelled (the
     * TransactionCanceledException), or refused for good (any other error of the request itself); a failure
     * that leaves it in doubt is sent again under the same token, as the class says. Past the settle time the last
     * failure is thrown: then the transaction may still have committed.
     */
    static TransactWriteItemsResponse settled(DynamoDbClient client, TransactWriteItemsRequest request) {
        long start = System.nanoTime();
        boolean sentAfterSettleTime = false;
        for (int sends = 1; ; sends++) {
            try {
                return client.transactWriteItems(request);
            } catch (TransactionCanceledException e) {
                throw e;
            } catch (SdkException e) {
                if (!inDoubt(e) || sentAfterSettleTime) {
                    throw e;
                }
                pause(sends);
                sentAfterSettleTime = System.nanoTime() - start >= SETTLE_TIME.toNanos();
            }
        }
    }

    /** Whether the transaction may have been applied although this is what its call ended with. */
    private static boolean inDoubt(SdkException e) {
        return e instanceof TransactionInProgressException
                || DynamoDbTable.kindOf(e) != StoreException.Kind.UNEXPECTED_ANSWER;
    }

    /** Exponential backoff with jitter (half to all of the step), as AWS recommends for conflicts. */
    static void pause(int tries) {
        long cap = Math.min(MAX_PAUSE_MILLIS, BASE_PAUSE_MILLIS << Math.min(tries, 10));
        try {
            Thread.sleep(ThreadLocalRandom.current().nextLong(cap / 2, cap + 1));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new StoreException("interrupted while waiting to retry a DynamoDB write", e);
        }
    }
}
