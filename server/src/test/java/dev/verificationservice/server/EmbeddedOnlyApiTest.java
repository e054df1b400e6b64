package dev.verificationservice.server;

import java.io.IOException;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The API tests that run once, on the embedded store: what HTTP adds to a rule the contract suite proves on both
 * stores, and what is refused before any store takes part (docs/testing.md). The classes share one service.
 */
abstract class EmbeddedOnlyApiTest extends ApiTestSupport {

    @DynamicPropertySource
    static void embeddedStore(DynamicPropertyRegistry registry) throws IOException {
        EmbeddedApiTest.dataDirectory(registry);
    }
}
