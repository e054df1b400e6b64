package dev.verificationservice.console;

import dev.verificationservice.Verification;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.AuditPage;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.codes.DevelopmentOutbox;
import dev.verificationservice.delivery.DeliveryChannels;
import dev.verificationservice.sms.NumberRanges;
import dev.verificationservice.sms.SmsRange;
import dev.verificationservice.sms.SmsSignals;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.spring.metrics.VerificationMetrics;
import dev.verificationservice.operator.OperatorService;
import dev.verificationservice.validation.Inputs;
import dev.verificationservice.validation.InvalidInputException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Controller;
import org.springframework.ui.Model;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.ModelAttribute;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.util.UriComponentsBuilder;

/**
 * The support console's pages ({@code /console}), rendered on the server with Thymeleaf. {@link ConsoleFilter}
 * has already decided who may see them: every handler here but the sign-in runs for a signed-in operator, and
 * every POST has passed the CSRF check. Every read and every change goes through the core's {@link OperatorService},
 * the operator API's domain, with the session's operator key id, so each change is audited exactly as the
 * operator API audits it. Each change answers with a redirect to a page (POST, redirect, GET), which shows what
 * the change did once.
 */
@Controller
@RequestMapping("/console")
public class ConsoleController {

    private static final Logger LOG = LoggerFactory.getLogger(ConsoleController.class);
    private static final ConsoleLabels LABELS = new ConsoleLabels();

    /** Every page names codes, limits and events in words ({@code ${labels.of(name)}}). */
    @ModelAttribute(ConsoleLabels.ATTRIBUTE)
    ConsoleLabels labels() {
        return LABELS;
    }

    private final OperatorService support;
    /** For the user's authenticator factors and recovery codes. */
    private final Verification verification;
    private final ConsoleHost host;
    private final ConsoleSessions sessions;
    private final SignInThrottle throttle;
    private final Optional<DevelopmentOutbox> outbox;
    private final VerificationMetrics metrics;
    private final Clock clock;

    public ConsoleController(Verification verification, ConsoleHost host, ConsoleSessions sessions,
                             SignInThrottle throttle, DeliveryChannels channels,
                             VerificationMetrics metrics, Clock clock) {
        this.support = verification.operator();
        this.verification = verification;
        this.host = host;
        this.sessions = sessions;
        this.throttle = throttle;
        this.outbox = channels.outbox();
        this.metrics = metrics;
        this.clock = clock;
    }

    // Sign-in and sign-out

    @GetMapping({"", "/"})
    public String home() {
        return "redirect:/console/users";
    }

    @GetMapping("/sign-in")
    public String signInPage(HttpServletRequest request, HttpServletResponse response, Model model) {
        if (ConsoleFilter.cookie(request, ConsoleFilter.SESSION_COOKIE).flatMap(sessions::find).isPresent()) {
            return "redirect:/console/users";
        }
        return signInForm(request, response, model, null);
    }

