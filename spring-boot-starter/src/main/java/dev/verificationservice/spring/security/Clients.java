package dev.verificationservice.spring.security;

import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.validation.InvalidInputException;
import jakarta.servlet.http.HttpServletRequest;
import org.springframework.web.context.request.RequestContextHolder;
import org.springframework.web.context.request.ServletRequestAttributes;

/**
 * The client of a request as the core counts and audits it: its address (the per-IP limit) and user agent. The
 * address is the servlet container's; behind a proxy the application turns on Spring Boot's forwarded-header
 * handling ({@code server.forward-headers-strategy}) so that it is the person's.
 */
final class Clients {

    private Clients() {
    }

    static ClientContext of(HttpServletRequest request) {
        try {
            return ClientContext.of(request.getRemoteAddr(), request.getHeader("User-Agent"), null);
        } catch (InvalidInputException e) {
            // A user agent the core refuses to record (too long) must not stop a login: the address alone counts.
            return ClientContext.of(request.getRemoteAddr(), null, null);
        }
    }

    /** The client of the request this thread serves, if it serves one. */
    static ClientContext current() {
        return RequestContextHolder.getRequestAttributes() instanceof ServletRequestAttributes attributes
                ? of(attributes.getRequest()) : ClientContext.none();
    }
}
