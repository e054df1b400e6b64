package dev.verificationservice.spring.security.loginapp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.csrf;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.verificationservice.Verification;
import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.codes.CodeRequest;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.DevelopmentOutbox;
import dev.verificationservice.codes.VerifyRequest;
import dev.verificationservice.delivery.DeliveryChannels;
import dev.verificationservice.spring.logging.RefusalLog;
import dev.verificationservice.spring.security.LoginAutoConfiguration;
import dev.verificationservice.spring.security.LoginLinkSender;
import dev.verificationservice.testsupport.time.MutableClock;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.context.annotation.Bean;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.core.userdetails.UserDetails;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.MockMvc;
import org.springframework.test.web.servlet.MvcResult;

/**
 * Spring Security's one-time-token login on this store, through Spring's own filters: the answer to a request for
 * a link is the same for every username, after the same lookups; the link is made, limited and sent off the
 * request thread, and what is not sent is counted, not logged one by one; of 50 concurrent uses of one link
 * exactly one logs in.
 */
@SpringBootTest(classes = {LoginHostApplication.class, OneTimeTokenLoginTest.Parts.class})
@AutoConfigureMockMvc
class OneTimeTokenLoginTest {

    static final MutableClock CLOCK = new MutableClock(Instant.parse("2026-03-01T09:00:00Z"));

    @DynamicPropertySource
    static void settings(DynamicPropertyRegistry registry) throws IOException {
        registry.add("verification.data-dir", Files.createTempDirectory("verification-login-host")::toString);
        // The other types' links: a login link never goes there.
        registry.add("verification.link-url", () -> "http://localhost/reset?code={code}");
        registry.add("verification.login.link-url", () -> "http://localhost/login/ott?token={code}");
        registry.add("verification.limits.ip", () -> "2/PT1H");
    }

    @TestConfiguration(proxyBeanMethods = false)
    static class Parts {
        @Bean
        Clock clock() {
            return CLOCK;
        }

        @Bean(name = LoginAutoConfiguration.EXECUTOR, destroyMethod = "close")
        TrackingExecutor linkExecutor() {
            return new TrackingExecutor();
        }
    }

    @Autowired
    MockMvc mvc;

    @Autowired
    TrackingExecutor executor;

    @Autowired
    LoginHostApplication.RecordingAccounts accounts;

    @Autowired
    LoginHostApplication.RecordingUsers users;

    @Autowired
    DeliveryChannels channels;

    @Autowired
    Verification verification;

    private Instant start;

    @BeforeEach
    void freshWindows() {
        // Every test starts past every window and cooldown an earlier one may have left.
        CLOCK.advance(Duration.ofDays(1));
        start = CLOCK.instant();
    }

    @Test
    void aUsernameWithoutAccountGetsTheSameAnswerAndTheSameLookupsAndOnlyTheAccountsLinkIsQueued() throws Exception {
        int handedOver = executor.handedOverOn.size();
        MvcResult known = generate("alice", "10.0.0.1");
        MvcResult unknown = generate("nobody", "10.0.0.1");

        assertThat(unknown.getResponse().getStatus()).isEqualTo(known.getResponse().getStatus()).isEqualTo(302);
        assertThat(unknown.getResponse().getRedirectedUrl()).isEqualTo(known.getResponse().getRedirectedUrl())
                .isEqualTo("/ott/sent");
        assertThat(unknown.getResponse().getContentAsString()).isEqualTo(known.getResponse().getContentAsString());

        executor.awaitAll();
        Thread requestThread = Thread.currentThread();
        // The same two lookups for both, on the request thread, so that a username with no account takes no place
        // in the queue; only the link's own work runs off it.
        assertThat(users.lookedUpOn.get("alice")).isSameAs(requestThread);
        assertThat(users.lookedUpOn.get("nobody")).as("refused by the UserDetailsService").isSameAs(requestThread);
        assertThat(accounts.lookedUpOn.get("alice")).isSameAs(requestThread);
        assertThat(accounts.lookedUpOn.get("nobody")).as("looked up all the same").isSameAs(requestThread);
        assertThat(executor.handedOverOn).as("alice's link only, handed over by the request's thread")
                .hasSize(handedOver + 1).last().isSameAs(requestThread);
        assertThat(executor.ranOn).doesNotContain(requestThread);

        List<DevelopmentOutbox.Message> sent = sentSinceStart();
        assertThat(sent).as("one message, alice's").hasSize(1);
        assertThat(sent.get(0).to()).isEqualTo("alice@example.com");
        assertThat(sent.get(0).codeType()).isEqualTo(CodeType.LOGIN);
        assertThat(sent.get(0).body()).contains("http://localhost/login/ott?token=" + sent.get(0).code())
                .contains("Sign in").doesNotContain("/reset");
        assertThat(types(auditSinceStart("user-alice"))).containsExactly(AuditEventType.CODE_SENT);
        assertThat(auditSinceStart("nobody")).isEmpty();
        assertThat(auditSinceStart("user-nobody")).isEmpty();
    }

