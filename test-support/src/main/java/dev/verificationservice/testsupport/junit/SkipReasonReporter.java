package dev.verificationservice.testsupport.junit;

import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.TestWatcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Says in the build output why a test was skipped. A skip here only ever means an engine lacks an
 * operation (dynalite has no TransactWriteItems or UpdateTimeToLive), and a reader of the build should see
 * that reason, not only a count.
 */
public final class SkipReasonReporter implements TestWatcher {

    private static final Logger LOG = LoggerFactory.getLogger(SkipReasonReporter.class);

    @Override
    public void testAborted(ExtensionContext context, Throwable cause) {
        LOG.warn("SKIPPED {}.{}: {}", context.getRequiredTestClass().getSimpleName(),
                context.getRequiredTestMethod().getName(), cause.getMessage());
    }
}
