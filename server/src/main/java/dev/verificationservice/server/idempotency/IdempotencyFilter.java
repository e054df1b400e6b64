package dev.verificationservice.server.idempotency;

import dev.verificationservice.Verification;
import dev.verificationservice.idempotency.IdempotentRequests;
import dev.verificationservice.server.config.FilterOrder;
import dev.verificationservice.server.errors.Problems;
import dev.verificationservice.server.errors.RequestBodyLimitFilter;
import dev.verificationservice.server.errors.StoreUnavailable;
import dev.verificationservice.server.security.ApiKeyFilter;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.validation.InvalidInputException;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.web.context.request.RequestAttributes;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.filter.OncePerRequestFilter;
import org.springframework.web.util.ContentCachingResponseWrapper;

/**
 * {@code Idempotency-Key} on {@code POST /v1/codes}, {@code /v1/devices} and the TOTP enrolment, confirmation and
 * recovery-code issue: the same key with
 * the same body within 24 hours answers the first answer again (header {@code Idempotent-Replayed: true}),
 * without a second message, count or device; the same key with another body is a 422
 * {@code IDEMPOTENCY_KEY_REUSED}; a second request while the first still runs waits for its answer, and past
 * {@link #WAIT} is a 409 {@code IDEMPOTENCY_IN_PROGRESS} with {@code Retry-After}. Only a success is kept:
 * after any other answer the key is given up, so a retry runs the request again.
 *
 * <p>Keys are scoped by the API key that authenticated the request ({@link ApiKeyFilter#CLIENT_KEY_ID}, an id
 * of the configured key, never the key), so two clients' keys never meet, and the same client's retry replays
 * however it spells its {@code Authorization} header ({@code bearer}, two spaces). It runs after the API-key
 * check and after the body limit, and reads the body through that limit to compare it: a body over 16 KB is a
 * 413, chunked or not.
 *
 * <p>A store failure at any step is a 503 {@code STORE_UNAVAILABLE} with {@code Retry-After}, as without the
 * header: the header made for retrying must not stop a client retrying. Should the store fail after the
 * request ran, the request's own answer is sent; its claim on the key is then left pending, and taken over
 * by a retry after {@link IdempotentRequests#STALE_AFTER}.
 *
 * <p>An answer that holds a secret shown once (a TOTP secret, recovery codes: its controller calls
 * {@link #answerHoldsSecretShownOnce()}) is not kept: a replay is a 409 {@code IDEMPOTENT_ANSWER_VOID}, and the
 * request is not run again. An Idempotency-Key is no secret to the proxies and clients that log it, and a kept
 * secret would outlive what it was for (a factor confirmed or removed, codes used or replaced).
 */
@Component
@Order(FilterOrder.IDEMPOTENCY)
public class IdempotencyFilter extends OncePerRequestFilter {

    public static final String HEADER = "Idempotency-Key";
    public static final String REPLAYED_HEADER = "Idempotent-Replayed";
    /** Longer than a delivery may take (the SMTP and webhook timeouts are 10 s by default). */
    static final Duration WAIT = Duration.ofSeconds(15);
    /** The operations that take the header, all {@code POST}: those that make something (a code, a secret). */
    public static final Set<String> PATHS = Set.of("/v1/codes", "/v1/devices", "/v1/users/{userId}/totp",
            "/v1/users/{userId}/totp/{factorId}/confirm", "/v1/users/{userId}/recovery-codes");
    /** {@link #PATHS} as patterns: a path parameter is one segment (the template itself matches too). */
    private static final List<Pattern> PATTERNS = PATHS.stream()
            .map(path -> Pattern.compile(path.replaceAll("\\{[^/]+}", "[^/]+"))).toList();
    /** {@link #PATHS} whose success may hold a secret shown once, so a replay may be {@code IDEMPOTENT_ANSWER_VOID}. */
    public static final Set<String> SHOWN_ONCE_PATHS = Set.of("/v1/users/{userId}/totp",
            "/v1/users/{userId}/totp/{factorId}/confirm", "/v1/users/{userId}/recovery-codes");
    private static final String SHOWN_ONCE = IdempotencyFilter.class.getName() + ".SHOWN_ONCE";
    private static final Logger LOG = LoggerFactory.getLogger(IdempotencyFilter.class);

