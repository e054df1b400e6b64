package dev.verificationservice.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.server.ApiClient.Answer;
import dev.verificationservice.server.config.KeyMaterial;
import dev.verificationservice.testsupport.browser.HeadlessChromium;
import dev.verificationservice.testsupport.time.MutableClock;
import dev.verificationservice.testsupport.totp.AuthenticatorApp;
import dev.verificationservice.testsupport.webhooks.WebhookReceiver;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.openqa.selenium.By;
import org.openqa.selenium.Cookie;
import org.openqa.selenium.Keys;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.interactions.Actions;
import org.openqa.selenium.support.ui.Select;
import org.openqa.selenium.support.ui.WebDriverWait;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.test.web.server.LocalServerPort;
import org.springframework.context.annotation.Import;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import tools.jackson.databind.JsonNode;

/**
 * The support console in a real browser (Debian's chromium through chromedriver, headless) against the real
 * server on a free port, in development mode on the embedded store. Traffic is made through the HTTP API first,
 * as an application would; then an operator signs in and looks, lifts, revokes. Every page is saved as a PNG in
 * target/screenshots. The service's clock is the test clock, moved instead of waiting.
 */
@SpringBootTest(webEnvironment = SpringBootTest.WebEnvironment.RANDOM_PORT, properties = {
        "verification.api-keys=" + ConsoleBrowserTest.API_KEY,
        "verification.admin-api-keys=" + ConsoleBrowserTest.ADMIN_KEY,
        "verification.secret-keys=" + ConsoleBrowserTest.HMAC_KEY})
@Import(TestClockConfiguration.class)
@ExtendWith({HeadlessChromium.Required.class, OutputCaptureExtension.class})
class ConsoleBrowserTest {

    static final String API_KEY = "console-api-key-0123456789abcdefghijklm";
    static final String ADMIN_KEY = "console-admin-key-0123456789abcdefghijk";
    static final String HMAC_KEY = "SDTbhBfe5I9Wj1iT38oxkwrifLjf+nSS0eiTOIo68PA=";
    static final String KEY_ID = KeyMaterial.adminKeyId(ADMIN_KEY);
    private static final AtomicInteger USERS = new AtomicInteger();

    private static HeadlessChromium browser;

    @DynamicPropertySource
    static void dataDirectory(DynamicPropertyRegistry registry) throws IOException {
        Path directory = Files.createTempDirectory("verification-console-test");
        registry.add("verification.data-dir", directory::toString);
    }

    @BeforeAll
    static void startBrowser() throws IOException {
        // Without the browser outside CI, every test is skipped by HeadlessChromium.Required (saying why).
        if (HeadlessChromium.missing().isEmpty() || HeadlessChromium.inCi()) {
            browser = HeadlessChromium.start();
        }
    }

    @AfterAll
    static void stopBrowser() throws IOException {
        if (browser != null) {
            browser.close();
        }
    }

    @LocalServerPort
    int port;

    @Autowired
    MutableClock clock;

    ApiClient api;
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
    /** Secrets this test saw: none may ever be in a page the console served. */
    private final List<String> secrets = new ArrayList<>(List.of(ADMIN_KEY, API_KEY));

    @BeforeEach
    void reset() {
        api = new ApiClient(port, API_KEY);
        browser.viewport(1280, 800);
        browser.driver.manage().deleteAllCookies();
    }

    // Traffic through the HTTP API, as the application sends it

    static String newUser() {
        return "console-user-" + USERS.incrementAndGet() + "-" + System.nanoTime() % 100_000;
    }

    static String emailOf(String userId) {
        return "jane." + userId + "@example.com";
    }

    /** Sends an email code and reads it from the development outbox, as a developer would. */
    String sendEmailCode(String userId) {
        Answer sent = api.post("/v1/codes", Map.of("userId", userId, "codeType", "EMAIL_VERIFICATION",
                "deliveryMethod", "EMAIL", "deliveryTarget", emailOf(userId), "ipAddress", "203.0.113.7",
                "userAgent", "Mozilla/5.0 (test)"));
        assertThat(sent.status()).as(sent.raw().body()).isEqualTo(202);
        for (JsonNode message : api.get("/dev/outbox").json().get("messages")) {
            if (message.get("to").asString().equals(emailOf(userId))) {
                String code = message.get("code").asString();
                secrets.add(code);
                return code;
            }
        }
        throw new AssertionError("no outbox message to " + emailOf(userId));
    }

    /** An authenticator app enrolled (by its QR code) and confirmed, and the recovery codes it came with. */
    record ConfirmedFactor(AuthenticatorApp app, List<String> recoveryCodes) {
    }

