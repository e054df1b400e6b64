package dev.verificationservice.testsupport.browser;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ConditionEvaluationResult;
import org.junit.jupiter.api.extension.ExecutionCondition;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.openqa.selenium.By;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.StaleElementReferenceException;
import org.openqa.selenium.WebDriverException;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;
import org.openqa.selenium.support.ui.WebDriverWait;

/**
 * Debian's chromium, driven through Debian's chromedriver by Selenium: headless, without sandbox (the tests run
 * as root), without any background networking, with a fresh profile each time. Nothing is downloaded: a missing
 * browser is a skip that says so, or a failure when the environment variable {@code CI} is set.
 */
public final class HeadlessChromium implements AutoCloseable {

    public static final Path CHROMIUM = Path.of(System.getProperty("browser.chromium", "/usr/bin/chromium"));
    public static final Path CHROMEDRIVER = Path.of(System.getProperty("browser.chromedriver", "/usr/bin/chromedriver"));
    public static final Path SCREENSHOTS = Path.of("target", "screenshots");

    public final ChromeDriver driver;
    private final Path profile;

    private HeadlessChromium(ChromeDriver driver, Path profile) {
        this.driver = driver;
        this.profile = profile;
    }

    /** Why the browser cannot run here, if it cannot: chromium or chromedriver missing. */
    public static Optional<String> missing() {
        return Stream.of(CHROMIUM, CHROMEDRIVER).filter(path -> !Files.isExecutable(path)).map(Path::toString)
                .reduce((a, b) -> a + " and " + b)
                .map(paths -> "no browser for the browser tests: " + paths + " missing (install Debian's chromium "
                        + "and chromium-driver: apt-get install -y chromium chromium-driver; .ci/run does)");
    }

    public static boolean inCi() {
        String ci = System.getenv("CI");
        return ci != null && !ci.isBlank();
    }

    /**
     * Skips every test of the class, saying why, when the browser is missing outside CI (before anything is
     * started for them); in CI the tests run and fail at {@link #start}.
     */
    public static final class Required implements ExecutionCondition {
        @Override
        public ConditionEvaluationResult evaluateExecutionCondition(ExtensionContext context) {
            Optional<String> reason = missing();
            if (reason.isEmpty() || inCi() || context.getTestMethod().isEmpty()) {
                return ConditionEvaluationResult.enabled("the browser is there, or CI must fail without it");
            }
            System.out.println("SKIPPED " + context.getRequiredTestClass().getSimpleName() + "."
                    + context.getRequiredTestMethod().getName() + ": " + reason.get());
            return ConditionEvaluationResult.disabled(reason.get());
        }
    }

    /** Starts the browser; fails (in CI) when it is missing. */
    public static HeadlessChromium start() throws IOException {
        Optional<String> reason = missing();
        if (reason.isPresent()) {
            throw new IllegalStateException((inCi() ? "CI is set and there is " : "") + reason.get());
        }
        Path profile = Files.createTempDirectory("browser-profile");
        ChromeOptions options = new ChromeOptions();
        options.setBinary(CHROMIUM.toFile());
        options.addArguments("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                "--disable-background-networking", "--disable-component-update", "--disable-sync",
                "--disable-quic", "--no-first-run", "--no-default-browser-check", "--disable-extensions",
                "--disable-features=Translate,MediaRouter,OptimizationHints", "--hide-scrollbars",
                "--user-data-dir=" + profile, "--window-size=1280,800", "--lang=en-GB");
        ChromeDriverService service = new ChromeDriverService.Builder().usingDriverExecutable(CHROMEDRIVER.toFile())
                .usingAnyFreePort().withSilent(true).build();
        ChromeDriver driver = new ChromeDriver(service, options);
        driver.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
        // On a loaded machine a page can still be arriving when the next step looks for an element: wait for it
        // (up to this long) instead of failing at once. Assertions that something is absent use findElements.
        driver.manage().timeouts().implicitlyWait(Duration.ofSeconds(10));
        HeadlessChromium browser = new HeadlessChromium(driver, profile);
        browser.viewport(1280, 800);
        return browser;
    }

    /**
     * Starts the browser for a class of tests marked with {@link Required}: null when Required skips them (no
     * browser outside CI); in CI a missing browser fails here.
     */
    public static HeadlessChromium startUnlessSkipped() throws IOException {
        return missing().isEmpty() || inCi() ? start() : null;
    }

    /**
     * Does what leads to another page (a click, Enter in a form) and waits until the browser has left the page it
     * was on. A click returns before the next document replaces the old one, so without it the next look can still
     * see the old page: its URL, or its rows. The wait bounds a hang; it measures nothing.
     */
    public void leavingThePage(Runnable action) {
        WebElement page = driver.findElement(By.tagName("html"));
        action.run();
        new WebDriverWait(driver, Duration.ofSeconds(30)).until(any -> hasLeft(page));
    }