    @PostMapping("/sign-in")
    public String signIn(@RequestParam(name = "key", required = false) String key, HttpServletRequest request,
                         HttpServletResponse response, Model model) {
        String address = request.getRemoteAddr();
        boolean blank = key == null || key.isBlank();
        Optional<Duration> wait = blank ? Optional.empty() : throttle.waitFor(address);
        if (wait.isPresent()) {
            // Not checked at all: a guess made while throttled tells nothing.
            long seconds = Math.max(1, wait.get().toSeconds() + (wait.get().toNanosPart() > 0 ? 1 : 0));
            response.setStatus(HttpStatus.TOO_MANY_REQUESTS.value());
            response.setHeader(HttpHeaders.RETRY_AFTER, Long.toString(seconds));
            return signInForm(request, response, model, "Too many failed sign-ins. Wait " + ConsoleViews.duration(
                    Duration.ofSeconds(seconds)) + ", then sign in with an admin key (VERIFICATION_ADMIN_API_KEYS).");
        }
        ConsoleHost.PresentedKey presented = host.identify(blank ? "" : key.trim());
        if (presented instanceof ConsoleHost.AdminKey admin) {
            throttle.succeeded(address);
            // A sign-in always makes a new session: an id the browser had before is never promoted.
            ConsoleFilter.cookie(request, ConsoleFilter.SESSION_COOKIE).flatMap(sessions::find).ifPresent(sessions::end);
            ConsoleSessions.Created created = sessions.create(admin.keyId());
            response.addHeader(HttpHeaders.SET_COOKIE, ConsoleFilter.cookieHeader(request, ConsoleFilter.SESSION_COOKIE,
                    created.cookieValue(), "/console", -1));
            response.addHeader(HttpHeaders.SET_COOKIE, ConsoleFilter.cookieHeader(request, ConsoleFilter.SIGN_IN_COOKIE,
                    "", ConsoleFilter.SIGN_IN_PATH, 0));
            LOG.info("Console sign-in with admin key {}", created.session().operatorKeyId());
            return "redirect:/console/users";
        }
        if (!blank) {
            // Never one line per failure (anyone can send this form): the throttle logs a summary.
            throttle.failed(address);
        }
        if (presented instanceof ConsoleHost.ApplicationKey) {
            response.setStatus(HttpStatus.FORBIDDEN.value());
            return signInForm(request, response, model, "This is an application key (VERIFICATION_API_KEYS). The "
                    + "console needs an admin key (VERIFICATION_ADMIN_API_KEYS).");
        }
        response.setStatus(HttpStatus.UNAUTHORIZED.value());
        return signInForm(request, response, model, blank ? "Enter an admin key."
                : "That key is not an admin key of this service. Check it and try again.");
    }

    private String signInForm(HttpServletRequest request, HttpServletResponse response, Model model, String error) {
        String token = new dev.verificationservice.security.SecureTokens().randomToken();
        response.addHeader(HttpHeaders.SET_COOKIE, ConsoleFilter.cookieHeader(request, ConsoleFilter.SIGN_IN_COOKIE,
                token, ConsoleFilter.SIGN_IN_PATH, 3600));
        model.addAttribute("csrf", token);
        model.addAttribute("error", error);
        model.addAttribute("signedOut", request.getParameter("signed-out") != null);
        return "console/sign-in";
    }

    @PostMapping("/sign-out")
    public String signOut(HttpServletRequest request, HttpServletResponse response) {
        ConsoleSessions.Session session = session(request);
        sessions.end(session);
        response.addHeader(HttpHeaders.SET_COOKIE, ConsoleFilter.cookieHeader(request, ConsoleFilter.SESSION_COOKIE, "",
                "/console", 0));
        LOG.info("Console sign-out of admin key {}", session.operatorKeyId());
        return "redirect:/console/sign-in?signed-out";
    }

    // Looking a user up

    @GetMapping("/users")
    public String lookup(@RequestParam(name = "userId", required = false) String userId, HttpServletRequest request,
                         Model model) {
        if (userId != null && !userId.isBlank()) {
            try {
                Inputs.userId(userId.trim());
                return "redirect:" + userUrl(userId.trim());
            } catch (InvalidInputException e) {
                model.addAttribute("error", "User id: " + e.getMessage() + ".");
                model.addAttribute("userId", userId);
            }
        }
        common(request, model);
        return "console/lookup";
    }