    ConfirmedFactor confirmedFactor(String userId, String label) {
        Answer enrolled = api.post("/v1/users/" + userId + "/totp", Map.of("label", label));
        secrets.add(enrolled.text("secret"));
        AuthenticatorApp app = AuthenticatorApp.scan(enrolled.text("qrCode"));
        Answer confirmed = api.post("/v1/users/" + userId + "/totp/" + enrolled.text("factorId") + "/confirm",
                Map.of("code", app.codeAt(clock.instant())));
        List<String> recoveryCodes = new ArrayList<>();
        confirmed.json().get("recoveryCodes").forEach(code -> recoveryCodes.add(code.asString()));
        secrets.addAll(recoveryCodes);
        return new ConfirmedFactor(app, recoveryCodes);
    }

    Answer verify(String userId, String code) {
        return api.post("/v1/codes/verify", Map.of("code", code, "userId", userId, "codeType", "EMAIL_VERIFICATION"));
    }

    static String wrong(String code) {
        return code.equals("000000") ? "111111" : "000000";
    }

    String registerDevice(String userId, String deviceId, String name) {
        Answer registered = api.post("/v1/devices", Map.of("userId", userId, "deviceId", deviceId, "deviceType", "IOS",
                "deviceName", name, "ipAddress", "198.51.100.4", "userAgent", "App/2.1 (iPhone)"));
        assertThat(registered.status()).as(registered.raw().body()).isEqualTo(201);
        String secret = registered.text("secret");
        secrets.add(secret);
        return secret;
    }

    boolean deviceVerifies(String deviceId, String secret) {
        return api.post("/v1/devices/verify", Map.of("deviceId", deviceId, "secret", secret)).json().get("valid")
                .asBoolean();
    }

    // The browser

    String url(String path) {
        return "http://127.0.0.1:" + port + path;
    }

    void open(String path) {
        browser.driver.get(url(path));
    }

    String currentPath() {
        return URI.create(browser.driver.getCurrentUrl()).getPath();
    }

    WebElement find(String css) {
        return browser.driver.findElement(By.cssSelector(css));
    }

    List<WebElement> findAll(String css) {
        return browser.driver.findElements(By.cssSelector(css));
    }

    void leavingThePage(Runnable action) {
        browser.leavingThePage(action);
    }

    void signIn() {
        open("/console/sign-in");
        leavingThePage(() -> find("#key").sendKeys(ADMIN_KEY + Keys.ENTER));
        assertThat(currentPath()).isEqualTo("/console/users");
    }

    /** Looks the user up with the keyboard only: the form's field, typed into, and Enter. */
    void lookUp(String userId) {
        WebElement field = find("#lookup-user");
        field.clear();
        leavingThePage(() -> field.sendKeys(userId + Keys.ENTER));
        assertThat(find("#user-id").getText()).isEqualTo(userId);
    }

    List<String> timelineTypes() {
        return findAll("#events tbody tr").stream().map(row -> row.getAttribute("data-event-type")).toList();
    }

    String sessionCookie() {
        Cookie cookie = browser.driver.manage().getCookieNamed("vs_console");
        assertThat(cookie).as("the console's session cookie").isNotNull();
        return cookie.getValue();
    }

    /** The page the console served holds none of the secrets this test has seen. */
    void assertNoSecretInPage() {
        String page = browser.driver.getPageSource();
        for (String secret : secrets) {
            assertThat(page).as("a secret in the page").doesNotContain(secret);
        }
        assertThat(browser.driver.getCurrentUrl()).doesNotContain(ADMIN_KEY);
    }

    /** The document is no wider than the window: nothing scrolls sideways. */
    void assertNoHorizontalScrolling() {
        Object overflow = browser.driver.executeScript(
                "return document.documentElement.scrollWidth - document.documentElement.clientWidth;");
        assertThat(((Number) overflow).intValue()).as("horizontal overflow in pixels").isLessThanOrEqualTo(0);
    }

    /** Every visible form control has a label (label for=, or aria-label for a one-button form). */
    void assertEveryControlIsLabelled() {
        Object unlabelled = browser.driver.executeScript("""
                return Array.from(document.querySelectorAll('input, select, textarea, button'))
                  .filter(e => e.type !== 'hidden')
                  .filter(e => !(e.labels && e.labels.length > 0) && !e.getAttribute('aria-label')
                               && !(e.tagName === 'BUTTON' && e.textContent.trim().length > 0))
                  .map(e => e.outerHTML);""");
        assertThat((List<?>) unlabelled).as("controls without a label").isEmpty();
        Object formsWithoutToken = browser.driver.executeScript("""
                return Array.from(document.querySelectorAll('form'))
                  .filter(f => f.method.toLowerCase() === 'post')
                  .filter(f => !f.querySelector('input[type=hidden][name=_csrf]') ||
                               f.querySelector('input[name=_csrf]').value.length < 32)
                  .map(f => f.action);""");
        assertThat((List<?>) formsWithoutToken).as("POST forms without the CSRF token").isEmpty();
    }

