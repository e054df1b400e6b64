package dev.verificationservice.examples.login;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.VerificationStore;
import dev.verificationservice.codes.DevelopmentOutbox;
import dev.verificationservice.delivery.DeliveryChannels;
import dev.verificationservice.spring.security.LoginAutoConfiguration;
import dev.verificationservice.testsupport.browser.HeadlessChromium;
import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.util.Base64;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executor;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.virtualauthenticator.VirtualAuthenticator;
import org.openqa.selenium.virtualauthenticator.VirtualAuthenticatorOptions;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The example in a real browser (Debian's chromium, headless) against the application on a free port: sign-in
 * through the emailed link (read from the development outbox, as a developer would), the same link refused on its
 * second use, remember-me across a new browser session, and revoke-all ending it; and a passkey registered in
 * Chromium's virtual authenticator through Spring Security's pages, then signing in alone.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.DEFINED_PORT,
        classes = {LoginExampleApplication.class, LoginExampleBrowserTest.Parts.class})
@ExtendWith(HeadlessChromium.Required.class)
class LoginExampleBrowserTest {

    private static final Pattern LINK = Pattern.compile("http://localhost:\\d+/login/ott\\?token=[A-Za-z0-9_-]{43}");
    private static HeadlessChromium browser;
    private static int port;

    @DynamicPropertySource
    static void settings(DynamicPropertyRegistry registry) throws IOException {
        // The link in the message names the port, so it is chosen before the start: a free one the system gave.
        try (ServerSocket socket = new ServerSocket(0)) {
            port = socket.getLocalPort();
        }
        registry.add("server.port", () -> port);
        registry.add("verification.data-dir", Files.createTempDirectory("verification-example-login")::toString);
    }

    /** The link sender's thread, which the test can wait for instead of sleeping. */
    @TestConfiguration(proxyBeanMethods = false)
    static class Parts {
        @Bean(name = LoginAutoConfiguration.EXECUTOR, destroyMethod = "shutdown")
        AwaitableExecutor linkExecutor() {
            return new AwaitableExecutor();
        }
    }

    static final class AwaitableExecutor implements Executor {
        private final ExecutorService thread = Executors.newSingleThreadExecutor();
        private final List<CompletableFuture<Void>> tasks = new CopyOnWriteArrayList<>();

        @Override
        public void execute(Runnable task) {
            tasks.add(CompletableFuture.runAsync(task, thread));
        }

        void awaitAll() {
            CompletableFuture.allOf(tasks.toArray(CompletableFuture[]::new)).join();
        }

        void shutdown() {
            thread.shutdownNow();
        }
    }

    @BeforeAll
    static void startBrowser() throws IOException {
        browser = HeadlessChromium.startUnlessSkipped();
    }

    @AfterAll
    static void stopBrowser() throws IOException {
        if (browser != null) {
            browser.close();
        }
    }

    @Autowired
    AwaitableExecutor executor;

    @Autowired
    DeliveryChannels channels;

    @Autowired
    VerificationStore store;

