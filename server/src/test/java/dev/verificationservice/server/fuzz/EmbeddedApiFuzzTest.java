package dev.verificationservice.server.fuzz;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.ShrinkingMode;

/** {@link ApiFuzzTest} on the embedded store: a real SQLite file in a fresh directory. */
class EmbeddedApiFuzzTest extends ApiFuzzTest {

    @Override
    FuzzServer.Store store() {
        return FuzzServer.Store.EMBEDDED;
    }

    @Property(tries = 2500, shrinking = ShrinkingMode.BOUNDED)
    void everyGeneratedRequestIsAnsweredWithinTheContract(@ForAll("requests") FuzzRequest request) throws Exception {
        answersWithinTheContract(request);
    }
}
