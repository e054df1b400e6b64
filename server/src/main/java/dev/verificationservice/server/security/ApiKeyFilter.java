package dev.verificationservice.server.security;

import dev.verificationservice.server.config.KeyMaterial;
import dev.verificationservice.server.errors.Problems;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.List;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * {@code Authorization: Bearer <api key>} on every path but health, metrics and the API document (so
 * {@code /v1/**} and {@code /dev/**}, however their path is spelled). Several keys may be valid
 * at once (for rotation). The presented key is compared with every configured key, each as a SHA-256 hash
 * with {@link MessageDigest#isEqual}, so neither the length nor the content of a key leaks through timing.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE + 10)
public class ApiKeyFilter extends OncePerRequestFilter {

    private static final String BEARER = "Bearer ";
    private final List<byte[]> keyHashes;

    public ApiKeyFilter(KeyMaterial keys) {
        this.keyHashes = keys.apiKeys().stream().map(ApiKeyFilter::sha256).toList();
    }

    /** Paths that need no key: health, metrics and the API document. Everything else does. */
    private static final List<String> PUBLIC_PREFIXES = List.of("/actuator/health", "/actuator/prometheus",
            "/v3/api-docs", "/swagger-ui", "/swagger-ui.html", "/error");

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        // The servlet path is decoded and normalised by the container (no ';params', no '%76'), the same path
        // Spring MVC routes on; the raw request URI is not, and must never decide.
        String path = request.getServletPath() + (request.getPathInfo() == null ? "" : request.getPathInfo());
        return PUBLIC_PREFIXES.stream().anyMatch(prefix -> path.equals(prefix) || path.startsWith(prefix + "/")
                || (prefix.endsWith(".html") && path.equals(prefix)));
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        String header = request.getHeader(HttpHeaders.AUTHORIZATION);
        if (header == null || !header.regionMatches(true, 0, BEARER, 0, BEARER.length())) {
            unauthorized(response, "Send the API key as 'Authorization: Bearer <key>'.");
            return;
        }
        if (!matchesAnyKey(header.substring(BEARER.length()).trim())) {
            unauthorized(response, "The API key is not valid.");
            return;
        }
        chain.doFilter(request, response);
    }

    private boolean matchesAnyKey(String presented) {
        byte[] hash = sha256(presented);
        boolean match = false;
        for (byte[] key : keyHashes) {
            // No early exit: every key is compared, whatever matched before.
            match |= MessageDigest.isEqual(hash, key);
        }
        return match;
    }

    private static void unauthorized(HttpServletResponse response, String detail) throws IOException {
        response.setHeader(HttpHeaders.WWW_AUTHENTICATE, "Bearer realm=\"verification\"");
        Problems.write(response, HttpStatus.UNAUTHORIZED, "UNAUTHORIZED", detail);
    }

    private static byte[] sha256(String value) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(value.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is not available", e);
        }
    }
}