    // Plain HTTP, for what a browser would not send

    HttpResponse<String> plain(String method, String path, Map<String, String> headers, String formBody) {
        HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(url(path))).timeout(Duration.ofSeconds(30))
                .method(method, formBody == null ? HttpRequest.BodyPublishers.noBody()
                        : HttpRequest.BodyPublishers.ofString(formBody));
        if (formBody != null) {
            request.header("Content-Type", "application/x-www-form-urlencoded");
        }
        headers.forEach(request::header);
        try {
            return http.send(request.build(), HttpResponse.BodyHandlers.ofString());
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    static String form(Map<String, String> fields) {
        return String.join("&", fields.entrySet().stream().map(field -> field.getKey() + "="
                + URLEncoder.encode(field.getValue(), StandardCharsets.UTF_8)).toList());
    }

    // The tests

    @Test
    void signInTakesAnAdminKeyOnlyAndNeverTheBearerScheme() throws IOException {
        open("/console/users");
        assertThat(currentPath()).as("a page without a session sends to the sign-in").isEqualTo("/console/sign-in");
        browser.screenshot("sign-in");
        assertEveryControlIsLabelled();

        leavingThePage(() -> find("#key").sendKeys("not-a-key-of-this-service-at-all-0123" + Keys.ENTER));
        assertThat(find("#sign-in-error").getText()).contains("not an admin key of this service");
        assertThat(find("#key").getAttribute("aria-invalid")).isEqualTo("true");
        assertThat(find("#key").getAttribute("value")).as("the key is never echoed").isEmpty();
        browser.screenshot("sign-in-refused");

        leavingThePage(() -> find("#key").sendKeys(API_KEY + Keys.ENTER));
        assertThat(find("#sign-in-error").getText()).contains("This is an application key");
        assertThat(browser.driver.manage().getCookieNamed("vs_console")).isNull();
        assertNoSecretInPage();

        // The API's Bearer scheme never opens the console, and the console's cookie never opens the API.
        HttpResponse<String> bearer = plain("GET", "/console/users", Map.of("Authorization", "Bearer " + ADMIN_KEY), null);
        assertThat(bearer.statusCode()).isEqualTo(303);
        assertThat(bearer.headers().firstValue("Location")).contains("/console/sign-in");
        HttpResponse<String> bearerPost = plain("POST", "/console/sign-in", Map.of(), form(Map.of("key", ADMIN_KEY)));
        assertThat(bearerPost.statusCode()).as("a sign-in without its form's token").isEqualTo(403);
        assertThat(bearerPost.headers().allValues("Set-Cookie")).noneMatch(value -> value.startsWith("vs_console="));

        leavingThePage(() -> find("#key").sendKeys(ADMIN_KEY + Keys.ENTER));
        assertThat(currentPath()).isEqualTo("/console/users");
        assertThat(find(".who").getText()).isEqualTo("Key " + KEY_ID);
        Cookie session = browser.driver.manage().getCookieNamed("vs_console");
        assertThat(session.isHttpOnly()).isTrue();
        assertThat(session.getSameSite()).isEqualTo("Strict");
        assertThat(session.getPath()).isEqualTo("/console");
        assertThat(session.isSecure()).as("plain http here; Secure when served over TLS").isFalse();
        assertThat(plain("GET", "/v1/admin/users/anyone", Map.of("Cookie", "vs_console=" + session.getValue()), null)
                .statusCode()).as("the console's session is not an admin key").isEqualTo(401);
        browser.screenshot("lookup");
        assertNoSecretInPage();
    }

    @Test
    void aUserLookedUpAfterRealTrafficShowsSummaryTimelineAndActivity(CapturedOutput output) throws IOException {
        String user = newUser();
        String first = sendEmailCode(user);
        assertThat(verify(user, first).json().get("valid").asBoolean()).isTrue();
        registerDevice(user, "phone-1", "Jane's iPhone");
        clock.advance(Duration.ofSeconds(31));
        String live = sendEmailCode(user);
        assertThat(verify(user, wrong(live)).text("reason")).isEqualTo("NOT_FOUND");

        signIn();
        lookUp(user);

        assertThat(currentPath()).isEqualTo("/console/users/" + user);
        assertThat(find("#device-count").getText()).isEqualTo("1");
        assertThat(find("#live-codes").getText()).contains("Email verification").contains("j***@example.com")
                .contains("15 min left");
        assertThat(find("#lock-outs").getText()).contains("None");
        assertThat(timelineTypes()).containsExactly("CODE_VERIFICATION_FAILED", "CODE_SENT", "DEVICE_ADDED",
                "CODE_VERIFIED", "CODE_SENT");
        WebElement failure = find("#events tbody tr.failure");
        assertThat(failure.getAttribute("data-event-type")).isEqualTo("CODE_VERIFICATION_FAILED");
        assertThat(failure.getText()).contains("Failed: NOT_FOUND");
        assertThat(findAll("#events tbody tr.failure")).hasSize(1);
        assertThat(find("#activity-summary").getText()).startsWith("5 events, 1 failed");
        assertThat(findAll("svg.strip rect.failed")).hasSize(1);
        assertThat(find("#device-table").getText()).contains("phone-1").contains("Jane's iPhone");
        assertEveryControlIsLabelled();
        assertNoSecretInPage();
        assertNoHorizontalScrolling();
        browser.screenshot("user-1280x800");
        browser.fullPageScreenshot("user-1280-full");

        browser.viewport(390, 844);
        open("/console/users/" + user);
        assertNoHorizontalScrolling();
        browser.screenshot("user-390x844");
        browser.fullPageScreenshot("user-390-full");
        browser.pageSlices("user-390-part", 390, 1200);
        assertThat(output.getAll()).doesNotContain(ADMIN_KEY).doesNotContain(first).doesNotContain(live);
    }

    @Test
    void aUserWithAnAuthenticatorAppShowsItsFactorsAndTheRecoveryCodesLeftWithoutSecrets() throws IOException {
        String user = newUser();
        List<String> recoveryCodes = confirmedFactor(user, "Jane's phone").recoveryCodes();
        assertThat(api.post("/v1/users/" + user + "/recovery-codes/verify", Map.of("code", recoveryCodes.get(0)))
                .json().get("valid").asBoolean()).isTrue();
        clock.advance(Duration.ofSeconds(1));
        secrets.add(api.post("/v1/users/" + user + "/totp", Map.of("label", "tablet")).text("secret"));

        signIn();
        lookUp(user);

        List<WebElement> factors = findAll("#factor-table tbody tr");
        assertThat(factors).hasSize(2);
        assertThat(factors.get(0).getText()).contains("Jane's phone").contains("confirmed");
        assertThat(factors.get(1).getText()).contains("tablet").contains("pending");
        assertThat(find("#recovery-codes-left").getText()).isEqualTo("9 unused recovery codes");
        assertThat(timelineTypes()).contains("TOTP_ENROLLED", "TOTP_CONFIRMED", "RECOVERY_CODES_ISSUED",
                "RECOVERY_CODE_USED");
        assertEveryControlIsLabelled();
        assertNoSecretInPage();
        assertThat(browser.driver.getPageSource()).doesNotContain("otpauth");
    }

    @Test
    void theTimelineFiltersByEventTypeAndTimeAndPagesWithTheApiCursor() throws IOException {
        String user = newUser();
        String secret = registerDevice(user, "tablet-1", "Tablet");
        for (int i = 0; i < 30; i++) {
            assertThat(deviceVerifies("tablet-1", secret)).isTrue();
        }
        sendEmailCode(user);
        signIn();
        lookUp(user);

        // 32 entries: 25 on the first page, 7 on the next, reached with the API's cursor.
        List<WebElement> rows = findAll("#events tbody tr");
        assertThat(rows).hasSize(25);
        assertThat(timelineTypes().get(0)).isEqualTo("CODE_SENT");
        assertThat(findAll("#newest-page")).isEmpty();
        leavingThePage(() -> find("#older-page").click());
        assertThat(browser.driver.getCurrentUrl()).contains("cursor=");
        assertThat(timelineTypes()).hasSize(7).endsWith("DEVICE_ADDED");
        assertThat(findAll("#older-page")).isEmpty();
        leavingThePage(() -> find("#newest-page").click());
        assertThat(timelineTypes()).hasSize(25).startsWith("CODE_SENT");

        // One event type: the timeline and the activity strip keep only it.
        new Select(find("#filter-type")).selectByValue("CODE_SENT");
        leavingThePage(() -> find("#apply-filter").click());
        assertThat(timelineTypes()).containsExactly("CODE_SENT");
        assertThat(find("#activity-summary").getText()).startsWith("1 event, 0 failed");
        browser.screenshot("timeline-filtered");

        // A time range: later traffic only. (Two hours idle end the session: sign in again.)
        clock.advance(Duration.ofHours(2));
        sendEmailCode(user);
        signIn();
        lookUp(user);
        String later = dev.verificationservice.time.Instants.iso(clock.instant().minus(Duration.ofMinutes(5)))
                .substring(0, 16).replace('T', ' ');
        new Select(find("#filter-type")).selectByValue("");
        find("#filter-from").clear();
        find("#filter-from").sendKeys(later);
        leavingThePage(() -> find("#apply-filter").click());
        assertThat(timelineTypes()).containsExactly("CODE_SENT");
        assertThat(find("#filter-from").getAttribute("value")).isEqualTo(later);

        // A time that is not one: said at the field.
        find("#filter-from").clear();
        leavingThePage(() -> find("#filter-from").sendKeys("yesterday" + Keys.ENTER));
        assertThat(find("#from-error").getText()).contains("Write a UTC time");
        assertThat(find("#filter-from").getAttribute("aria-invalid")).isEqualTo("true");
        browser.screenshot("timeline-bad-range");
    }

    /**
     * Every factor's lock-outs are listed with their Lift buttons: here a hundred wrong recovery codes in a row (over
     * twenty windows) and five wrong authenticator codes in the current window.
     */
    @Test
    void theAuthenticatorsAndTheRecoveryCodesLockOutsAreListedAndLiftedInTheConsole() throws IOException {
        String user = newUser();
        ConfirmedFactor factor = confirmedFactor(user, "phone");
        AuthenticatorApp app = factor.app();
        String recoveryCode = factor.recoveryCodes().get(0);
        for (int window = 1; window <= 20; window++) {
            clock.advance(Duration.ofMinutes(15));
            for (int guess = 1; guess <= 5; guess++) {
                api.post("/v1/users/" + user + "/recovery-codes/verify", Map.of("code", "abcde-fghjk"));
            }
        }
        clock.advance(Duration.ofMinutes(15));
        String right = app.codeAt(clock.instant());
        for (int guess = 1; guess <= 5; guess++) {
            api.post("/v1/users/" + user + "/totp/verify", Map.of("code", wrong(right)));
        }

        signIn();
        lookUp(user);

        assertThat(find("#lock-outs").getText()).contains("Wrong guesses: TOTP")
                .contains("Wrong guesses in a row: recovery").contains("100 of 100 wrong guesses in a row")
                .contains("or when the user signs in with another factor or a remembered device");
        for (String action : List.of("VERIFY_TOTP", "VERIFY_RECOVERY_CONSECUTIVE")) {
            WebElement row = find("#limit-table tr[data-action='" + action + "']");
            assertThat(row.getAttribute("class")).as(action).contains("locked");
            assertThat(row.findElements(By.cssSelector("button.lift"))).as(action).hasSize(1);
        }
        assertThat(browser.driver.findElements(By.cssSelector(
                "#limit-table tr[data-action='VERIFY_RECOVERY'] button.lift"))).as("its window is over").isEmpty();
        browser.screenshot("user-factors-locked");

        leavingThePage(() -> find("#limit-table tr[data-action='VERIFY_RECOVERY_CONSECUTIVE'] button.lift").click());

        assertThat(find("#result").getText()).contains("Lifted VERIFY_RECOVERY_CONSECUTIVE");
        assertThat(api.post("/v1/users/" + user + "/recovery-codes/verify", Map.of("code", recoveryCode)).json()
                .get("valid").asBoolean()).isTrue();
        open("/console/users/" + user);
        leavingThePage(() -> find("#limit-table tr[data-action='VERIFY_TOTP'] button.lift").click());
        assertThat(find("#result").getText()).contains("Lifted VERIFY_TOTP");
        assertThat(find("#lock-outs").getText()).contains("None");
        assertThat(api.post("/v1/users/" + user + "/totp/verify", Map.of("code", right)).json().get("valid")
                .asBoolean()).isTrue();
    }

    @Test
    void liftingALockOutInTheConsoleLetsANewCodeVerify(CapturedOutput output) throws IOException {
        String user = newUser();
        registerDevice(user, "phone-1", "Jane's iPhone");
        registerDevice(user, "laptop-1", "Work laptop");
        String code = sendEmailCode(user);
        List<String> reasons = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            reasons.add(verify(user, wrong(code)).text("reason"));
        }
        assertThat(reasons).containsExactly("NOT_FOUND", "NOT_FOUND", "NOT_FOUND", "NOT_FOUND", "TOO_MANY_ATTEMPTS");
        assertThat(verify(user, code).text("reason")).isEqualTo("TOO_MANY_ATTEMPTS");

        signIn();
        lookUp(user);
        // In words, with the API's name beside them for matching with the audit.
        assertThat(find("#lock-outs").getText()).contains("Wrong guesses: email verification").contains("Resets at");
        assertThat(find("#lock-outs strong").getAttribute("title")).isEqualTo("VERIFY_EMAIL_VERIFICATION");
        WebElement limit = find("#limit-table tr[data-action='VERIFY_EMAIL_VERIFICATION']");
        assertThat(limit.getAttribute("class")).contains("locked");
        assertThat(limit.getText()).contains("Locked");
        // Lift is offered where there is something to lift: the lock-out, not the open send limit beside it.
        assertThat(browser.driver.findElements(By.cssSelector(
                "#limit-table tr[data-action='SEND_EMAIL_VERIFICATION'] button.lift"))).isEmpty();
        assertThat(limit.findElements(By.cssSelector("button.lift"))).hasSize(1);
        browser.screenshot("user-locked-1280x800");
        browser.viewport(390, 844);
        open("/console/users/" + user);
        assertNoHorizontalScrolling();
        // On a phone the devices and the limits come before the long timeline.
        assertThat(find("#rate-limits").getLocation().getY()).isLessThan(find("#timeline").getLocation().getY());
        assertThat(find("#devices").getLocation().getY()).isLessThan(find("#timeline").getLocation().getY());
        browser.screenshot("user-locked-390x844");
        browser.viewport(1280, 800);
        open("/console/users/" + user);

        leavingThePage(() -> find("#limit-table tr[data-action='VERIFY_EMAIL_VERIFICATION'] button.lift").click());

        assertThat(find("#result").getText()).contains("Lifted VERIFY_EMAIL_VERIFICATION").contains("1 window cleared")
                .contains(KEY_ID);
        assertThat(find("#lock-outs").getText()).contains("None");
        WebElement newest = find("#events tbody tr");
        assertThat(newest.getAttribute("data-event-type")).isEqualTo("RATE_LIMIT_RESET");
        assertThat(newest.getText()).contains("operatorKeyId=" + KEY_ID).contains("action=VERIFY_EMAIL_VERIFICATION")
                .contains("operator");
        browser.screenshot("user-lifted");

        // The old code was burnt by the lock-out; a new one (after the 30-second resend cooldown) verifies.
        clock.advance(Duration.ofSeconds(31));
        String fresh = sendEmailCode(user);
        Answer verified = verify(user, fresh);
        assertThat(verified.json().get("valid").asBoolean()).as(verified.raw().body()).isTrue();
        open("/console/users/" + user);
        assertThat(timelineTypes()).startsWith("CODE_VERIFIED", "CODE_SENT", "RATE_LIMIT_RESET");
        assertNoSecretInPage();
        assertThat(output.getAll()).doesNotContain(ADMIN_KEY).doesNotContain(code).doesNotContain(fresh);
    }

