package dev.verificationservice.server.config;

import io.swagger.v3.oas.models.Components;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.info.Info;
import io.swagger.v3.oas.models.security.SecurityRequirement;
import io.swagger.v3.oas.models.security.SecurityScheme;
import io.swagger.v3.oas.models.media.Content;
import io.swagger.v3.oas.models.media.IntegerSchema;
import io.swagger.v3.oas.models.media.MediaType;
import io.swagger.v3.oas.models.media.ObjectSchema;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.responses.ApiResponse;
import java.util.Map;
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
                                + "Every /v1 call needs 'Authorization: Bearer <key>': an application key "
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

    /** Every operation can answer these problems; the document says so, with the problem's shape. */
    @Bean
    public OpenApiCustomizer problemResponses() {
        return openApi -> {
            openApi.getComponents().addSchemas("Problem", new ObjectSchema()
                    .description("RFC 9457 problem details")
                    .addProperty("type", new StringSchema())
                    .addProperty("title", new StringSchema())
                    .addProperty("status", new IntegerSchema())
                    .addProperty("detail", new StringSchema())
                    .addProperty("code", new StringSchema().description("stable, machine-readable"))
                    .addProperty("field", new StringSchema().description("the request field at fault, for INVALID_INPUT")));
            Content problem = new Content().addMediaType("application/problem+json",
                    new MediaType().schema(new Schema<>().$ref("#/components/schemas/Problem")));
            Map<String, String> common = Map.of(
                    "400", "INVALID_INPUT (with field), MALFORMED_JSON or MALFORMED_QUERY",
                    "401", "UNAUTHORIZED: missing or invalid API key",
                    "403", "FORBIDDEN: a key of the other kind (an admin key on the application API, or an "
                            + "application key on the operator API)",
                    "413", "BODY_TOO_LARGE: over 16 KB",
                    "503", "STORE_UNAVAILABLE: retry after the Retry-After seconds");
            openApi.getPaths().forEach((path, item) -> item.readOperations().forEach(operation -> {
                common.forEach((status, description) -> operation.getResponses()
                        .putIfAbsent(status, new ApiResponse().description(description).content(problem)));
                if (path.startsWith("/v1/admin/")) {
                    operation.getResponses().putIfAbsent("404", new ApiResponse()
                            .description("NOT_FOUND: the operator API is off (no admin key configured)").content(problem));
                }
                if (path.equals("/v1/codes") && operation.getOperationId() != null
                        && operation.getOperationId().startsWith("send")) {
                    operation.getResponses().addApiResponse("429", new ApiResponse()
                            .description("RATE_LIMITED, with a Retry-After header").content(problem));
                    operation.getResponses().addApiResponse("502", new ApiResponse()
                            .description("DELIVERY_FAILED: the code was invalidated").content(problem));
                }
            }));
        };
    }
}
