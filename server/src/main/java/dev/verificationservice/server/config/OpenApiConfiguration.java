package dev.verificationservice.server.config;

import dev.verificationservice.Verification;
import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import io.swagger.v3.oas.models.security.SecurityScheme;
import java.util.List;
import org.springdoc.core.customizers.OpenApiCustomizer;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The OpenAPI document ({@code /v3/api-docs}) and its page ({@code /swagger-ui/index.html}). */
@Configuration(proxyBeanMethods = false)
public class OpenApiConfiguration {

    @Bean
    public OpenAPI verificationOpenApi() {
        return new OpenAPI()
                .info(new Info().title("Verification Service").version("v1")
                        .description("One-time codes, remembered devices, a security audit log and rate limits. "
                                // No angle brackets: Swagger UI renders the text as HTML and swallowed "<key>".
                                + "Every /v1 call needs the header `Authorization: Bearer API_KEY`: an application key "
                                + "(VERIFICATION_API_KEYS) for the application API, an admin key "
                                + "(VERIFICATION_ADMIN_API_KEYS) for the operator API under /v1/admin; a key of the "
                                + "other kind is a 403 FORBIDDEN. Errors are RFC 9457 problem details with a stable "
                                + "'code' and, for bad input, the 'field' at fault."))
                .components(new Components()
                        .addSecuritySchemes("apiKey", new SecurityScheme().type(SecurityScheme.Type.HTTP).scheme("bearer")
                                .description("An application key (VERIFICATION_API_KEYS)"))
                        .addSecuritySchemes("adminKey", new SecurityScheme().type(SecurityScheme.Type.HTTP).scheme("bearer")
                                .description("An admin key (VERIFICATION_ADMIN_API_KEYS), for the operator API only")))
                .addSecurityItem(new SecurityRequirement().addList("apiKey"));
    }

    /** The name of the problem schema in the document. */
    static final String PROBLEM = "Problem";

    /** The rules of every field and parameter, from the core's constants and enums. */
    @Bean
    public OpenApiCustomizer fieldRules(Verification verification) {
        return new ApiDocumentFields(List.copyOf(verification.operator().userActions()));
    }

    /**
     * Every answer each operation can give, with the problem's shape and the headers that go with them
     * ({@code Retry-After}, {@code Idempotency-Key}, {@code Idempotent-Replayed}): a validating proxy or a
     * generated client then knows every status, not only the success.
     */
    @Bean
    public OpenApiCustomizer problemResponses() {
        return new ApiDocumentResponses();
    }
}