    @GetMapping("/users/{userId}")
    public String user(@PathVariable String userId, TimelineQuery query, HttpServletRequest request,
                       HttpServletResponse response, Model model) {
        common(request, model);
        Instant now = clock.instant();
        OperatorService.UserOverview overview = support.overview(userId);
        model.addAttribute("userId", userId);
        model.addAttribute("devices", overview.devices().stream().map(ConsoleViews.DeviceRow::of).toList());
        model.addAttribute("codes", overview.liveCodes().stream().map(code -> ConsoleViews.CodeRow.of(code, now)).toList());
        List<ConsoleViews.LimitRow> limits = overview.rateLimits().stream()
                .map(limit -> ConsoleViews.LimitRow.of(limit, now)).toList();
        model.addAttribute("limits", limits);
        model.addAttribute("lockOuts", limits.stream().filter(ConsoleViews.LimitRow::locked).toList());
        model.addAttribute("factors", verification.totp().list(userId).stream().map(ConsoleViews.FactorRow::of)
                .toList());
        model.addAttribute("recoveryCodesLeft", verification.recovery().remaining(userId));
        model.addAttribute("passkeys", verification.passkeysOn() ? verification.passkeys().list(userId).stream()
                .map(ConsoleViews.PasskeyRow::of).toList() : List.of());

        // The timeline's filter: an event type, and a period or a range of its own.
        TimelineQuery.Resolution resolution = query.resolve(now);
        model.addAttribute("filter", resolution.filter());
        model.addAttribute("eventTypes", Arrays.stream(AuditEventType.values()).map(Enum::name).toList());
        model.addAttribute("periods", ConsoleViews.PERIODS);
        if (resolution instanceof TimelineQuery.Refused refused) {
            model.addAttribute("errors", refused.errors());
            response.setStatus(HttpStatus.BAD_REQUEST.value());
            return "console/user";
        }
        TimelineQuery.Range range = (TimelineQuery.Range) resolution;
        Map<String, String> errors = new LinkedHashMap<>();
        model.addAttribute("errors", errors);
        model.addAttribute("rangeLabel", ConsoleViews.time(range.start()) + " to " + ConsoleViews.time(range.end()) + " UTC");
        AuditPage page;
        try {
            page = support.timeline(userId, range.start(), range.end(), range.types(), TimelineQuery.PAGE_SIZE,
                    range.position());
        } catch (InvalidInputException e) {
            if (!"cursor".equals(e.field())) {
                throw e;
            }
            errors.put("cursor", "This page link no longer fits the filter; start again from the newest entries.");
            response.setStatus(HttpStatus.BAD_REQUEST.value());
            return "console/user";
        }
        model.addAttribute("events", page.entries().stream().map(ConsoleViews.EventRow::of).toList());
        model.addAttribute("paged", range.position().isPresent());
        model.addAttribute("newestUrl", range.newestUrl(userId));
        model.addAttribute("olderUrl", page.nextCursor().map(next -> range.olderUrl(userId, next)).orElse(null));
        model.addAttribute("strip", ConsoleViews.Strip.of(support.activity(userId, range.start(), range.end(),
                range.bucket(), range.types())));
        return "console/user";
    }

    // Devices

    @GetMapping("/users/{userId}/devices/{deviceId}/revoke")
    public String confirmRevoke(@PathVariable String userId, @PathVariable String deviceId, HttpServletRequest request,
                                Model model) {
        Inputs.userId(userId);
        Inputs.deviceId(deviceId);
        return confirm(request, model, userId, "Revoke device " + deviceId + "?",
                "The device " + deviceId + " of " + userId + " will have to be registered again: its remember-me "
                        + "secret stops working at once. The audit log records this as DEVICE_REVOKED with your key id.",
                "Revoke device " + deviceId, devicePath(userId, deviceId) + "/revoke");
    }

    @PostMapping("/users/{userId}/devices/{deviceId}/revoke")
    public String revoke(@PathVariable String userId, @PathVariable String deviceId, HttpServletRequest request) {
        ConsoleSessions.Session session = session(request);
        int revoked = support.revokeDevice(userId, deviceId, session.operatorKeyId(), ClientContext.none());
        metrics.devicesRevoked(revoked);
        return done(session, userId, revoked > 0
                ? "Revoked device " + deviceId + " (" + counted(revoked, "token") + "). Audited as DEVICE_REVOKED with "
                + "key id " + session.operatorKeyId() + "."
                : "Device " + deviceId + " had no live token, so nothing was revoked (audited as DEVICE_REVOKED, "
                + "count 0).");
    }

