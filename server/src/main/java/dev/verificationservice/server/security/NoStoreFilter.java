package dev.verificationservice.server.security;

import dev.verificationservice.server.config.FilterOrder;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * {@code Cache-Control: no-store} and {@code Pragma: no-cache} on every answer, set before anything else runs,
 * so that refusals written by later filters carry them too. Some answers hold a secret or a live code (a device
 * secret from {@code POST /v1/devices}, codes in {@code GET /dev/outbox}, a user's state in the operator API);
 * none of the service's answers is worth keeping in a browser, proxy or CDN cache, so the rule has no exception
 * to get wrong.
 */
@Component
@Order(FilterOrder.NO_STORE)
public class NoStoreFilter extends OncePerRequestFilter {

    public static final String NO_STORE = "no-store";

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        response.setHeader(HttpHeaders.CACHE_CONTROL, NO_STORE);
        response.setHeader(HttpHeaders.PRAGMA, "no-cache");
        chain.doFilter(request, response);
    }

    @Override
    protected boolean shouldNotFilterErrorDispatch() {
        return false;
    }
}
