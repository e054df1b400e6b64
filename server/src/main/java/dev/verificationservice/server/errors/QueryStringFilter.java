package dev.verificationservice.server.errors;

import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpStatus;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * A query string the container cannot decode ({@code ?cursor=%zz}) is a 400 here, before anything reads a
 * parameter; left alone, the container's exception would surface later as a 500.
 */
@Component
@Order(Ordered.HIGHEST_PRECEDENCE + 1)
public class QueryStringFilter extends OncePerRequestFilter {

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        try {
            request.getParameterMap();
        } catch (IllegalStateException | IllegalArgumentException e) {
            Problems.write(response, HttpStatus.BAD_REQUEST, "MALFORMED_QUERY",
                    "The query string is not valid percent-encoded UTF-8.");
            return;
        }
        chain.doFilter(request, response);
    }
}