    @GetMapping("/users/{userId}/devices/revoke-all")
    public String confirmRevokeAll(@PathVariable String userId, HttpServletRequest request, Model model) {
        Inputs.userId(userId);
        return confirm(request, model, userId, "Revoke every device of " + userId + "?",
                "Every remembered device of " + userId + " will have to be registered again, including one "
                        + "registered a moment ago. The audit log records this as DEVICES_REVOKED with your key id.",
                "Revoke all devices", userPath(userId) + "/devices/revoke-all");
    }

    @PostMapping("/users/{userId}/devices/revoke-all")
    public String revokeAll(@PathVariable String userId, HttpServletRequest request) {
        ConsoleSessions.Session session = session(request);
        int revoked = support.revokeAllDevices(userId, session.operatorKeyId(), ClientContext.none());
        metrics.devicesRevoked(revoked);
        return done(session, userId, "Revoked every device of " + userId + " (" + counted(revoked, "device")
                + "). Audited as DEVICES_REVOKED with key id " + session.operatorKeyId() + ".");
    }

    // Rate limits and codes

    @PostMapping("/users/{userId}/rate-limits/{action}/lift")
    public String lift(@PathVariable String userId, @PathVariable String action, HttpServletRequest request) {
        ConsoleSessions.Session session = session(request);
        int cleared = support.liftRateLimit(userId, action, session.operatorKeyId(), ClientContext.none());
        return done(session, userId, "Lifted " + action + " for " + userId + ": " + counted(cleared, "window")
                + " cleared. Audited as RATE_LIMIT_RESET with key id " + session.operatorKeyId() + ".");
    }

    @GetMapping("/users/{userId}/codes/invalidate")
    public String confirmInvalidate(@PathVariable String userId, HttpServletRequest request, Model model) {
        Inputs.userId(userId);
        return confirm(request, model, userId, "Invalidate every live code of " + userId + "?",
                "Every code sent to " + userId + " and not yet used stops working; the user can ask for a new one. "
                        + "The audit log records this as CODES_INVALIDATED with your key id.",
                "Invalidate all codes", userPath(userId) + "/codes/invalidate");
    }

    @PostMapping("/users/{userId}/codes/invalidate")
    public String invalidate(@PathVariable String userId, HttpServletRequest request) {
        ConsoleSessions.Session session = session(request);
        int invalidated = support.invalidateCodes(userId, session.operatorKeyId(), ClientContext.none());
        return done(session, userId, "Invalidated " + counted(invalidated, "live code") + " of " + userId
                + (invalidated > 0 ? ". Audited as CODES_INVALIDATED with key id " + session.operatorKeyId() + "."
                : "; there was none, so nothing was audited."));
    }

    // SMS number ranges and countries: the open range and country breakers, worst and allowed ranges; a range's or
    // a country's figures, breaker and history; the lift of an open breaker and a range's allow

    @GetMapping("/sms")
    public String smsRanges(@RequestParam(name = "range", required = false) String prefix,
                            @RequestParam(name = "country", required = false) String country,
                            HttpServletRequest request, Model model) {
        common(request, model);
        model.addAttribute("prefix", prefix);
        model.addAttribute("countryAsked", country);
        model.addAttribute("openCountries", support.smsCountries().stream().map(ConsoleViews.CountryRow::of)
                .toList());
        if (country != null && !country.isBlank()) {
            String region = NumberRanges.region("country", country.trim());
            model.addAttribute("country", ConsoleViews.CountryRow.of(support.smsCountry(region)));
            model.addAttribute("countryEvents", support.smsCountryHistory(region).stream()
                    .map(ConsoleViews.EventRow::of).toList());
        }
        SmsSignals.Overview overview = support.smsRanges();
        model.addAttribute("openBreakers", overview.openBreakers().stream()
                .map(state -> ConsoleViews.RangeRow.of(state.range(), state)).toList());
        model.addAttribute("worst", overview.worst().stream()
                .map(state -> ConsoleViews.RangeRow.of(state.range(), state)).toList());
        model.addAttribute("allowed", overview.allowed().stream().map(ConsoleViews.AllowedRow::of).toList());
        if (prefix != null && !prefix.isBlank()) {
            SmsRange range = smsRange(prefix.trim());
            model.addAttribute("range", ConsoleViews.RangeRow.of(range, support.smsRange(range)));
            model.addAttribute("events", support.smsRangeHistory(range).stream().map(ConsoleViews.EventRow::of)
                    .toList());
        }
        return "console/sms";
    }

