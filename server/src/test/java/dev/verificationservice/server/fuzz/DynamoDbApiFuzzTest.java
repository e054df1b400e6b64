package dev.verificationservice.server.fuzz;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.ShrinkingMode;

/**
 * {@link ApiFuzzTest} on the DynamoDB store: dynalite of its own, behind the proxy that emulates
 * TransactWriteItems. Fewer tries than on the embedded store: every write is followed by a Scan of the table.
 */
class DynamoDbApiFuzzTest extends ApiFuzzTest {

    @Override
    FuzzServer.Store store() {
        return FuzzServer.Store.DYNAMODB;
    }

    @Property(tries = 1200, shrinking = ShrinkingMode.BOUNDED)
    void everyGeneratedRequestIsAnsweredWithinTheContract(@ForAll("requests") FuzzRequest request) throws Exception {
        answersWithinTheContract(request);
    }
}