    private final Verification verification;

    public IdempotencyFilter(Verification verification) {
        this.verification = verification;
    }

    @Override
    protected boolean shouldNotFilter(HttpServletRequest request) {
        String path = request.getServletPath() + (request.getPathInfo() == null ? "" : request.getPathInfo());
        return !"POST".equals(request.getMethod()) || !takesKey(path) || request.getHeader(HEADER) == null;
    }

    /** Whether a {@code POST} to this path (or OpenAPI path template) takes an {@code Idempotency-Key}. */
    public static boolean takesKey(String path) {
        return PATTERNS.stream().anyMatch(pattern -> pattern.matcher(path).matches());
    }

    /**
     * Called by a controller whose answer holds a secret shown once: under an Idempotency-Key that answer is not
     * kept, and a replay is refused. Only on the request thread.
     */
    public static void answerHoldsSecretShownOnce() {
        RequestContextHolder.currentRequestAttributes().setAttribute(SHOWN_ONCE, Boolean.TRUE,
                RequestAttributes.SCOPE_REQUEST);
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        byte[] body;
        try {
            body = request.getInputStream().readAllBytes();
        } catch (IOException e) {
            if (!RequestBodyLimitFilter.isTooLarge(e)) {
                throw e;
            }
            RequestBodyLimitFilter.refuse(response);
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
        } catch (StoreException e) {
            StoreUnavailable.write(response, e);
            return;
        }
        if (begin instanceof IdempotentRequests.Begin.Replay replay) {
            response.setStatus(replay.status());
            response.setHeader(REPLAYED_HEADER, "true");
            response.setContentType(MediaType.APPLICATION_JSON_VALUE);
            response.setCharacterEncoding(StandardCharsets.UTF_8.name());
            response.getWriter().write(replay.body());
        } else if (begin instanceof IdempotentRequests.Begin.ShownOnce) {
            Problems.write(response, HttpStatus.CONFLICT, "IDEMPOTENT_ANSWER_VOID",
                    "The first answer to this Idempotency-Key held a secret, which is shown once and was not kept; "
                            + "the request is not run again. Send a new request without this Idempotency-Key.");
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
        boolean succeeded = false;
        try {
            chain.doFilter(new CachedBodyRequest(request, body), captured);
            succeeded = captured.getStatus() >= 200 && captured.getStatus() < 300;
        } finally {
            settle(ticket, succeeded, Boolean.TRUE.equals(request.getAttribute(SHOWN_ONCE)), captured);
            captured.copyBodyToResponse();
        }
    }

    /**
     * Keeps a success's answer for replays, or gives the key up after any other answer. When the store fails
     * here, the request has run already: its answer stands (a 503 now would make the client send it again),
     * and the claim it leaves pending is taken over by a retry once stale.
     */
    private void settle(IdempotentRequests.Ticket ticket, boolean succeeded, boolean shownOnce,
                        ContentCachingResponseWrapper captured) {
        try {
            if (succeeded && shownOnce) {
                verification.idempotency().finishShownOnce(ticket, captured.getStatus());
            } else if (succeeded) {
                verification.idempotency().finish(ticket, captured.getStatus(),
                        new String(captured.getContentAsByteArray(), StandardCharsets.UTF_8));
            } else {
                verification.idempotency().abandon(ticket);
            }
        } catch (StoreException e) {
            LOG.warn("Store unavailable after an idempotent request ran; its Idempotency-Key claim stays pending "
                    + "until stale ({}): {}", IdempotentRequests.STALE_AFTER, e.getMessage());
        }
    }

    /** Whose keys these are: the id of the API key that authenticated the request, set by the API key filter. */
    private static String scopeOf(HttpServletRequest request) {
        if (request.getAttribute(ApiKeyFilter.CLIENT_KEY_ID) instanceof String keyId) {
            return keyId;
        }
        throw new IllegalStateException("no authenticated API key on an Idempotency-Key request: "
                + "the API key filter must run first");
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