    @PostMapping("/sms/lift")
    public String liftSmsBreaker(@RequestParam(name = "range") String prefix, HttpServletRequest request) {
        return onSmsRange(prefix, request, (range, keyId) -> support.liftSmsBreaker(range, keyId, ClientContext.none())
                ? "Lifted the SMS breaker of " + range.prefix() + ": its SMS go again and its figures start afresh. "
                + "Audited as SMS_RANGE_RELEASED with key id " + keyId + "."
                : "The SMS breaker of " + range.prefix() + " was not open; its figures start afresh.");
    }

    @PostMapping("/sms/lift-country")
    public String liftSmsCountryBreaker(@RequestParam(name = "country") String country, HttpServletRequest request) {
        ConsoleSessions.Session session = session(request);
        String region = NumberRanges.region("country", country);
        String keyId = session.operatorKeyId();
        session.flash(new ConsoleSessions.Flash(false, support.liftSmsCountryBreaker(region, keyId,
                ClientContext.none())
                ? "Lifted the SMS breaker of " + region + ": its SMS go again (on other instances within their next "
                + "read of the country) and its figures start afresh. Audited as SMS_RANGE_RELEASED with key id "
                + keyId + "."
                : "The SMS breaker of " + region + " was not open; its figures start afresh."));
        return smsPage("country", region);
    }

    @PostMapping("/sms/allow")
    public String allowSmsRange(@RequestParam(name = "range") String prefix, HttpServletRequest request) {
        return onSmsRange(prefix, request, (range, keyId) -> support.allowSmsRange(range, keyId, ClientContext.none())
                ? "Allowed " + range.prefix() + ": its SMS breaker refuses none of its SMS until the allow is removed. "
                + "Audited as SMS_RANGE_ALLOWED with key id " + keyId + "."
                : range.prefix() + " was allowed already; nothing changed.");
    }

    @PostMapping("/sms/disallow")
    public String disallowSmsRange(@RequestParam(name = "range") String prefix, HttpServletRequest request) {
        return onSmsRange(prefix, request, (range, keyId) -> support.disallowSmsRange(range, keyId,
                ClientContext.none())
                ? "Removed the allow of " + range.prefix() + ": its SMS breaker judges it again. "
                + "Audited as SMS_RANGE_DISALLOWED with key id " + keyId + "."
                : range.prefix() + " was not allowed; nothing changed.");
    }

    /** An operator's action on a range: what it did, as the flash the range's page then shows. */
    private String onSmsRange(String prefix, HttpServletRequest request,
                              BiFunction<SmsRange, String, String> action) {
        ConsoleSessions.Session session = session(request);
        SmsRange range = smsRange(prefix);
        session.flash(new ConsoleSessions.Flash(false, action.apply(range, session.operatorKeyId())));
        return smsPage("range", range.prefix());
    }

    /** The redirect to the SMS page of one range or country, at the flash of what was done. */
    private static String smsPage(String parameter, String value) {
        return "redirect:" + UriComponentsBuilder.fromPath("/console/sms").queryParam(parameter, value)
                .encode().toUriString() + "#result";
    }

