package dev.verificationservice.server.errors;

import dev.verificationservice.server.config.FilterOrder;
import dev.verificationservice.spring.logging.RefusalLog;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.util.Set;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Around everything else: counts every 4xx answer in the {@link RefusalLog}, whichever filter, controller or
 * error page wrote it, and turns a failure that escapes the chain into a 500 problem logged through the same
 * log (the container would log a stack trace per request). So no request, with a key or without, makes a log
 * line of its own.
 */
@Component
@Order(FilterOrder.REFUSAL_LOG)
public class RefusalLogFilter extends OncePerRequestFilter {

    /** The areas a refusal is counted under: the first path segment when it is one of these, else "other". */
    private static final Set<String> AREAS = Set.of("v1", "dev", "console", "actuator", "v3", "swagger-ui", "error");

    private final RefusalLog log;

    public RefusalLogFilter(RefusalLog log) {
        this.log = log;
    }

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        try {
            chain.doFilter(request, response);
        } catch (RuntimeException | ServletException e) {
            log.failed(e);
            if (!response.isCommitted()) {
                response.resetBuffer();
                Problems.write(response, HttpStatus.INTERNAL_SERVER_ERROR, "INTERNAL_ERROR",
                        "An unexpected error occurred; it has been logged.");
            }
            return;
        }
        int status = response.getStatus();
        if (status >= 400 && status < 500) {
            log.refused(status + " " + areaOf(request));
        }
    }

    /** A fixed word, never text of the request: nothing a client sends reaches the log. */
    private static String areaOf(HttpServletRequest request) {
        String path = request.getServletPath() + (request.getPathInfo() == null ? "" : request.getPathInfo());
        int end = path.indexOf('/', 1);
        String first = end < 0 ? path.substring(Math.min(1, path.length())) : path.substring(1, end);
        String area = first.endsWith(".html") ? first.substring(0, first.length() - ".html".length()) : first;
        return "/" + (AREAS.contains(area) ? area : "other");
    }
}
