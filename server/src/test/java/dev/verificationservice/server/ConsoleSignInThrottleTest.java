package dev.verificationservice.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.testsupport.time.MutableClock;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * Guessing admin keys at the console's sign-in, over real HTTP from several client addresses (sockets bound to
 * 127.0.0.x), on the service's clock: each address is locked out after a few failures, for longer each time;
 * all addresses together are capped per minute; a throttled sign-in is a 429 with Retry-After and a readable
 * page; and the log has a summary line a minute, not a line per failure. Each test runs on its own day, the
 * days in the order the tests run (by name), so the throttle's memory of one test never reaches another and the
 * clock only moves forward.
 */
@TestMethodOrder(MethodOrderer.MethodName.class)
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "verification.api-keys=" + ConsoleSignInThrottleTest.API_KEY,
        "verification.admin-api-keys=" + ConsoleSignInThrottleTest.ADMIN_KEY,
        "verification.secret-keys=" + AbstractApiTest.HMAC_KEY})
@Import(TestClockConfiguration.class)
@ExtendWith(OutputCaptureExtension.class)
class ConsoleSignInThrottleTest {

    static final String API_KEY = "Xq3vJ9pL2mR7tK5wB8nC4hF6gD1sA0zY";
    static final String ADMIN_KEY = "Wm8Rk2Tq5Yx9Lp3Vn7Hc4Jf6Gd1Sb0Za";
    private static final String WRONG_KEY = "Pf4Qz8Nw2Lk6Rt9Vx3Hm7Jc5Gb1Sd0Ya";
    private static final String SUMMARY = "Console sign-in refused ";

    @LocalServerPort
    int port;

    @Autowired
    MutableClock clock;

    @DynamicPropertySource
    static void dataDirectory(DynamicPropertyRegistry registry) throws IOException {
        registry.add("verification.data-dir", Files.createTempDirectory("verification-console-throttle")::toString);
    }

    /** A sign-in's answer: its status, its Retry-After (empty string when none) and its page. */
    record Reply(int status, String retryAfter, String body) {
    }

    /** The sign-in form sent from {@code fromAddress}, with a matching CSRF cookie and field. */
    private Reply signIn(String fromAddress, String key) throws IOException {
        try (Socket socket = new Socket()) {
            socket.bind(new InetSocketAddress(fromAddress, 0));
            socket.connect(new InetSocketAddress("127.0.0.1", port));
            String body = "_csrf=form-token&key=" + URLEncoder.encode(key, StandardCharsets.UTF_8);
            String request = "POST /console/sign-in HTTP/1.1\r\nHost: localhost\r\n"
                    + "Cookie: vs_console_signin=form-token\r\n"
                    + "Content-Type: application/x-www-form-urlencoded\r\n"
                    + "Content-Length: " + body.length() + "\r\nConnection: close\r\n\r\n" + body;
            OutputStream out = socket.getOutputStream();
            out.write(request.getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String response = new String(in.readAllBytes(), StandardCharsets.UTF_8);
            int status = Integer.parseInt(response.substring(9, 12));
            Matcher retryAfter = Pattern.compile("(?im)^retry-after: *(\\d+)").matcher(response);
            return new Reply(status, retryAfter.find() ? retryAfter.group(1) : "", response);
        }
    }

    private void startDay(int day) {
        clock.set(TestClockConfiguration.START.plus(Duration.ofDays(day)));
    }

    private static long lines(CapturedOutput output, String text) {
        return output.getOut().lines().filter(line -> line.contains(text)).count();
    }

    @Test
    void anAddressIsLockedOutAfterFiveFailuresForLongerEachTimeWhileOthersSignIn() throws IOException {
        startDay(3);
        String guesser = "127.0.0.2";
        for (int i = 0; i < 5; i++) {
            assertThat(signIn(guesser, WRONG_KEY).status()).isEqualTo(401);
        }
        // Locked out: even the right key is not checked, and the page says how long to wait.
        Reply locked = signIn(guesser, ADMIN_KEY);
        assertThat(locked.status()).isEqualTo(429);
        assertThat(locked.retryAfter()).isEqualTo("60");
        assertThat(locked.body()).contains("Too many failed sign-ins. Wait 1 min, then sign in with an admin key");
        // Another address is not held up.
        assertThat(signIn("127.0.0.3", ADMIN_KEY).status()).isEqualTo(302);

        clock.advance(Duration.ofSeconds(59));
        assertThat(signIn(guesser, WRONG_KEY).retryAfter()).isEqualTo("1");
        clock.advance(Duration.ofSeconds(1));
        // One more wrong key after the lock-out: locked out again, twice as long.
        assertThat(signIn(guesser, WRONG_KEY).status()).isEqualTo(401);
        Reply longer = signIn(guesser, WRONG_KEY);
        assertThat(longer.status()).isEqualTo(429);
        assertThat(longer.retryAfter()).isEqualTo("120");

        clock.advance(Duration.ofMinutes(2));
        assertThat(signIn(guesser, ADMIN_KEY).status()).isEqualTo(302);
        // A success forgets the failures: five free ones again.
        for (int i = 0; i < 4; i++) {
            assertThat(signIn(guesser, WRONG_KEY).status()).isEqualTo(401);
        }
    }

    @Test
    void allAddressesTogetherGetThirtyFailuresAMinute() throws IOException {
        startDay(2);
        for (int i = 1; i <= 30; i++) {
            assertThat(signIn("127.0.1." + i, WRONG_KEY).status()).as("failure %d", i).isEqualTo(401);
        }
        clock.advance(Duration.ofSeconds(20));
        Reply capped = signIn("127.0.1.31", ADMIN_KEY);
        assertThat(capped.status()).isEqualTo(429);
        assertThat(capped.retryAfter()).isEqualTo("40");

        clock.advance(Duration.ofSeconds(40));
        assertThat(signIn("127.0.1.32", WRONG_KEY).status()).isEqualTo(401);
        assertThat(signIn("127.0.1.33", ADMIN_KEY).status()).isEqualTo(302);
    }

    @Test
    void aHundredRefusalsInAMinuteAreOneLogLineThenOneSummary(CapturedOutput output) throws IOException {
        startDay(1);
        for (int i = 0; i < 100; i++) {
            assertThat(signIn("127.0.2.1", WRONG_KEY + i).status()).isIn(401, 429);
        }
        assertThat(lines(output, SUMMARY)).isEqualTo(1);
        assertThat(output.getOut()).doesNotContain(WRONG_KEY);

        clock.advance(Duration.ofMinutes(1));
        assertThat(signIn("127.0.2.1", WRONG_KEY).status()).isEqualTo(401);
        assertThat(lines(output, SUMMARY)).isEqualTo(2);
        String summary = output.getOut().lines().filter(line -> line.contains(SUMMARY)).reduce((a, b) -> b).orElseThrow();
        assertThat(summary.toLowerCase(Locale.ROOT)).contains("refused 100 time(s) since the last report "
                + "(5 not an admin key, 95 throttled), from 1 address(es), among them [127.0.2.1]");
    }
}
