package dev.verificationservice.server.security;

import dev.verificationservice.console.ConsoleFilter;
import dev.verificationservice.server.config.FilterOrder;
import dev.verificationservice.server.config.KeyMaterial;
import dev.verificationservice.server.errors.Problems;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.List;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * {@code Authorization: Bearer <key>} on every path but health, metrics, the API document and the web console
 * (so {@code /v1/**} and {@code /dev/**}, however their path is spelled), checked before anything reads the
 * request's body. The console ({@code /console/**}, as {@link ConsoleFilter#handles} decides) is left to its own
 * gate: it signs in with an admin key once and then uses its own session, and never accepts this filter's Bearer
 * scheme.
 *
 * <p>Two kinds of key, each with one role. An <b>application key</b> ({@code VERIFICATION_API_KEYS}) opens the
 * application API ({@code /v1/**} but {@code /v1/admin/**}, and {@code /dev/outbox}); an <b>admin key</b>
 * ({@code VERIFICATION_ADMIN_API_KEYS}) opens the operator API ({@code /v1/admin/**}) and nothing else. A key of
 * the other role is a 403 {@code FORBIDDEN} that says which key is needed; a missing or unknown key is a 401.
 * Without admin keys the operator API is off: everything under {@code /v1/admin} answers 404, whatever the key.
 *
 * <p>Several keys of each role may be valid at once (for rotation). Keys are compared by {@link AccessKeys}
 * (SHA-256 hashes in constant time, every key of both roles, no early exit). For an admin key the filter puts the key's id ({@link KeyMaterial#adminKeyId}) on the request as
 * {@link #OPERATOR_KEY_ID}, for the audit log; for an application key its id as {@link #CLIENT_KEY_ID}, which
 * scopes its Idempotency-Keys. The key itself goes no further.
 */
@Component
@Order(FilterOrder.API_KEY)
public class ApiKeyFilter extends OncePerRequestFilter {

    /** Request attribute: the id of the admin key that authenticated an operator API request. */
    public static final String OPERATOR_KEY_ID = ApiKeyFilter.class.getName() + ".operatorKeyId";
    /**
     * Request attribute: the id of the application key that authenticated an application API request
     * ({@link KeyMaterial#applicationKeyId}), what its Idempotency-Keys are scoped by.
     */
    public static final String CLIENT_KEY_ID = ApiKeyFilter.class.getName() + ".clientKeyId";
    /** The operator API's path prefix. */
    public static final String ADMIN_PREFIX = "/v1/admin";

    private static final String BEARER = "Bearer ";
    private final AccessKeys keys;

    public ApiKeyFilter(AccessKeys keys) {
        this.keys = keys;
    }

    /** Paths that need no key: health, metrics and the API document. Everything else does. */
    private static final List<String> PUBLIC_PREFIXES = List.of("/actuator/health", "/actuator/prometheus",
            "/v3/api-docs", "/swagger-ui", "/swagger-ui.html", "/error");

    /**
     * The path every decision is made on: the servlet path the container has decoded and normalised (no
     * ';params', no '%76'), the same path Spring MVC routes on. The raw request URI is not, and must never decide.
     */
    private static String normalisedPath(HttpServletRequest request) {
        return request.getServletPath() + (request.getPathInfo() == null ? "" : request.getPathInfo());
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        String path = normalisedPath(request);
        return ConsoleFilter.handles(request)
                || PUBLIC_PREFIXES.stream().anyMatch(prefix -> path.equals(prefix) || path.startsWith(prefix + "/"));
    }

    /** True for the operator API's paths, as the filter sees them. */
    static boolean isAdminPath(String path) {
        return path.equals(ADMIN_PREFIX) || path.startsWith(ADMIN_PREFIX + "/");
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        boolean adminPath = isAdminPath(normalisedPath(request));
        if (adminPath && !keys.operatorKeysConfigured()) {
            Problems.write(response, HttpStatus.NOT_FOUND, "NOT_FOUND", "The operator API is off on this server: "
                    + "no admin key is configured (VERIFICATION_ADMIN_API_KEYS).");
            return;
        }
        String header = request.getHeader(HttpHeaders.AUTHORIZATION);
        if (header == null || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            unauthorized(response, adminPath ? "Send an admin key as 'Authorization: Bearer <key>'."
                    : "Send the API key as 'Authorization: Bearer <key>'.");
            return;
        }
        AccessKeys.Match match = keys.match(header.substring(BEARER.length()).trim());
        if (match.role() == AccessKeys.Role.NONE) {
            unauthorized(response, adminPath ? "The admin key is not valid." : "The API key is not valid.");
            return;
        }
        if (adminPath && match.role() != AccessKeys.Role.ADMIN) {
            Problems.write(response, HttpStatus.FORBIDDEN, "FORBIDDEN", "This is an application key: the operator "
                    + "API under " + ADMIN_PREFIX + " needs an admin key (VERIFICATION_ADMIN_API_KEYS).");
            return;
        }
        if (!adminPath && match.role() != AccessKeys.Role.APPLICATION) {
            Problems.write(response, HttpStatus.FORBIDDEN, "FORBIDDEN", "This is an admin key: it opens only the "
                    + "operator API under " + ADMIN_PREFIX + ". The application API needs an application key "
                    + "(VERIFICATION_API_KEYS).");
            return;
        }
        request.setAttribute(adminPath ? OPERATOR_KEY_ID : CLIENT_KEY_ID, match.keyId().orElseThrow());
        chain.doFilter(request, response);
    }

    private static void unauthorized(HttpServletResponse response, String detail) throws IOException {
        response.setHeader(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"verification\"");
        Problems.write(response, HttpStatus.UNAUTHORIZED, "UNAUTHORIZED", detail);
    }
}
