package dev.verificationservice.spring.logging;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.verificationservice.testsupport.time.MutableClock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/** The log that no request rate can flood: its lines, on a clock the test moves, read from Logback itself. */
class RefusalLogTest {

    private final MutableClock clock = new MutableClock(Instant.parse("2026-11-30T10:00:00Z"));
    private final Logger logger = (Logger) LoggerFactory.getLogger(RefusalLogTest.class);
    private final RefusalLog log = new RefusalLog(clock, logger, "Refused requests");
    private final ListAppender<ILoggingEvent> lines = new ListAppender<>();

    @BeforeEach
    void capture() {
        lines.start();
        logger.addAppender(lines);
    }

    @AfterEach
    void release() {
        logger.detachAppender(lines);
    }

    @Test
    void refusalsFromManyThreadsMakeOneLineAMinuteThatCountsEveryOne() throws Exception {
        ExecutorService threads = Executors.newFixedThreadPool(4);
        List<Future<?>> done = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            String what = i % 2 == 0 ? "401 /v1" : "415 /actuator";
            done.add(threads.submit(() -> {
                for (int n = 0; n < 2_500; n++) {
                    log.refused(what);
                }
            }));
        }
        for (Future<?> future : done) {
            future.get();
        }
        threads.shutdown();
        assertThat(lines.list).as("the first refusal of the minute only").hasSize(1);

        clock.advance(Duration.ofSeconds(59));
        log.refused("400 /v1");
        assertThat(lines.list).as("still within the minute").hasSize(1);

        clock.advance(Duration.ofSeconds(1));
        log.refused("400 /v1");
        assertThat(lines.list).hasSize(2);
        ILoggingEvent summary = lines.list.get(1);
        assertThat(summary.getLevel()).isEqualTo(Level.WARN);
        assertThat(summary.getThrowableProxy()).isNull();
        // 10,000 refusals, of which the first was in the first line: each one counted once, none lost.
        String first = lines.list.get(0).getFormattedMessage();
        long inFirst = first.contains("401 /v1 x1") ? 1 : 0;
        assertThat(summary.getFormattedMessage()).contains("since 2026-11-30T10:00:00Z", "400 /v1 x2",
                "401 /v1 x" + (5_000 - inFirst), "415 /actuator x" + (4_999 + inFirst));
    }

    @Test
    void unexpectedFailuresLogOneStackTraceAMinuteAndCountTheRest() {
        for (int i = 0; i < 1_000; i++) {
            log.failed(new IllegalStateException("boom " + i));
        }
        assertThat(lines.list).hasSize(1);
        assertThat(lines.list.get(0).getLevel()).isEqualTo(Level.ERROR);
        assertThat(lines.list.get(0).getThrowableProxy().getMessage()).isEqualTo("boom 0");

        log.refused("401 /v1");
        assertThat(lines.list).as("refusals do not wait for failures, nor failures for refusals").hasSize(2);

        clock.advance(RefusalLog.INTERVAL);
        log.failed(new IllegalArgumentException("later"));
        assertThat(lines.list).hasSize(3);
        assertThat(lines.list.get(2).getFormattedMessage())
                .contains("IllegalArgumentException x1", "IllegalStateException x999");
        assertThat(lines.list.get(2).getThrowableProxy().getMessage()).isEqualTo("later");
    }
}