    @Test
    void revokingADeviceInTheConsoleMakesItsVerifyFail() throws IOException {
        String user = newUser();
        String phone = registerDevice(user, "phone-1", "Jane's iPhone");
        String laptop = registerDevice(user, "laptop-1", "Work laptop");
        signIn();
        lookUp(user);

        leavingThePage(() -> find("#device-table tr[data-device-id='phone-1'] a.revoke").click());
        assertThat(find("h1").getText()).isEqualTo("Revoke device phone-1?");
        assertEveryControlIsLabelled();
        browser.screenshot("confirm-revoke");
        assertThat(deviceVerifies("phone-1", phone)).as("nothing happens before the confirmation").isTrue();
        leavingThePage(() -> find("#confirm").click());

        assertThat(find("#result").getText()).contains("Revoked device phone-1 (1 token)").contains(KEY_ID);
        assertThat(findAll("#device-table tr[data-device-id='phone-1']")).isEmpty();
        assertThat(deviceVerifies("phone-1", phone)).isFalse();
        assertThat(deviceVerifies("laptop-1", laptop)).isTrue();
        WebElement revoked = findAll("#events tbody tr").stream()
                .filter(row -> "DEVICE_REVOKED".equals(row.getAttribute("data-event-type"))).findFirst().orElseThrow();
        assertThat(revoked.getText()).contains("operatorKeyId=" + KEY_ID).contains("device phone-1");

        // Revoke all: cancelled first (nothing happens), then confirmed.
        leavingThePage(() -> find("#revoke-all").click());
        leavingThePage(() -> find("#cancel").click());
        assertThat(currentPath()).isEqualTo("/console/users/" + user);
        assertThat(deviceVerifies("laptop-1", laptop)).isTrue();
        leavingThePage(() -> find("#revoke-all").click());
        leavingThePage(() -> find("#confirm").click());
        assertThat(find("#result").getText()).contains("Revoked every device of " + user + " (1 device)");
        assertThat(deviceVerifies("laptop-1", laptop)).isFalse();
        assertThat(timelineTypes()).contains("DEVICES_REVOKED", "DEVICE_REVOKED");
        assertThat(find("#device-count").getText()).isEqualTo("0");
        assertNoSecretInPage();
    }

