package dev.verificationservice.server.errors;

import dev.verificationservice.server.config.FilterOrder;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ReadListener;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Refuses bodies over 16 KB with 413: at once when Content-Length says so, and while reading when a
 * chunked body grows past the limit. No request of this API needs more. It runs after the API key filter:
 * a request without a valid key is a 401 whatever its body, and nothing of the body is read for it; and before
 * the Idempotency-Key filter, which reads the body through this one's limit.
 */
@Component
@Order(FilterOrder.BODY_LIMIT)
public class RequestBodyLimitFilter extends OncePerRequestFilter {

    public static final int MAX_BODY_BYTES = 16 * 1024;
    static final String TOO_LARGE_DETAIL = "The body is larger than " + MAX_BODY_BYTES + " bytes.";

    /** Thrown by the counting stream; found again in the cause chain by the exception handler. */
    static final class BodyTooLargeException extends IOException {
        BodyTooLargeException() {
            super("request body over " + MAX_BODY_BYTES + " bytes");
        }
    }

    /** True when the failure comes from reading past the limit: a 413, however deep the reading was. */
    public static boolean isTooLarge(Throwable failure) {
        for (Throwable cause = failure; cause != null; cause = cause.getCause()) {
            if (cause instanceof BodyTooLargeException) {
                return true;
            }
        }
        return false;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (request.getContentLengthLong() > MAX_BODY_BYTES) {
            refuse(response);
            return;
        }
        chain.doFilter(new LimitedRequest(request), response);
    }

    /** The 413 answer, for a filter that met the limit while it read the body. */
    public static void refuse(HttpServletResponse response) throws IOException {
        Problems.write(response, HttpStatus.CONTENT_TOO_LARGE, "BODY_TOO_LARGE", TOO_LARGE_DETAIL);
    }

    private static final class LimitedRequest extends HttpServletRequestWrapper {
        private ServletInputStream limited;

        LimitedRequest(HttpServletRequest request) {
            super(request);
        }

        @Override
        public ServletInputStream getInputStream() throws IOException {
            if (limited == null) {
                limited = new LimitedInputStream(super.getInputStream());
            }
            return limited;
        }
    }

    private static final class LimitedInputStream extends ServletInputStream {
        private final ServletInputStream delegate;
        private long read;

        LimitedInputStream(ServletInputStream delegate) {
            this.delegate = delegate;
        }

        @Override
        public int read() throws IOException {
            int value = delegate.read();
            if (value >= 0) {
                count(1);
            }
            return value;
        }

        @Override
        public int read(byte[] buffer, int offset, int length) throws IOException {
            int count = delegate.read(buffer, offset, length);
            if (count > 0) {
                count(count);
            }
            return count;
        }

        private void count(int bytes) throws BodyTooLargeException {
            read += bytes;
            if (read > MAX_BODY_BYTES) {
                throw new BodyTooLargeException();
            }
        }

        @Override
        public boolean isFinished() {
            return delegate.isFinished();
        }

        @Override
        public boolean isReady() {
            return delegate.isReady();
        }

        @Override
        public void setReadListener(ReadListener listener) {
            delegate.setReadListener(listener);
        }
    }
}
