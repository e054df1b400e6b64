package dev.verificationservice.server.config;

import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.codes.CodeFormat;
import dev.verificationservice.codes.CodeService;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.FailureReason;
import dev.verificationservice.devices.DeviceVerification;
import dev.verificationservice.events.WebhookSecret;
import dev.verificationservice.security.SecureTokens;
import dev.verificationservice.validation.Inputs;
import io.swagger.v3.oas.models.OpenAPI;
import io.swagger.v3.oas.models.media.IntegerSchema;
import io.swagger.v3.oas.models.media.Schema;
import io.swagger.v3.oas.models.media.StringSchema;
import io.swagger.v3.oas.models.parameters.Parameter;
import java.math.BigDecimal;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.springdoc.core.customizers.OpenApiCustomizer;

/**
 * The rules of every request field and parameter, and the shape of every answer field, written into the OpenAPI
 * document from the core's own constants and enums (so the document cannot drift from the rules): patterns,
 * lengths, bounds, enums and formats, by field name. Bodies take their enum fields as text (a wrong value is a
 * 400 naming the field), so without this the document would only say "string".
 *
 * <p>Request bodies ignore members they do not know (a client may send a newer field to an older service), so
 * their schemas do not say {@code additionalProperties: false}; an optional member may be {@code null}, which
 * reads as absent, so optional members are {@code nullable}.
 */
@SuppressWarnings("rawtypes") // swagger-models hands out raw Schema maps
final class ApiDocumentFields implements OpenApiCustomizer {

    /** The answer schemas whose {@code reason} is a code's failure reason; a device's is {@link #DEVICE_REASONS}. */
    private static final List<String> CODE_RESULTS = List.of("CheckResponse", "VerifyResponse");
    private static final List<String> DEVICE_REASONS = Arrays.stream(DeviceVerification.Reason.values())
            .map(Enum::name).toList();

    /** Rules by field (or parameter) name; each one holds in requests and in answers alike. */
    private static final Map<String, Consumer<Schema<?>>> BY_NAME = Map.ofEntries(
            Map.entry("userId", ApiDocumentFields::identifier),
            Map.entry("deviceId", ApiDocumentFields::identifier),
            Map.entry("codeType", schema -> oneOf(schema, CodeType.values())),
            Map.entry("deliveryMethod", schema -> oneOf(schema, DeliveryMethod.values())),
            Map.entry("channel", schema -> oneOf(schema, DeliveryMethod.values())),
            Map.entry("format", schema -> oneOf(schema, CodeFormat.values())),
            Map.entry("eventType", schema -> oneOf(schema, AuditEventType.values())),
            Map.entry("codeLength", schema -> schema.minimum(BigDecimal.valueOf(CodeFormat.MIN_NUMERIC_LENGTH))
                    .maximum(BigDecimal.valueOf(CodeFormat.MAX_NUMERIC_LENGTH))),
            Map.entry("deviceType", schema -> schema.pattern(anchored(Inputs.TYPE_NAME.pattern()))),
            Map.entry("code", schema -> schema.pattern("^([0-9]{" + CodeFormat.MIN_NUMERIC_LENGTH + ","
                    + CodeFormat.MAX_NUMERIC_LENGTH + "}|" + token() + ")$")),
            Map.entry("secret", schema -> schema.pattern("^" + token() + "$")),
            Map.entry("ipAddress", schema -> schema.maxLength(Inputs.MAX_IP_ADDRESS_LENGTH)
                    .description("An IPv4 or IPv6 address (IPv6 is rate-limited per /64)")),
            Map.entry("userAgent", schema -> schema.maxLength(Inputs.MAX_USER_AGENT_LENGTH)),
            Map.entry("deviceName", schema -> schema.maxLength(Inputs.MAX_DEVICE_NAME_LENGTH)),
            Map.entry("pushToken", schema -> schema.maxLength(Inputs.MAX_PUSH_TOKEN_LENGTH)),
            Map.entry("deliveryTarget", schema -> schema.minLength(1).maxLength(254)
                    .description("An email address (EMAIL) or an E.164 phone number such as +447700900123 (SMS)")),
            Map.entry("locale", schema -> schema.maxLength(Requests.MAX_LOCALE_LENGTH)),
            Map.entry("context", schema -> schema.maxLength(CodeService.MAX_CONTEXT_LENGTH)),
            Map.entry("count", schema -> schema.minimum(BigDecimal.ZERO)),
            Map.entry("revoked", schema -> schema.minimum(BigDecimal.ZERO)),
            Map.entry("invalidated", schema -> schema.minimum(BigDecimal.ZERO)),
            Map.entry("windowsCleared", schema -> schema.minimum(BigDecimal.ZERO)),
            Map.entry("factorId", schema -> schema.pattern("^[0-9a-f]{24}$")),
            Map.entry("removed", schema -> schema.minimum(BigDecimal.ZERO)),
            Map.entry("remaining", schema -> schema.minimum(BigDecimal.ZERO)));

