package dev.verificationservice.spring.security;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.boot.test.context.runner.WebApplicationContextRunner;
import org.springframework.context.ApplicationContext;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.security.web.authentication.ott.OneTimeTokenGenerationSuccessHandler;

/**
 * The link sender's places and its refusals, on the starter's beans with an executor the test holds: what is not
 * handed over gets the same answer and one count in the log, never a line of its own.
 */
class LoginLinkSenderTest {

    /** Every username is an account of its own. */
    private static final LoginAccounts EVERYONE = new LoginAccounts() {
        @Override
        public Optional<LoginAccount> findByUsername(String username) {
            return Optional.of(new LoginAccount("user-" + username, username + "@example.com"));
        }

        @Override
        public Optional<String> usernameOf(String userId) {
            return Optional.of(userId.substring("user-".length()));
        }
    };

    private final WebApplicationContextRunner web = LoginContexts.web();
    private final Logger sender = (Logger) LoggerFactory.getLogger(LoginLinkSender.class);
    private final ListAppender<ILoggingEvent> logged = new ListAppender<>();

    @BeforeEach
    void capture() {
        logged.start();
        sender.addAppender(logged);
    }

    @AfterEach
    void release() {
        sender.detachAppender(logged);
    }

    @Test
    void theAddressesOfOneIpv6SlashSixtyFourShareTheirPlaces() {
        List<Runnable> held = new CopyOnWriteArrayList<>();
        web.withBean(LoginAccounts.class, () -> EVERYONE)
                .withBean(LoginAutoConfiguration.EXECUTOR, Executor.class, () -> held::add).run(context -> {
                    for (int i = 1; i <= LoginLinkSender.WAITING_PER_ADDRESS + 1; i++) {
                        assertThat(ask(context, "user" + i, "2001:db8:1:2::" + i)).isEqualTo("/ott/sent");
                    }
                    assertThat(held).hasSize(LoginLinkSender.WAITING_PER_ADDRESS);
                    assertThat(ask(context, "other", "2001:db8:1:3::1")).as("the next /64").isEqualTo("/ott/sent");
                    assertThat(held).hasSize(LoginLinkSender.WAITING_PER_ADDRESS + 1);
                });
        assertThat(logged.list).singleElement().satisfies(line -> assertThat(line.getFormattedMessage())
                .contains(LoginLinkSender.ADDRESS_FULL + " x1").doesNotContain("user6", "2001:db8"));
    }

    @Test
    void aLinkTheExecutorRefusesIsCountedAndGivesItsPlaceBack() {
        Executor full = task -> {
            throw new RejectedExecutionException("full");
        };
        web.withBean(LoginAccounts.class, () -> EVERYONE)
                .withBean(LoginAutoConfiguration.EXECUTOR, Executor.class, () -> full).run(context -> {
                    assertThat(ask(context, "alice", "10.1.0.1")).isEqualTo("/ott/sent");
                    assertThat(logged.list).singleElement().satisfies(line -> assertThat(line.getFormattedMessage())
                            .contains(LoginLinkSender.QUEUE_FULL + " x1").doesNotContain("alice", "10.1.0.1"));
                    // Had the refused link kept its place, this would be refused as waiting already.
                    logged.list.clear();
                    ask(context, "alice", "10.1.0.1");
                    assertThat(logged.list).as("within the minute: counted only").isEmpty();
                });
    }

    @Test
    void aLookupThatFailsGetsTheSameAnswerAndIsCountedWithoutItsMessage() {
        LoginAccounts broken = new LoginAccounts() {
            @Override
            public Optional<LoginAccount> findByUsername(String username) {
                throw new IllegalStateException("no connection while looking up " + username);
            }

            @Override
            public Optional<String> usernameOf(String userId) {
                return Optional.empty();
            }
        };
        web.withBean(LoginAccounts.class, () -> broken).run(context -> {
            assertThat(ask(context, "alice", "10.1.0.2")).isEqualTo("/ott/sent");
        });
        assertThat(logged.list).singleElement().satisfies(line -> {
            assertThat(line.getFormattedMessage()).contains("failed: IllegalStateException x1")
                    .doesNotContain("alice", "no connection");
            assertThat(line.getThrowableProxy()).isNull();
        });
    }

    /** Where the sender sends the browser that asked for {@code username}'s link from {@code address}. */
    private static String ask(ApplicationContext context, String username, String address) throws Exception {
        MockHttpServletRequest request = new MockHttpServletRequest("POST", "/ott/generate");
        request.setRemoteAddr(address);
        MockHttpServletResponse response = new MockHttpServletResponse();
        context.getBean(OneTimeTokenGenerationSuccessHandler.class).handle(request, response,
                new PendingLoginLink(username, Duration.ofMinutes(5), Instant.parse("2026-05-04T08:05:00Z")));
        return response.getRedirectedUrl();
    }
}
