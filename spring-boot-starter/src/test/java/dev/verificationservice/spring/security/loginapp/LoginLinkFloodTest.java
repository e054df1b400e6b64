package dev.verificationservice.spring.security.loginapp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.csrf;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import com.icegreen.greenmail.configuration.GreenMailConfiguration;
import com.icegreen.greenmail.junit5.GreenMailExtension;
import com.icegreen.greenmail.util.ServerSetupTest;
import dev.verificationservice.spring.logging.RefusalLog;
import dev.verificationservice.spring.security.LoginAutoConfiguration;
import dev.verificationservice.spring.security.LoginLinkSender;
import dev.verificationservice.testsupport.time.MutableClock;
import jakarta.mail.MessagingException;
import jakarta.mail.internet.MimeMessage;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.beans.factory.annotation.Qualifier;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.context.annotation.Bean;
import org.springframework.test.annotation.DirtiesContext;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.MockMvc;

/**
 * One client floods Spring's generate filter with requests for a link, many usernames known and unknown, on the
 * starter's own link threads and bounded queue, while links go to a real SMTP server (GreenMail): another
 * person's link, asked for in the middle of the flood, is sent, and the log holds summary lines only.
 */
@SpringBootTest(classes = {LoginHostApplication.class, LoginLinkFloodTest.Parts.class})
@AutoConfigureMockMvc
@DirtiesContext
class LoginLinkFloodTest {

    static final MutableClock CLOCK = new MutableClock(Instant.parse("2026-05-04T08:00:00Z"));
    static final String FLOODER = "203.0.113.66";
    static final int FLOOD = 1_600;
    /** Past the queue's 1000 places: when the real user asks, the flood has asked for more links than fit. */
    static final int BEFORE_THE_REAL_USER = 1_200;

    @RegisterExtension
    static final GreenMailExtension GREEN_MAIL = new GreenMailExtension(ServerSetupTest.SMTP.dynamicPort())
            .withConfiguration(GreenMailConfiguration.aConfig().withDisabledAuthentication())
            .withPerMethodLifecycle(false);

    @DynamicPropertySource
    static void settings(DynamicPropertyRegistry registry) throws IOException {
        registry.add("verification.data-dir", Files.createTempDirectory("verification-login-flood")::toString);
        registry.add("verification.smtp.host", () -> "127.0.0.1");
        registry.add("verification.smtp.port", () -> GREEN_MAIL.getSmtp().getPort());
        registry.add("verification.smtp.security", () -> "NONE");
        registry.add("verification.smtp.from", () -> "Login <no-reply@example.com>");
        registry.add("verification.login.link-url", () -> "http://localhost/login/ott?token={code}");
    }

    @TestConfiguration(proxyBeanMethods = false)
    static class Parts {
        @Bean
        Clock clock() {
            return CLOCK;
        }
    }

    @Autowired
    MockMvc mvc;

    /** The starter's own: two threads and the bounded queue. */
    @Autowired
    @Qualifier(LoginAutoConfiguration.EXECUTOR)
    ExecutorService links;