    /** Answer fields that hold an instant ({@code 2026-11-30T10:15:00.000Z}); requests take instants as query only. */
    private static final List<String> INSTANTS = List.of("expiresAt", "createdAt", "lastActiveAt", "timestamp",
            "windowStart", "resetsAt", "sentAt", "lastUsedAt", "issuedAt");

    /** The rate-limit actions an operator may lift ({@code OperatorService#userActions}). */
    private final List<String> actions;

    ApiDocumentFields(List<String> actions) {
        this.actions = List.copyOf(actions);
    }

    @Override
    public void customise(OpenAPI openApi) {
        openApi.getComponents().getSchemas().forEach(ApiDocumentFields::describe);
        openApi.getPaths().forEach((path, item) -> item.readOperations().forEach(operation -> {
            if (operation.getParameters() != null) {
                operation.getParameters().forEach(parameter -> describe(path, parameter));
            }
        }));
    }

    private static void describe(String name, Schema<?> schema) {
        Map<String, Schema> properties = schema.getProperties();
        if (properties == null || name.equals(OpenApiConfiguration.PROBLEM)) {
            return;
        }
        properties.forEach((field, property) -> describeField(field, property));
        if (CODE_RESULTS.contains(name)) {
            oneOf(properties.get("reason"), FailureReason.values());
        }
        if (name.equals("VerifyDeviceResponse")) {
            strings(properties.get("reason"), DEVICE_REASONS);
        }
        // An authenticator's secret is base32 and its code six digits; a recovery code may be typed any way.
        if (name.equals("TotpEnrolResponse")) {
            properties.get("secret").pattern("^[A-Z2-7]{32}$");
        }
        if (name.equals("TotpCodeBody")) {
            properties.get("code").pattern("^[0-9]{6}$");
        }
        if (name.equals("RecoveryCodeBody")) {
            properties.get("code").pattern(null);
        }
        if (name.equals("WebhookSecretResponse")) {
            properties.get("secret").pattern("^" + WebhookSecret.PREFIX + "[A-Za-z0-9+/]+={0,2}$");
        }
        if (name.endsWith("Body")) {
            List<String> required = schema.getRequired() == null ? List.of() : schema.getRequired();
            properties.forEach((field, property) -> property.setNullable(required.contains(field) ? null
                    : Boolean.TRUE));
        }
    }

    private static void describeField(String field, Schema<?> property) {
        if (property.get$ref() != null) {
            return;
        }
        Consumer<Schema<?>> rule = BY_NAME.get(field);
        if (rule != null) {
            rule.accept(property);
        }
        if (INSTANTS.contains(field)) {
            property.format("date-time");
        }
    }

    /** Path and query parameters: the same field rules, and the audit page's and the operator API's own. */
    private void describe(String path, Parameter parameter) {
        if (parameter.getSchema() == null || !"string".equals(parameter.getSchema().getType())) {
            return;
        }
        // A new schema each: springdoc shares one string schema among parameters of the same type.
        Schema<?> schema = new StringSchema();
        parameter.setSchema(schema);
        String name = parameter.getName();
        boolean audit = path.endsWith("/audit") || path.endsWith("/deliveries");
        if (audit && (name.equals("from") || name.equals("to"))) {
            schema.format("date-time").description("An ISO-8601 UTC instant such as 2026-11-30T10:00:00Z");
        } else if (audit && name.equals("limit")) {
            parameter.setSchema(new IntegerSchema().minimum(BigDecimal.ONE).maximum(BigDecimal.valueOf(100))
                    ._default(50));
        } else if (name.equals("action")) {
            strings(schema, actions);
        } else {
            describeField(name, schema); // path ids, and the outbox's ?userId= (?to= is an address: no rule)
        }
    }

    private static void identifier(Schema<?> schema) {
        schema.pattern(anchored(Inputs.IDENTIFIER.pattern())).minLength(1).maxLength(128);
    }

    private static String token() {
        return "[A-Za-z0-9_-]{" + SecureTokens.RANDOM_TOKEN_LENGTH + "}";
    }

    private static String anchored(String pattern) {
        return "^" + pattern + "$";
    }

    private static void oneOf(Schema<?> schema, Enum<?>[] values) {
        strings(schema, Arrays.stream(values).map(Enum::name).toList());
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    private static void strings(Schema schema, List<String> values) {
        if (schema != null) {
            schema.setEnum(values);
        }
    }
}