    @Test
    void aChangeWithoutTheCsrfTokenIsRefusedAndChangesNothing() throws IOException {
        String user = newUser();
        String code = sendEmailCode(user);
        verify(user, wrong(code));
        signIn();
        lookUp(user);
        String cookie = "vs_console=" + sessionCookie();
        String lift = "/console/users/" + user + "/rate-limits/VERIFY_EMAIL_VERIFICATION/lift";

        // From the browser itself: a form of the console's own origin, with the session cookie but without the
        // token. (A fetch cannot even be sent: the console's Content-Security-Policy allows no connection.)
        leavingThePage(() -> browser.driver.executeScript("""
                const form = document.createElement('form');
                form.method = 'post';
                form.action = arguments[0];
                document.body.appendChild(form);
                form.submit();""", lift));
        assertThat(find("h1").getText()).isEqualTo("Refused: the form could not be checked");
        assertThat(find("main").getText()).contains("nothing was changed");
        browser.screenshot("csrf-refused");
        browser.driver.navigate().back();
        // From a plain client: no token, a wrong token, a token sent from another site.
        String token = find("input[name=_csrf]").getAttribute("value"); // every form of the page carries the same token
        assertThat(plain("POST", lift, Map.of("Cookie", cookie), "").statusCode()).isEqualTo(403);
        HttpResponse<String> wrongToken = plain("POST", lift, Map.of("Cookie", cookie),
                form(Map.of("_csrf", token.substring(1) + "A")));
        assertThat(wrongToken.statusCode()).isEqualTo(403);
        assertThat(wrongToken.body()).contains("CSRF token").contains("nothing was changed");
        assertThat(plain("POST", lift, Map.of("Cookie", cookie, "Sec-Fetch-Site", "cross-site"),
                form(Map.of("_csrf", token))).statusCode()).isEqualTo(403);
        // The token in the URL's query string is not taken, with the form body empty or without it: a URL is
        // logged, kept in history and passed on in ways a form body is not.
        String inQuery = lift + "?_csrf=" + URLEncoder.encode(token, StandardCharsets.UTF_8);
        assertThat(plain("POST", inQuery, Map.of("Cookie", cookie), "").statusCode()).isEqualTo(403);
        assertThat(plain("POST", inQuery, Map.of("Cookie", cookie), form(Map.of("other", "x"))).statusCode())
                .isEqualTo(403);
        // Without the session, the token alone does nothing either.
        assertThat(plain("POST", lift, Map.of(), form(Map.of("_csrf", token))).statusCode()).isEqualTo(403);

        // The send, the wrong guess in its window and the same guess in a row: all still counted.
        JsonNode limits = api.get("/v1/users/" + user + "/rate-limits").json().get("limits");
        assertThat(limits.findValues("count").stream().mapToLong(JsonNode::asLong).sum()).isEqualTo(3);
        assertThat(api.get("/v1/users/" + user + "/audit").raw().body()).doesNotContain("RATE_LIMIT_RESET");

        // The same request with the session's token goes through: the token was all that was missing.
        HttpResponse<String> withToken = plain("POST", lift, Map.of("Cookie", cookie), form(Map.of("_csrf", token)));
        assertThat(withToken.statusCode()).isEqualTo(302);
        assertThat(api.get("/v1/users/" + user + "/audit").raw().body()).contains("RATE_LIMIT_RESET");
    }

