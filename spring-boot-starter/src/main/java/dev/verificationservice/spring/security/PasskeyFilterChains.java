package dev.verificationservice.spring.security;

import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.BeanPostProcessor;
import org.springframework.security.web.DefaultSecurityFilterChain;
import org.springframework.security.web.webauthn.authentication.PublicKeyCredentialRequestOptionsFilter;
import org.springframework.security.web.webauthn.authentication.PublicKeyCredentialRequestOptionsRepository;
import org.springframework.security.web.webauthn.authentication.WebAuthnAuthenticationFilter;
import org.springframework.security.web.webauthn.registration.PublicKeyCredentialCreationOptionsFilter;
import org.springframework.security.web.webauthn.registration.WebAuthnRegistrationFilter;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Finishes what {@code webAuthn()} leaves to the session in every filter chain the application builds. Spring
 * Security 7.0 looks up the creation-options repository as a bean but not the request-options one: its two sign-in
 * filters are given the store's here. And a registration the core refuses ({@link PasskeyRefused}: at options or
 * at the response) is answered with 400 and a problem document naming the field, where it would otherwise leave
 * Spring's filter as a 500.
 */
final class PasskeyFilterChains implements BeanPostProcessor {

    private final ObjectProvider<PublicKeyCredentialRequestOptionsRepository> requestOptions;

    PasskeyFilterChains(ObjectProvider<PublicKeyCredentialRequestOptionsRepository> requestOptions) {
        this.requestOptions = requestOptions;
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        if (bean instanceof DefaultSecurityFilterChain chain) {
            List<Filter> filters = chain.getFilters();
            for (int i = 0; i < filters.size(); i++) {
                Filter filter = filters.get(i);
                if (filter instanceof PublicKeyCredentialRequestOptionsFilter options) {
                    options.setRequestOptionsRepository(requestOptions.getObject());
                } else if (filter instanceof WebAuthnAuthenticationFilter signIn) {
                    signIn.setRequestOptionsRepository(requestOptions.getObject());
                } else if ((filter instanceof WebAuthnRegistrationFilter
                        || filter instanceof PublicKeyCredentialCreationOptionsFilter)
                        && !(i > 0 && filters.get(i - 1) instanceof RefusalsAnswered)) {
                    filters.add(i, new RefusalsAnswered());
                    i++;
                }
            }
        }
        return bean;
    }

    /** Answers a {@link PasskeyRefused} from the filters after it with its status and a problem document. */
    static final class RefusalsAnswered extends OncePerRequestFilter {
        @Override
        protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
                throws ServletException, IOException {
            try {
                chain.doFilter(request, response);
            } catch (PasskeyRefused refused) {
                if (response.isCommitted()) {
                    throw refused;
                }
                response.resetBuffer();
                response.setStatus(refused.status());
                response.setContentType("application/problem+json");
                response.setCharacterEncoding(StandardCharsets.UTF_8.name());
                Map<String, Object> problem = new LinkedHashMap<>();
                problem.put("type", "about:blank");
                problem.put("title", "Passkey not registered");
                problem.put("status", refused.status());
                problem.put("field", refused.field());
                problem.put("detail", refused.getMessage());
                response.getWriter().write(SpringPasskeys.json(problem));
            }
        }
    }
}
