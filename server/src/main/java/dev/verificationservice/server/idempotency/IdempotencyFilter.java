package dev.verificationservice.server.idempotency;

import dev.verificationservice.Verification;
import dev.verificationservice.idempotency.IdempotentRequests;
import dev.verificationservice.server.errors.Problems;
import dev.verificationservice.server.errors.RequestBodyLimitFilter;
import dev.verificationservice.validation.InvalidInputException;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Set;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.ContentCachingResponseWrapper;

/**
 * {@code Idempotency-Key} on {@code POST /v1/codes} and {@code POST /v1/devices} (SPEC §13): the same key with
 * the same body within 24 hours answers the first answer again (header {@code Idempotent-Replayed: true}),
 * without a second message, count or device; the same key with another body is a 422
 * {@code IDEMPOTENCY_KEY_REUSED}; a second request while the first still runs waits for its answer, and past
 * {@link #WAIT} is a 409 {@code IDEMPOTENCY_IN_PROGRESS} with {@code Retry-After}. Only a success is kept:
 * after any other answer the key is given up, so a retry runs the request again.
 *
 * <p>Keys are scoped by the API key that sent them (its SHA-256, never the key), so two clients' keys never
 * meet. It runs after the API-key check, and reads the body itself (within the 16 KB limit) to compare it.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE + 20)
public class IdempotencyFilter extends OncePerRequestFilter {

    public static final String HEADER = "Idempotency-Key";
    public static final String REPLAYED_HEADER = "Idempotent-Replayed";
    /** Longer than a delivery may take (the SMTP and webhook timeouts are 10 s by default). */
    static final Duration WAIT = Duration.ofSeconds(15);
    /** The operations that take the header, all {@code POST}. */
    public static final Set<String> PATHS = Set.of("/v1/codes", "/v1/devices");

    private final Verification verification;

    public IdempotencyFilter(Verification verification) {
        this.verification = verification;
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        String path = request.getServletPath() + (request.getPathInfo() == null ? "" : request.getPathInfo());
        return !"POST".equals(request.getMethod()) || !PATHS.contains(path) || request.getHeader(HEADER) == null;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        byte[] body = readBody(request.getInputStream());
        if (body == null) {
            Problems.write(response, HttpStatus.CONTENT_TOO_LARGE, "BODY_TOO_LARGE",
                    "The body is larger than " + RequestBodyLimitFilter.MAX_BODY_BYTES + " bytes.");
            return;
        }
        byte[] fingerprint = (request.getMethod() + " " + request.getServletPath() + "\n" + request.getContentType()
                + "\n").getBytes(StandardCharsets.UTF_8);
        IdempotentRequests.Begin begin;
        try {
            begin = verification.idempotency().begin(scopeOf(request), request.getHeader(HEADER),
                    concat(fingerprint, body), WAIT);
        } catch (InvalidInputException e) {
            Problems.write(response, HttpStatus.BAD_REQUEST, "INVALID_INPUT", HEADER + ": " + e.getMessage(), e.field());
            return;
        }
        if (begin instanceof IdempotentRequests.Begin.Replay replay) {
            response.setStatus(replay.status());
            response.setHeader(REPLAYED_HEADER, "true");
            response.setContentType(MediaType.APPLICATION_JSON_VALUE);
            response.setCharacterEncoding(StandardCharsets.UTF_8.name());
            response.getWriter().write(replay.body());
        } else if (begin instanceof IdempotentRequests.Begin.KeyReused) {
            Problems.write(response, HttpStatus.UNPROCESSABLE_CONTENT, "IDEMPOTENCY_KEY_REUSED",
                    "This Idempotency-Key was used for another request within 24 hours; use a new key for a new request.");
        } else if (begin instanceof IdempotentRequests.Begin.StillRunning) {
            response.setHeader(HttpHeaders.RETRY_AFTER, "1");
            Problems.write(response, HttpStatus.CONFLICT, "IDEMPOTENCY_IN_PROGRESS",
                    "A request with this Idempotency-Key is still running; retry shortly with the same key.");
        } else {
            run(request, response, chain, body, ((IdempotentRequests.Begin.Proceed) begin).ticket());
        }
    }

    private void run(HttpServletRequest request, HttpServletResponse response, FilterChain chain, byte[] body,
                     IdempotentRequests.Ticket ticket) throws ServletException, IOException {
        ContentCachingResponseWrapper captured = new ContentCachingResponseWrapper(response);
        boolean kept = false;
        try {
            chain.doFilter(new CachedBodyRequest(request, body), captured);
            if (captured.getStatus() >= 200 && captured.getStatus() < 300) {
                verification.idempotency().finish(ticket, captured.getStatus(),
                        new String(captured.getContentAsByteArray(), StandardCharsets.UTF_8));
                kept = true;
            }
        } finally {
            if (!kept) {
                verification.idempotency().abandon(ticket);
            }
            captured.copyBodyToResponse();
        }
    }

    /** The API key's SHA-256 (hex, 16 characters): whose keys these are, never the key itself. */
    private static String scopeOf(HttpServletRequest request) {
        String authorization = String.valueOf(request.getHeader(HttpHeaders.AUTHORIZATION));
        try {
            byte[] hash = MessageDigest.getInstance("SHA-256").digest(authorization.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(hash, 0, 8);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The whole body, or null when it is over the limit. */
    private static byte[] readBody(InputStream in) throws IOException {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        byte[] buffer = new byte[4096];
        int read;
        while ((read = in.read(buffer)) != -1) {
            out.write(buffer, 0, read);
            if (out.size() > RequestBodyLimitFilter.MAX_BODY_BYTES) {
                return null;
            }
        }
        return out.toByteArray();
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] joined = new byte[a.length + b.length];
        System.arraycopy(a, 0, joined, 0, a.length);
        System.arraycopy(b, 0, joined, a.length, b.length);
        return joined;
    }

    /** The request with its body read already, served again to the controller. */
    private static final class CachedBodyRequest extends HttpServletRequestWrapper {
        private final byte[] body;

        CachedBodyRequest(HttpServletRequest request, byte[] body) {
            super(request);
            this.body = body;
        }

        @Override
        public ServletInputStream getInputStream() {
            ByteArrayInputStream in = new ByteArrayInputStream(body);
            return new ServletInputStream() {
                @Override
                public boolean isFinished() {
                    return in.available() == 0;
                }

                @Override
                public boolean isReady() {
                    return true;
                }

                @Override
                public void setReadListener(ReadListener listener) {
                    throw new UnsupportedOperationException("synchronous reads only");
                }

                @Override
                public int read() {
                    return in.read();
                }

                @Override
                public int read(byte[] target, int offset, int length) {
                    return in.read(target, offset, length);
                }
            };
        }

        @Override
        public int getContentLength() {
            return body.length;
        }

        @Override
        public long getContentLengthLong() {
            return body.length;
        }
    }
}