    @Test
    void aSessionEndsAtSignOutAndAfterItsIdleTimeout() throws IOException {
        signIn();
        String cookie = "vs_console=" + sessionCookie();
        leavingThePage(() -> find(".sign-out button").click());
        assertThat(currentPath()).isEqualTo("/console/sign-in");
        assertThat(find("main").getText()).contains("You are signed out.");
        browser.screenshot("signed-out");
        HttpResponse<String> after = plain("GET", "/console/users", Map.of("Cookie", cookie), null);
        assertThat(after.statusCode()).isEqualTo(303);
        assertThat(after.headers().firstValue("Location")).contains("/console/sign-in");

        signIn();
        clock.advance(Duration.ofMinutes(14));
        open("/console/users");
        assertThat(currentPath()).as("used within the idle timeout").isEqualTo("/console/users");
        clock.advance(Duration.ofMinutes(15));
        open("/console/users");
        assertThat(currentPath()).as("idle for 15 minutes").isEqualTo("/console/sign-in");
    }

    @Test
    void theOutboxShowsTheNewestMessagesWithoutTheirCodes() throws IOException {
        String user = newUser();
        String code = sendEmailCode(user);
        signIn();
        leavingThePage(() -> find("nav a[href='/console/outbox']").click());

        WebElement newest = find("#outbox tbody tr");
        assertThat(newest.getText()).contains("Email verification").contains("j***@example.com").contains("••••••")
                .doesNotContain(code);
        assertNoSecretInPage();
        browser.screenshot("outbox");
    }