    @Test
    void aMalformedOrUnknownTokenIsARefusedLoginNeverAServerError() throws Exception {
        for (String token : List.of("x", "a".repeat(43), "a b", "z".repeat(5000))) {
            MockHttpServletResponse response = mvc.perform(post("/login/ott").param("token", token).with(csrf()))
                    .andReturn().getResponse();
            assertThat(response.getRedirectedUrl()).as(token.length() + " characters").isEqualTo("/login?error");
        }
    }

    @Test
    void aLinkLivesTheFiveMinutesSpringsRequestAsksForNotTheStoresFifteen() throws Exception {
        generate("alice", "10.0.0.6");
        executor.awaitAll();
        String token = sentSinceStart().get(0).code();

        CLOCK.advance(Duration.ofMinutes(5));
        assertThat(mvc.perform(post("/login/ott").param("token", token).with(csrf())).andReturn().getResponse()
                .getRedirectedUrl()).isEqualTo("/login?error");
        assertThat(auditSinceStart("user-alice")).filteredOn(entry -> !entry.success()).singleElement()
                .satisfies(entry -> assertThat(entry.failureReason()).contains("EXPIRED"));
    }

    @Test
    void aDisabledUserGetsTheSameAnswerAndNoLink() throws Exception {
        MvcResult disabled = generate("dave", "10.0.0.5");
        executor.awaitAll();
        assertThat(disabled.getResponse().getRedirectedUrl()).isEqualTo("/ott/sent");
        assertThat(sentSinceStart()).isEmpty();
        assertThat(auditSinceStart("user-dave")).isEmpty();
    }

    @Test
    void aLoginLinkNeitherReplacesAPendingEmailCodeNorWaitsForItsCooldown() throws Exception {
        verification.codes().issue(CodeRequest.of("user-alice", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL,
                "alice@example.com"));
        String emailCode = sentSinceStart().get(0).code();

        generate("alice", "10.0.0.7");
        executor.awaitAll();
        assertThat(sentSinceStart()).as("the link went at once, within the email code's resend cooldown")
                .extracting(DevelopmentOutbox.Message::codeType)
                .containsExactlyInAnyOrder(CodeType.EMAIL_VERIFICATION, CodeType.LOGIN);
        assertThat(types(auditSinceStart("user-alice"))).doesNotContain(AuditEventType.RATE_LIMITED);
        assertThat(verification.codes().verify(VerifyRequest.numeric(emailCode, "user-alice",
                CodeType.EMAIL_VERIFICATION)).valid()).as("the pending email code still works").isTrue();
    }

    @Test
    void aLinkSentBeforeTheAccountWasDisabledLogsNoOneIn() throws Exception {
        generate("erin", "10.0.0.8");
        executor.awaitAll();
        String token = sentSinceStart().get(0).code();
        UserDetails erin = users.users.loadUserByUsername("erin");
        users.users.updateUser(User.withUserDetails(erin).disabled(true).build());
        try {
            assertThat(mvc.perform(post("/login/ott").param("token", token).with(csrf())).andReturn().getResponse()
                    .getRedirectedUrl()).isEqualTo("/login?error");
        } finally {
            users.users.updateUser(User.withUserDetails(erin).disabled(false).build());
        }
        assertThat(mvc.perform(post("/login/ott").param("token", token).with(csrf())).andReturn().getResponse()
                .getRedirectedUrl()).as("the link was used up by the refused login").isEqualTo("/login?error");
    }

    @Test
    void aUsernameLongerThanAnyAccountsGetsTheSameAnswerAndIsNeverQueued() throws Exception {
        int handedOver = executor.handedOverOn.size();
        MvcResult known = generate("alice", "10.0.0.9");
        MvcResult tooLong = generate("a".repeat(LoginLinkSender.MAX_USERNAME_LENGTH + 1), "10.0.0.9");

        assertThat(tooLong.getResponse().getRedirectedUrl()).isEqualTo(known.getResponse().getRedirectedUrl());
        assertThat(tooLong.getResponse().getContentAsString()).isEqualTo(known.getResponse().getContentAsString());
        assertThat(executor.handedOverOn).as("alice's only").hasSize(handedOver + 1);
        executor.awaitAll();
        assertThat(sentSinceStart()).extracting(DevelopmentOutbox.Message::to).containsExactly("alice@example.com");
    }