    @Test
    void signInThroughTheEmailedLinkOnceThenRememberedUntilRevokeAll() {
        String base = "http://localhost:" + port;
        browser.driver.get(base + "/login");
        browser.driver.findElement(By.cssSelector("form[action='/ott/generate'] input[name='username']"))
                .sendKeys("alice");
        browser.leavingThePage(() -> browser.driver.findElement(By.cssSelector("form[action='/ott/generate'] button"))
                .click());
        assertThat(browser.driver.findElement(By.id("sent")).getText()).contains("sign-in link is on its way");

        executor.awaitAll();
        DevelopmentOutbox.Message message = channels.outbox().orElseThrow().messages().stream()
                .filter(sent -> sent.to().equals("alice@example.com")).findFirst().orElseThrow();
        Matcher link = LINK.matcher(message.body());
        assertThat(link.find()).as("the link in the message: " + message.body()).isTrue();

        browser.driver.get(link.group());
        browser.leavingThePage(() -> browser.driver.findElement(By.cssSelector("form[action='/login/ott'] button"))
                .click());
        assertThat(browser.driver.findElement(By.id("user")).getText()).isEqualTo("alice");

        // The same link again, in a browser without the session: refused.
        browser.driver.manage().deleteAllCookies();
        browser.driver.get(link.group());
        browser.leavingThePage(() -> browser.driver.findElement(By.cssSelector("form[action='/login/ott'] button"))
                .click());
        assertThat(browser.driver.getCurrentUrl()).isEqualTo(base + "/login?error");

        // Form login, remembered: a new browser session (the session cookie gone, as on a restart) stays signed in.
        browser.driver.get(base + "/login");
        browser.driver.findElement(By.id("username")).sendKeys("alice");
        browser.driver.findElement(By.id("password")).sendKeys("alice-password");
        browser.driver.findElement(By.cssSelector("input[name='remember-me']")).click();
        browser.leavingThePage(() -> browser.driver.findElement(By.cssSelector("form[action='/login'] button"))
                .click());
        assertThat(browser.driver.findElement(By.id("user")).getText()).isEqualTo("alice");
        assertThat(browser.driver.manage().getCookieNamed("remember-me")).isNotNull();

        browser.driver.manage().deleteCookieNamed("JSESSIONID");
        browser.driver.get(base + "/");
        assertThat(browser.driver.findElement(By.id("user")).getText()).as("remembered").isEqualTo("alice");

        browser.leavingThePage(() -> browser.driver.findElement(By.id("revoke-all")).click());
        assertThat(browser.driver.findElement(By.id("revoked")).getText()).startsWith("1 ");

        browser.driver.manage().deleteCookieNamed("JSESSIONID");
        browser.driver.get(base + "/");
        assertThat(browser.driver.getCurrentUrl()).as("no longer remembered").isEqualTo(base + "/login");
    }

    @Test
    void registersAPasskeyInChromiumsVirtualAuthenticatorAndSignsInWithIt() {
        String base = "http://localhost:" + port;
        browser.driver.manage().deleteAllCookies();
        VirtualAuthenticator authenticator = browser.driver.addVirtualAuthenticator(new VirtualAuthenticatorOptions()
                .setProtocol(VirtualAuthenticatorOptions.Protocol.CTAP2)
                .setTransport(VirtualAuthenticatorOptions.Transport.INTERNAL).setHasResidentKey(true)
                .setHasUserVerification(true).setIsUserVerified(true).setIsUserConsenting(true));
        try {
            browser.driver.get(base + "/login");
            browser.driver.findElement(By.id("username")).sendKeys("bob");
            browser.driver.findElement(By.id("password")).sendKeys("bob-password");
            browser.leavingThePage(() -> browser.driver.findElement(By.cssSelector("form[action='/login'] button"))
                    .click());
            browser.leavingThePage(() -> browser.driver.findElement(By.id("passkeys")).click());

            // Spring Security's registration page: the label, then the browser asks the (virtual) authenticator.
            browser.driver.findElement(By.id("label")).sendKeys("Example laptop");
            browser.leavingThePage(() -> browser.driver.findElement(By.id("register")).click());
            assertThat(browser.driver.getCurrentUrl()).isEqualTo(base + "/webauthn/register?success");
            assertThat(browser.driver.findElement(By.tagName("table")).getText()).contains("Example laptop");
            assertThat(authenticator.getCredentials()).hasSize(1);
            String credentialId = Base64.getUrlEncoder().withoutPadding()
                    .encodeToString(authenticator.getCredentials().get(0).getId());
            assertThat(store.passkeys().findPasskey(credentialId).orElseThrow().userId()).isEqualTo("bob");

            // Signed out, then in again with the passkey alone: Spring Security's login page, a username-less sign-in.
            browser.driver.get(base + "/");
            browser.leavingThePage(() -> browser.driver.findElement(By.id("logout")).click());
            browser.driver.get(base + "/login");
            browser.leavingThePage(() -> browser.driver.findElement(By.id("passkey-signin")).click());
            assertThat(browser.driver.findElement(By.id("user")).getText()).isEqualTo("bob");
            assertThat(store.passkeys().findPasskey(credentialId).orElseThrow().lastUsedAt()).isPresent();
        } finally {
            browser.driver.removeVirtualAuthenticator(authenticator);
        }
    }
}
