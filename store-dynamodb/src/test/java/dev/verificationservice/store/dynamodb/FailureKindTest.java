package dev.verificationservice.store.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.store.StoreException;
import java.net.ConnectException;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.ApiCallAttemptTimeoutException;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.services.dynamodb.model.DynamoDbException;
import software.amazon.awssdk.services.dynamodb.model.TransactionConflictException;
import software.amazon.awssdk.services.dynamodb.model.TransactionInProgressException;

/** What the store tells its caller of each kind of SDK failure (the server's 503 says it in words). */
class FailureKindTest {

    private static DynamoDbException answered(int status, String errorCode) {
        return (DynamoDbException) DynamoDbException.builder().statusCode(status)
                .awsErrorDetails(AwsErrorDetails.builder().errorCode(errorCode).errorMessage("m").build())
                .message(errorCode).build();
    }

    @Test
    void eachFailureIsNamedForWhatItIs() {
        assertThat(DynamoDbTable.kindOf(ApiCallTimeoutException.create(3000)))
                .isEqualTo(StoreException.Kind.TIMED_OUT);
        assertThat(DynamoDbTable.kindOf(ApiCallAttemptTimeoutException.create(1000)))
                .isEqualTo(StoreException.Kind.TIMED_OUT);
        assertThat(DynamoDbTable.kindOf(answered(400, "ProvisionedThroughputExceededException")))
                .isEqualTo(StoreException.Kind.THROTTLED);
        assertThat(DynamoDbTable.kindOf(answered(400, "ThrottlingException")))
                .isEqualTo(StoreException.Kind.THROTTLED);
        assertThat(DynamoDbTable.kindOf(answered(500, "InternalFailure")))
                .isEqualTo(StoreException.Kind.FAILED);
        assertThat(DynamoDbTable.kindOf(answered(400, "UnknownOperationException")))
                .isEqualTo(StoreException.Kind.UNEXPECTED_ANSWER);
        assertThat(DynamoDbTable.kindOf(SdkClientException.builder().message("refused")
                .cause(new ConnectException("Connection refused")).build()))
                .isEqualTo(StoreException.Kind.UNREACHABLE);
        assertThat(DynamoDbTable.kindOf(SdkClientException.create("something else")))
                .isEqualTo(StoreException.Kind.FAILED);
    }

    /** Issue 22: what is left of a running transaction after the store's own retries. */
    @Test
    void aRunningTransactionIsBusyForAPlainWriteAndNotInTimeForItsOwnRetry() {
        AwsErrorDetails conflict = AwsErrorDetails.builder().errorCode("TransactionConflictException")
                .errorMessage("Transaction is ongoing for the item").build();
        assertThat(DynamoDbTable.kindOf(TransactionConflictException.builder().statusCode(400)
                .awsErrorDetails(conflict).message("m").build()))
                .as("nothing was written; the SDK would call it neither throttling nor a timeout")
                .isEqualTo(StoreException.Kind.BUSY);
        AwsErrorDetails inProgress = AwsErrorDetails.builder().errorCode("TransactionInProgressException")
                .errorMessage("m").build();
        assertThat(DynamoDbTable.kindOf(TransactionInProgressException.builder().statusCode(400)
                .awsErrorDetails(inProgress).message("m").build()))
                .as("the SDK counts it as throttling; it is the transaction's own earlier try still running")
                .isEqualTo(StoreException.Kind.TIMED_OUT);
    }
}