    @Test
    void fiftyConcurrentUsesOfOneLinkLogInExactlyOnce() throws Exception {
        generate("bob", "10.0.0.2");
        executor.awaitAll();
        String token = sentSinceStart().get(0).code();

        int users = 50;
        CountDownLatch gate = new CountDownLatch(1);
        ExecutorService browsers = Executors.newFixedThreadPool(users);
        try {
            List<Future<String>> answers = new ArrayList<>();
            for (int i = 0; i < users; i++) {
                answers.add(browsers.submit((Callable<String>) () -> {
                    gate.await();
                    return mvc.perform(post("/login/ott").param("token", token).with(csrf())).andReturn()
                            .getResponse().getRedirectedUrl();
                }));
            }
            gate.countDown();
            List<String> redirects = new ArrayList<>();
            for (Future<String> answer : answers) {
                redirects.add(answer.get());
            }
            assertThat(redirects).as("logged in").filteredOn("/"::equals).hasSize(1);
            assertThat(redirects).as("refused").filteredOn("/login?error"::equals).hasSize(users - 1);
        } finally {
            browsers.shutdownNow();
        }
        List<AuditEntry> audited = auditSinceStart("user-bob");
        assertThat(types(audited)).filteredOn(AuditEventType.CODE_VERIFIED::equals).hasSize(1);
        assertThat(audited).filteredOn(entry -> entry.eventType() == AuditEventType.CODE_VERIFICATION_FAILED)
                .hasSize(users - 1).allSatisfy(entry -> assertThat(entry.failureReason()).contains("USED"));
    }

    @Test
    void theResendCooldownAndThePerAddressLimitReachedThroughTheFilterSendNothing() throws Exception {
        MvcResult first = generate("carol", "10.0.0.3");
        MvcResult again = generate("carol", "10.0.0.4");
        executor.awaitAll();
        assertThat(again.getResponse().getRedirectedUrl()).isEqualTo(first.getResponse().getRedirectedUrl());
        assertThat(sentSinceStart()).as("the second request came within the cooldown").hasSize(1);
        assertThat(auditSinceStart("user-carol")).filteredOn(entry -> entry.eventType() == AuditEventType.RATE_LIMITED)
                .singleElement().satisfies(entry -> assertThat(entry.details())
                        .containsEntry("action", "RESEND_LOGIN"));

        CLOCK.advance(Duration.ofSeconds(31));
        generate("carol", "10.0.0.4");
        executor.awaitAll();
        assertThat(sentSinceStart()).as("past the cooldown").hasSize(2);

        generate("bob", "10.0.0.4");
        generate("alice", "10.0.0.4");
        executor.awaitAll();
        assertThat(sentSinceStart()).as("10.0.0.4 has used its 2 sends an hour: carol's and bob's")
                .extracting(DevelopmentOutbox.Message::to).doesNotContain("alice@example.com").hasSize(3);
        assertThat(auditSinceStart("user-alice")).singleElement().satisfies(entry -> {
            assertThat(entry.eventType()).isEqualTo(AuditEventType.RATE_LIMITED);
            assertThat(entry.details()).containsEntry("action", "SEND_FROM_IP");
        });
    }

    @Test
    void whatIsNotSentIsCountedInOneLineAMinuteThatNamesNoUserAddressOrLink() throws Exception {
        Logger sender = (Logger) LoggerFactory.getLogger(LoginLinkSender.class);
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        sender.addAppender(logged);
        try {
            for (int i = 0; i < 4; i++) {
                generate("carol", "10.0.0.10");
                executor.awaitAll();
            }
            generate("nobody", "10.0.0.10");
            generate("nobody", "10.0.0.10");
            assertThat(logged.list).as("the first refusal of the minute, the one after carol's link").hasSize(1);

            CLOCK.advance(RefusalLog.INTERVAL);
            generate("nobody", "10.0.0.10");
            assertThat(logged.list).hasSize(2);
            String token = sentSinceStart().get(0).code();
            assertThat(logged.list).allSatisfy(line -> {
                assertThat(line.getLevel()).isEqualTo(Level.WARN);
                assertThat(line.getFormattedMessage()).doesNotContain("carol", "nobody", "10.0.0.10", token);
            });
            assertThat(logged.list.get(0).getFormattedMessage()).contains("rate-limited RESEND_LOGIN x");
            assertThat(logged.list.get(1).getFormattedMessage()).contains(
                    LoginLinkSender.NO_ACCOUNT + " x3", "rate-limited RESEND_LOGIN x2");
        } finally {
            sender.detachAppender(logged);
        }
        assertThat(sentSinceStart()).as("carol's first link only").hasSize(1);
    }

    private MvcResult generate(String username, String address) throws Exception {
        return mvc.perform(post("/ott/generate").param("username", username).with(csrf()).with(request -> {
            request.setRemoteAddr(address);
            return request;
        })).andReturn();
    }

    private List<DevelopmentOutbox.Message> sentSinceStart() {
        return channels.outbox().orElseThrow().messages().stream()
                .filter(message -> !message.sentAt().isBefore(start)).toList();
    }

    private List<AuditEntry> auditSinceStart(String userId) {
        return verification.audit().query(userId, Optional.of(start), Optional.empty(), Optional.of(100),
                Optional.empty()).entries();
    }

    private static List<AuditEventType> types(List<AuditEntry> entries) {
        return entries.stream().map(AuditEntry::eventType).toList();
    }
}
