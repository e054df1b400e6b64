package dev.verificationservice.console;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Optional;
import org.apache.tomcat.util.http.InvalidParameterException;
import org.springframework.core.Ordered;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.http.ResponseCookie;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.HtmlUtils;

/**
 * The gate of the web console ({@code /console/**}), on the paths {@link #handles} names, which the host's API key
 * filter leaves alone. Every console path but the sign-in page and the stylesheet needs a signed-in session (its
 * cookie); an {@code Authorization} header is never looked at here, so the API's Bearer scheme can never stand in
 * for a sign-in.
 *
 * <ul>
 *   <li>Without admin keys the console is off, like the operator API: every console path answers 404.</li>
 *   <li>Only GET, HEAD and POST. Every POST is a change and must carry the CSRF token in the form field
 *   {@value #CSRF_FIELD} of its body (never the URL's query string), compared in constant time: the session's token once signed in, and for the sign-in
 *   form a token that its own cookie also carries (double submit), so a sign-in cannot be forged either. A POST
 *   that a browser marks as sent from another site ({@code Sec-Fetch-Site: cross-site}) is refused before that.</li>
 *   <li>A POST whose form body cannot be parsed is a 400, before any field of it is looked at.</li>
 *   <li>A page without a live session sends the browser to the sign-in page; a POST without one is refused.</li>
 *   <li>Every console answer forbids framing and any script, style or form target but the console's own
 *   (Content-Security-Policy), sends no referrer and is never sniffed.</li>
 * </ul>
 */
@Component
public class ConsoleFilter extends OncePerRequestFilter implements Ordered {

    /** Request attribute: the signed-in {@link ConsoleSessions.Session}. */
    public static final String SESSION = ConsoleFilter.class.getName() + ".session";
    /** The session cookie: HttpOnly, SameSite=Strict, path {@code /console}, Secure over TLS. */
    public static final String SESSION_COOKIE = "vs_console";
    /** The sign-in form's own CSRF cookie (double submit), path {@code /console/sign-in}. */
    public static final String SIGN_IN_COOKIE = "vs_console_signin";
    /** The form field every POST carries its CSRF token in. */
    public static final String CSRF_FIELD = "_csrf";
    public static final String SIGN_IN_PATH = "/console/sign-in";
    static final String ASSETS_PREFIX = "/console/assets/";

    static final String CONTENT_SECURITY_POLICY = "default-src 'none'; style-src 'self'; script-src 'self'; "
            + "img-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'";

    /** Where the console lives: this path and everything under it. */
    private static final String PREFIX = "/console";

    private final ConsoleHost host;
    private final ConsoleSessions sessions;

    public ConsoleFilter(ConsoleHost host, ConsoleSessions sessions) {
        this.host = host;
        this.sessions = sessions;
    }

    /**
     * True for the console's requests, which this filter gates and the host's API key check must leave alone:
     * decided on the servlet path the container has decoded and normalised (no ';params', no '%76'), the path Spring
     * MVC routes on, never on the raw request URI.
     */
    public static boolean handles(HttpServletRequest request) {
        String path = path(request);
        return path.equals(PREFIX) || path.startsWith(PREFIX + "/");
    }

    private static String path(HttpServletRequest request) {
        return request.getServletPath() + (request.getPathInfo() == null ? "" : request.getPathInfo());
    }

    /** The host's place for it in the filter chain. */
    @Override
    public int getOrder() {
        return host.filterOrder();
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        return !handles(request);
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        response.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
        response.setHeader("X-Frame-Options", "DENY");
        response.setHeader("X-Content-Type-Options", "nosniff");
        response.setHeader("Referrer-Policy", "no-referrer");
        String path = path(request);
        if (!host.operatorKeysConfigured()) {
            refuse(response, HttpStatus.NOT_FOUND, "The console is off",
                    "No admin key is configured on this server. Set VERIFICATION_ADMIN_API_KEYS and restart it to "
                            + "use the support console.", false);
            return;
        }
        if (path.startsWith(ASSETS_PREFIX)) {
            chain.doFilter(request, response);
            return;
        }
        String method = request.getMethod();
        boolean post = method.equals("POST");
        if (!post && !method.equals("GET") && !method.equals("HEAD")) {
            response.setHeader(HttpHeaders.ALLOW, "GET, HEAD, POST");
            refuse(response, HttpStatus.METHOD_NOT_ALLOWED, "Not allowed", "The console takes GET and POST only.", true);
            return;
        }
        if (post && "cross-site".equals(request.getHeader("Sec-Fetch-Site"))) {
            refuse(response, HttpStatus.FORBIDDEN, "Refused", "This form was sent from another site.", true);
            return;
        }
        if (post && !formIsReadable(request)) {
            refuse(response, HttpStatus.BAD_REQUEST, "The form could not be read",
                    "The form's body is not valid URL-encoded text, so nothing was changed. Open the page again and "
                            + "send the form from there.", true);
            return;
        }
        if (path.equals(SIGN_IN_PATH)) {
            if (post && !signInTokenMatches(request)) {
                refuse(response, HttpStatus.FORBIDDEN, "The sign-in form has expired",
                        "The form could not be checked (its CSRF token is missing or does not match). Open the "
                                + "sign-in page again and send the form from there.", true);
                return;
            }
            chain.doFilter(request, response);
            return;
        }
        Optional<ConsoleSessions.Session> session = cookie(request, SESSION_COOKIE).flatMap(sessions::find);
        if (session.isEmpty()) {
            if (post) {
                refuse(response, HttpStatus.FORBIDDEN, "Not signed in",
                        "Your console session has ended or never began, so nothing was changed. Sign in again.", true);
            } else {
                response.setStatus(HttpStatus.SEE_OTHER.value());
                response.setHeader(HttpHeaders.LOCATION, SIGN_IN_PATH);
            }
            return;
        }
        if (post && !session.get().csrfTokenMatches(formToken(request))) {
            refuse(response, HttpStatus.FORBIDDEN, "Refused: the form could not be checked",
                    "This change did not carry the console's CSRF token, so nothing was changed. Reload the page "
                            + "and use its form.", true);
            return;
        }
        request.setAttribute(SESSION, session.get());
        chain.doFilter(request, response);
    }