    /** Events out (§15): a user's events with their delivery state, an endpoint's deliveries, and a redelivery. */
    @Test
    void aUsersEventsShowTheirDeliveriesAndAnEventCanBeRedelivered() throws Exception {
        try (WebhookReceiver receiver = new WebhookReceiver()) {
            ApiClient admin = new ApiClient(port, ADMIN_KEY);
            Answer registered = admin.post("/v1/admin/webhooks", Map.of("url", receiver.url().toString(),
                    "eventTypes", List.of("code.sent")));
            assertThat(registered.status()).as(registered.raw().body()).isEqualTo(201);
            String endpointId = registered.text("endpointId");
            secrets.add(registered.text("secret"));
            try {
                String user = newUser();
                sendEmailCode(user);
                String eventId = receiver.awaitMatching(request -> request.bodyText().contains(user), 1,
                        Duration.ofSeconds(30)).id();
                signIn();
                lookUp(user);
                leavingThePage(() -> find("#user-events-link").click());
                // The outcome is written just after the receiver answered: look again until it shows.
                new WebDriverWait(browser.driver, Duration.ofSeconds(30)).until(driver -> {
                    driver.navigate().refresh();
                    return find("#user-events").getText().contains(endpointId + ": DELIVERED (204)");
                });
                assertEveryControlIsLabelled();
                browser.screenshot("user-events");

                leavingThePage(() -> find("nav a[href='/console/webhooks']").click());
                leavingThePage(() -> find("#endpoints tr[data-endpoint-id='" + endpointId + "'] a").click());
                WebElement row = find("#deliveries tr[data-event-id='" + eventId + "']");
                assertThat(row.getText()).contains("code.sent").contains(user).contains("DELIVERED")
                        .contains("answered 204");
                assertEveryControlIsLabelled();
                browser.screenshot("webhook-deliveries");
                leavingThePage(() -> row.findElement(By.cssSelector("button")).click());

                assertThat(find("#result").getText()).contains("Event " + eventId + " goes to " + endpointId);
                assertThat(receiver.awaitMatching(request -> eventId.equals(request.id()), 2,
                        Duration.ofSeconds(30)).bodyText()).contains(user);
                assertNoSecretInPage();
            } finally {
                admin.delete("/v1/admin/webhooks/" + endpointId);
            }
        }
    }

    @Test
    void theConsoleIsUsableWithTheKeyboardWithAVisibleFocus() {
        signIn();
        new Actions(browser.driver).sendKeys(Keys.TAB).perform();
        Object first = browser.driver.executeScript("return document.activeElement.textContent.trim();");
        assertThat(first).isEqualTo("Skip to content");
        Object outline = browser.driver.executeScript("return getComputedStyle(document.activeElement).outlineStyle;");
        assertThat(outline).isEqualTo("solid");
        // Tab on to the user id field and look a user up without the mouse.
        for (int i = 0; i < 10 && !"lookup-user".equals(browser.driver.executeScript(
                "return document.activeElement.id;")); i++) {
            new Actions(browser.driver).sendKeys(Keys.TAB).perform();
        }
        assertThat(browser.driver.executeScript("return document.activeElement.id;")).isEqualTo("lookup-user");
        assertThat(browser.driver.executeScript("return getComputedStyle(document.activeElement).outlineStyle;"))
                .isEqualTo("solid");
        String user = newUser();
        leavingThePage(() -> new Actions(browser.driver).sendKeys(user + Keys.ENTER).perform());
        assertThat(find("#user-id").getText()).isEqualTo(user);
    }
}