    @Test
    void aFloodFromOneClientNeitherCrowdsOutAnotherPersonsLinkNorWritesALogLineARequest() throws Exception {
        Logger product = (Logger) LoggerFactory.getLogger("dev.verificationservice");
        ListAppender<ILoggingEvent> logged = new ListAppender<>();
        logged.start();
        product.addAppender(logged);
        try {
            // Both link threads held, as a slow store or mail server holds them: the flood meets a queue that
            // does not drain, on any machine.
            CountDownLatch held = new CountDownLatch(2);
            CountDownLatch release = new CountDownLatch(1);
            for (int i = 0; i < 2; i++) {
                links.execute(() -> {
                    held.countDown();
                    awaitQuietly(release);
                });
            }
            assertThat(held.await(1, TimeUnit.MINUTES)).isTrue();

            CountDownLatch asked = new CountDownLatch(BEFORE_THE_REAL_USER);
            ExecutorService client = Executors.newFixedThreadPool(8);
            List<Future<String>> answers = new ArrayList<>();
            for (String username : floodedUsernames()) {
                answers.add(client.submit(() -> {
                    String answer = generate(username, FLOODER);
                    asked.countDown();
                    return answer;
                }));
            }
            assertThat(asked.await(2, TimeUnit.MINUTES)).isTrue();
            String bobs = generate("bob", "198.51.100.7");
            for (Future<String> answer : answers) {
                assertThat(answer.get(2, TimeUnit.MINUTES)).isEqualTo("/ott/sent");
            }
            client.shutdown();
            assertThat(bobs).isEqualTo("/ott/sent");

            release.countDown();
            links.shutdown();
            assertThat(links.awaitTermination(2, TimeUnit.MINUTES)).as("every link handed over is done").isTrue();

            List<String> recipients = recipients();
            assertThat(recipients).as("the real user's link went out, in the middle of the flood")
                    .containsOnlyOnce("bob@example.com");
            assertThat(recipients).as("the flood's: one link for each place of its address, no more")
                    .doesNotHaveDuplicates().hasSize(1 + LoginLinkSender.WAITING_PER_ADDRESS);

            // The next minute's first refusal writes what the flood's minute counted.
            CLOCK.advance(RefusalLog.INTERVAL);
            generate("nobody-after-the-flood", FLOODER);
            List<String> lines = logged.list.stream().filter(line -> line.getLevel().isGreaterOrEqual(Level.INFO))
                    .map(ILoggingEvent::getFormattedMessage).toList();
            assertThat(lines).as("%d requests in one minute, then one in the next", FLOOD + 1).hasSize(2)
                    .allSatisfy(line -> assertThat(line).startsWith("Login links not sent since ")
                            .doesNotContain("nobody-", "flood-", "alice", "bob", "dave", "xxxxxxxx", FLOODER));
            int unknown = (int) floodedUsernames().stream().filter(name -> !name.equals("alice")
                    && !LoginHostApplication.FLOOD_ACCOUNTS.contains(name)).count();
            assertThat(counted(lines, LoginLinkSender.NO_ACCOUNT)).as("no account, never queued")
                    .isEqualTo(unknown + 1);
            assertThat(counted(lines, LoginLinkSender.ACCOUNT_WAITING) + counted(lines, LoginLinkSender.ADDRESS_FULL))
                    .as("the accounts' requests beyond the address's places")
                    .isEqualTo(FLOOD - unknown - LoginLinkSender.WAITING_PER_ADDRESS);
            assertThat(counted(lines, LoginLinkSender.QUEUE_FULL)).as("the queue never filled").isZero();
        } finally {
            product.detachAppender(logged);
        }
    }

    /**
     * Every kind of username at once from one client: unknown ones, one over any account's length, a disabled
     * account, and thirteen accounts (alice and twelve more), each asked for many times.
     */
    private static List<String> floodedUsernames() {
        List<String> accounts = new ArrayList<>(LoginHostApplication.FLOOD_ACCOUNTS);
        accounts.add("alice");
        return IntStream.range(0, FLOOD).mapToObj(i -> switch (i % 8) {
            case 0 -> "nobody-" + i;
            case 2 -> "dave";
            case 4 -> "x".repeat(300);
            default -> accounts.get(i % accounts.size());
        }).toList();
    }

    private String generate(String username, String address) throws Exception {
        return mvc.perform(post("/ott/generate").param("username", username).with(csrf()).with(request -> {
            request.setRemoteAddr(address);
            return request;
        })).andReturn().getResponse().getRedirectedUrl();
    }

    /** How many refusals of {@code kind} the summary lines counted together. */
    private static int counted(List<String> lines, String kind) {
        Pattern count = Pattern.compile(Pattern.quote(kind) + " x(\\d+)");
        return lines.stream().map(count::matcher).filter(Matcher::find)
                .mapToInt(found -> Integer.parseInt(found.group(1))).sum();
    }

    private static List<String> recipients() throws MessagingException {
        List<String> to = new ArrayList<>();
        for (MimeMessage message : GREEN_MAIL.getReceivedMessages()) {
            to.add(message.getAllRecipients()[0].toString());
        }
        return to;
    }

    private static void awaitQuietly(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