    /**
     * The form body parses. The container refuses broken percent-encoding or a field without a name when the
     * first parameter is read, with an exception that would otherwise be a 500.
     */
    private static boolean formIsReadable(HttpServletRequest request) {
        try {
            request.getParameterMap();
            return true;
        } catch (InvalidParameterException e) {
            return false;
        }
    }

    /**
     * The CSRF token from the form body, or null when the URL's query string names the field at all: the servlet
     * parameters merge the query into the body, and a token in a URL is logged, kept in history and sent on in
     * Referer headers, so it is never taken from there.
     */
    private static String formToken(HttpServletRequest request) {
        String query = request.getQueryString();
        if (query != null) {
            for (String pair : query.split("&")) {
                try {
                    if (URLDecoder.decode(pair.split("=", 2)[0], StandardCharsets.UTF_8).equals(CSRF_FIELD)) {
                        return null;
                    }
                } catch (IllegalArgumentException e) {
                    return null;
                }
            }
        }
        return request.getParameter(CSRF_FIELD);
    }

    /** The sign-in form's hidden token equals its cookie (constant time), and both are there. */
    private static boolean signInTokenMatches(HttpServletRequest request) {
        Optional<String> cookie = cookie(request, SIGN_IN_COOKIE);
        String field = formToken(request);
        return cookie.isPresent() && field != null && MessageDigest.isEqual(
                cookie.get().getBytes(StandardCharsets.UTF_8), field.getBytes(StandardCharsets.UTF_8));
    }

    static Optional<String> cookie(HttpServletRequest request, String name) {
        Cookie[] cookies = request.getCookies();
        if (cookies == null) {
            return Optional.empty();
        }
        for (Cookie cookie : cookies) {
            if (cookie.getName().equals(name)) {
                return Optional.ofNullable(cookie.getValue()).filter(value -> !value.isEmpty());
            }
        }
        return Optional.empty();
    }

    /**
     * A console cookie: HttpOnly, SameSite=Strict, on the given path, Secure when the request came over TLS.
     * {@code maxAgeSeconds} 0 deletes it, a negative value makes it last as long as the browser runs.
     */
    static String cookieHeader(HttpServletRequest request, String name, String value, String path, long maxAgeSeconds) {
        return ResponseCookie.from(name, value).httpOnly(true).sameSite("Strict").secure(request.isSecure()).path(path)
                .maxAge(maxAgeSeconds).build().toString();
    }

    /** A refusal as a small page of its own (fixed text only), with the way back. */
    private static void refuse(HttpServletResponse response, HttpStatus status, String title, String message,
                               boolean linkToSignIn) throws IOException {
        response.setStatus(status.value());
        response.setContentType(MediaType.TEXT_HTML_VALUE);
        response.setCharacterEncoding(StandardCharsets.UTF_8.name());
        String link = linkToSignIn ? "<p><a href=\"/console\">Back to the console</a></p>" : "";
        response.getWriter().write("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
                + "<title>" + HtmlUtils.htmlEscape(title) + " · Support console</title>"
                + "<link rel=\"stylesheet\" href=\"/console/assets/console.css\"></head>"
                + "<body><main class=\"page narrow\"><h1>" + HtmlUtils.htmlEscape(title) + "</h1>"
                + "<p class=\"notice error\" role=\"alert\">" + HtmlUtils.htmlEscape(message) + "</p>" + link
                + "</main></body></html>\n");
    }
}