    private static SmsRange smsRange(String prefix) {
        return NumberRanges.rangeOfPrefix(prefix).orElseThrow(() -> new InvalidInputException("range",
                "must be '+', a country calling code and national digits, such as +447700"));
    }

    // The development outbox

    @GetMapping("/outbox")
    public String outbox(HttpServletRequest request, HttpServletResponse response, Model model) {
        common(request, model);
        if (outbox.isEmpty()) {
            response.setStatus(HttpStatus.NOT_FOUND.value());
            model.addAttribute("messages", List.of());
            return "console/outbox";
        }
        model.addAttribute("messages", outbox.get().messages().stream().limit(50).map(ConsoleViews.OutboxRow::of).toList());
        return "console/outbox";
    }

    // Errors

    @ExceptionHandler(InvalidInputException.class)
    public String invalidInput(InvalidInputException e, HttpServletRequest request, HttpServletResponse response,
                               Model model) {
        response.setStatus(HttpStatus.BAD_REQUEST.value());
        return error(request, model, "That did not work", e.field() + ": " + e.getMessage() + ". Nothing was changed.");
    }

    @ExceptionHandler(StoreException.class)
    public String storeUnavailable(StoreException e, HttpServletRequest request, HttpServletResponse response,
                                   Model model) {
        LOG.warn("Store unavailable for the console: {}", e.getMessage());
        response.setStatus(HttpStatus.SERVICE_UNAVAILABLE.value());
        return error(request, model, "The store did not complete the request", e.kind().description()
                + " A change may or may not have been made: look at the user again before you retry.");
    }

    private String error(HttpServletRequest request, Model model, String title, String message) {
        common(request, model);
        model.addAttribute("title", title);
        model.addAttribute("message", message);
        return "console/error";
    }

    // Helpers

    private String confirm(HttpServletRequest request, Model model, String userId, String title, String message,
                           String button, String action) {
        common(request, model);
        model.addAttribute("userId", userId);
        model.addAttribute("title", title);
        model.addAttribute("message", message);
        model.addAttribute("button", button);
        model.addAttribute("action", action);
        model.addAttribute("cancelUrl", userUrl(userId));
        return "console/confirm";
    }

    /** What every signed-in page shows: who is signed in, the CSRF token for its forms, a message once. */
    void common(HttpServletRequest request, Model model) {
        ConsoleSessions.Session session = session(request);
        model.addAttribute("operatorKeyId", session.operatorKeyId());
        model.addAttribute("csrf", session.csrfToken());
        model.addAttribute("outboxEnabled", outbox.isPresent());
        model.addAttribute("flash", session.takeFlash().orElse(null));
        model.addAttribute("idleMinutes", sessions.idleTimeout().toMinutes());
    }

    static ConsoleSessions.Session session(HttpServletRequest request) {
        if (request.getAttribute(ConsoleFilter.SESSION) instanceof ConsoleSessions.Session session) {
            return session;
        }
        // Only the filter's signed-in branch reaches these handlers; anything else is refused, never served.
        throw new IllegalStateException("console handler reached without a session");
    }

    private static String userPath(String userId) {
        return UriComponentsBuilder.fromPath("/console/users/{userId}").buildAndExpand(userId).encode().toUriString();
    }

    private static String devicePath(String userId, String deviceId) {
        return UriComponentsBuilder.fromPath("/console/users/{userId}/devices/{deviceId}")
                .buildAndExpand(userId, deviceId).encode().toUriString();
    }

    private static String userUrl(String userId) {
        return userPath(userId);
    }


    /** The result of a change, shown once on the user's page (Post/Redirect/Get). */
    private String done(ConsoleSessions.Session session, String userId, String message) {
        session.flash(new ConsoleSessions.Flash(false, message));
        return "redirect:" + userUrl(userId) + "#result";
    }

    /** "1 token", "3 tokens". */
    private static String counted(int count, String noun) {
        return count + " " + noun + (count == 1 ? "" : "s");
    }
}
