package dev.verificationservice.server.config;

import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import io.swagger.v3.oas.models.security.SecurityScheme;
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
                                + "Every /v1 call needs 'Authorization: Bearer <api key>'. Errors are RFC 9457 "
                                + "problem details with a stable 'code' and, for bad input, the 'field' at fault."))
                .components(new Components().addSecuritySchemes("apiKey",
                        new SecurityScheme().type(SecurityScheme.Type.HTTP).scheme("bearer")))
                .addSecurityItem(new SecurityRequirement().addList("apiKey"));
    }
}