    /**
     * Whether the browser has left the page {@code element} was on. Selenium's own staleness check lets through
     * what Chrome answers while the old document is being replaced ("Node with given id does not belong to the
     * document", an unknown error): that too means the page is gone.
     */
    static boolean hasLeft(WebElement element) {
        try {
            element.isEnabled();
            return false;
        } catch (StaleElementReferenceException gone) {
            return true;
        } catch (WebDriverException replaced) {
            if (String.valueOf(replaced.getMessage()).contains("does not belong to the document")) {
                return true;
            }
            throw replaced;
        }
    }

    /** The page's size in CSS pixels, as a phone or a laptop screen would give it. */
    public void viewport(int width, int height) {
        driver.executeCdpCommand("Emulation.setDeviceMetricsOverride", Map.of("width", width, "height", height,
                "deviceScaleFactor", 1, "mobile", width < 600));
    }

    /**
     * A PNG of what the viewport shows, into target/screenshots; and every page shot is checked for
     * accessibility first: it fails on any violation axe-core finds (WCAG 2.x A and AA, and axe's best practices).
     */
    public Path screenshot(String name) throws IOException {
        List<String> violations = accessibilityViolations();
        if (!violations.isEmpty()) {
            throw new AssertionError("axe-core finds " + violations.size() + " accessibility violation(s) on the page '"
                    + name + "' (" + driver.getCurrentUrl() + "):\n  " + String.join("\n  ", violations));
        }
        Files.createDirectories(SCREENSHOTS);
        Path file = SCREENSHOTS.resolve(name + ".png");
        Files.write(file, driver.getScreenshotAs(OutputType.BYTES));
        return file;
    }

    /**
     * What axe-core (installed by the build with npm ci, injected into the page as it is) reports as violations:
     * one line each, its rule, impact, and the elements. The script only reads the page.
     */
    @SuppressWarnings("unchecked")
    public List<String> accessibilityViolations() throws IOException {
        Path axe = Path.of(System.getProperty("browser.axe", "target/axe/node_modules/axe-core/axe.min.js"));
        if (!Files.isRegularFile(axe)) {
            throw new IllegalStateException("axe-core is not installed at " + axe.toAbsolutePath()
                    + "; run the tests through Maven (mvn verify), which installs it with npm ci");
        }
        driver.executeScript(Files.readString(axe));
        driver.manage().timeouts().scriptTimeout(Duration.ofSeconds(30));
        List<Map<String, Object>> found = (List<Map<String, Object>>) driver.executeAsyncScript(
                "const done = arguments[arguments.length - 1];"
                        + "axe.run(document, {resultTypes: ['violations']})"
                        + ".then(r => done(r.violations.map(v => ({id: v.id, impact: v.impact, help: v.help,"
                        + " nodes: v.nodes.map(n => n.target.join(' ') + (n.failureSummary ? ' (' + n.failureSummary"
                        + ".replace(/\\s+/g, ' ') + ')' : ''))}))))"
                        + ".catch(e => done([{id: 'axe-error', impact: 'critical', help: String(e), nodes: []}]));");
        List<String> lines = new ArrayList<>();
        for (Map<String, Object> violation : found) {
            lines.add(violation.get("impact") + " " + violation.get("id") + ": " + violation.get("help") + " at "
                    + violation.get("nodes"));
        }
        return lines;
    }

    /** A PNG of the whole page, however long, at the current width. */
    public Path fullPageScreenshot(String name) throws IOException {
        Files.createDirectories(SCREENSHOTS);
        Path file = SCREENSHOTS.resolve(name + ".png");
        Map<String, Object> shot = driver.executeCdpCommand("Page.captureScreenshot",
                Map.of("format", "png", "captureBeyondViewport", true));
        Files.write(file, java.util.Base64.getDecoder().decode((String) shot.get("data")));
        return file;
    }

    /** The whole page in PNG slices of the given size, top to bottom (for looking at a long page). */
    public void pageSlices(String name, int width, int height) throws IOException {
        Files.createDirectories(SCREENSHOTS);
        Number total = (Number) driver.executeScript("return document.documentElement.scrollHeight;");
        for (int top = 0, part = 1; top < total.intValue(); top += height, part++) {
            Map<String, Object> shot = driver.executeCdpCommand("Page.captureScreenshot", Map.of("format", "png",
                    "captureBeyondViewport", true, "clip", Map.of("x", 0, "y", top, "width", width,
                            "height", Math.min(height, total.intValue() - top), "scale", 1)));
            Files.write(SCREENSHOTS.resolve(name + part + ".png"),
                    java.util.Base64.getDecoder().decode((String) shot.get("data")));
        }
    }

    @Override
    public void close() throws IOException {
        try {
            driver.quit();
        } finally {
            try (Stream<Path> files = Files.walk(profile)) {
                files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
    }
}
