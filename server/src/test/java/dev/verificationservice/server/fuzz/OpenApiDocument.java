package dev.verificationservice.server.fuzz;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.JsonNodeFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The service's OpenAPI 3 document, read as the fuzzer needs it: every operation with its path and query
 * parameters, its JSON request body schema and which bearer key it needs (by security scheme). {@code $ref}s are followed and
 * {@code allOf} merged, so generators only ever see plain schemas.
 */
final class OpenApiDocument {

    static final List<String> HTTP_METHODS = List.of("get", "put", "post", "delete", "options", "head", "patch", "trace");

    record Parameter(String name, String in, boolean required, JsonNode schema) {
    }

    record RequestBody(boolean required, String mediaType, JsonNode schema) {
    }

    /** {@code bearerScheme}: the name of the HTTP bearer security scheme the operation needs, or null for none. */
    record Operation(String method, String path, String id, List<Parameter> parameters, Optional<RequestBody> body,
                     String bearerScheme) {
        boolean bearer() {
            return bearerScheme != null;
        }

        List<Parameter> in(String location) {
            return parameters.stream().filter(parameter -> parameter.in().equals(location)).toList();
        }

        @Override
        public String toString() {
            return method + " " + path;
        }
    }

    private final JsonNode root;
    private final List<Operation> operations;

    OpenApiDocument(JsonNode root) {
        this.root = root;
        this.operations = readOperations();
    }

    List<Operation> operations() {
        return operations;
    }

    /** The methods the document declares for a path template. */
    Set<String> methodsOf(String path) {
        Set<String> methods = new LinkedHashSet<>();
        for (Operation operation : operations) {
            if (operation.path().equals(path)) {
                methods.add(operation.method());
            }
        }
        return methods;
    }

    private List<Operation> readOperations() {
        List<Operation> result = new ArrayList<>();
        JsonNode paths = root.path("paths");
        for (Map.Entry<String, JsonNode> pathEntry : paths.properties()) {
            JsonNode item = resolve(pathEntry.getValue());
            for (String method : HTTP_METHODS) {
                JsonNode operation = item.get(method);
                if (operation == null || !operation.isObject()) {
                    continue;
                }
                Map<String, Parameter> parameters = new LinkedHashMap<>();
                for (JsonNode source : List.of(item.path("parameters"), operation.path("parameters"))) {
                    for (JsonNode raw : source) {
                        JsonNode parameter = resolve(raw);
                        String name = parameter.path("name").asString("");
                        String in = parameter.path("in").asString("");
                        if (name.isEmpty() || !(in.equals("path") || in.equals("query"))) {
                            continue;
                        }
                        parameters.put(in + ":" + name, new Parameter(name, in,
                                in.equals("path") || parameter.path("required").asBoolean(false),
                                schema(parameter.path("schema"))));
                    }
                }
                result.add(new Operation(method.toUpperCase(Locale.ROOT), pathEntry.getKey(),
                        operation.path("operationId").asString(method + " " + pathEntry.getKey()),
                        List.copyOf(parameters.values()), requestBody(operation.path("requestBody")),
                        bearerScheme(operation)));
            }
        }
        return List.copyOf(result);
    }

    private Optional<RequestBody> requestBody(JsonNode raw) {
        if (raw.isMissingNode() || raw.isNull()) {
            return Optional.empty();
        }
        JsonNode body = resolve(raw);
        JsonNode content = body.path("content");
        String chosen = null;
        for (String mediaType : content.propertyNames()) {
            if (mediaType.equals("application/json")) {
                chosen = mediaType;
                break;
            }
            if (chosen == null && mediaType.contains("json")) {
                chosen = mediaType;
            }
        }
        if (chosen == null) {
            return Optional.empty();
        }
        return Optional.of(new RequestBody(body.path("required").asBoolean(false), chosen,
                schema(content.path(chosen).path("schema"))));
    }

    /** The HTTP bearer scheme the operation (or the document, by default) requires; null when none. */
    private String bearerScheme(JsonNode operation) {
        JsonNode requirements = operation.has("security") ? operation.get("security") : root.path("security");
        for (JsonNode requirement : requirements) {
            for (String scheme : requirement.propertyNames()) {
                JsonNode definition = resolve(root.path("components").path("securitySchemes").path(scheme));
                if (definition.path("type").asString("").equals("http")
                        && definition.path("scheme").asString("").equalsIgnoreCase("bearer")) {
                    return scheme;
                }
            }
        }
        return null;
    }

    /** A schema with every {@code $ref} followed and {@code allOf} merged, recursively for properties and items. */
    JsonNode schema(JsonNode raw) {
        return schema(raw, 0);
    }

    private JsonNode schema(JsonNode raw, int depth) {
        JsonNode node = resolve(raw);
        if (!node.isObject() || depth > 12) {
            return node.isObject() ? node : JsonNodeFactory.instance.objectNode();
        }
        ObjectNode merged = JsonNodeFactory.instance.objectNode();
        for (JsonNode part : node.path("allOf")) {
            JsonNode resolvedPart = schema(part, depth + 1);
            resolvedPart.properties().forEach(entry -> {
                if (entry.getKey().equals("properties") && merged.has("properties")) {
                    ((ObjectNode) merged.get("properties")).setAll((ObjectNode) entry.getValue().deepCopy());
                } else if (entry.getKey().equals("required") && merged.has("required")) {
                    merged.withArray("required").addAll((tools.jackson.databind.node.ArrayNode) entry.getValue());
                } else {
                    merged.set(entry.getKey(), entry.getValue().deepCopy());
                }
            });
        }
        node.properties().forEach(entry -> {
            if (!entry.getKey().equals("allOf") && !entry.getKey().equals("$ref")) {
                merged.set(entry.getKey(), entry.getValue().deepCopy());
            }
        });
        if (merged.has("properties")) {
            ObjectNode properties = JsonNodeFactory.instance.objectNode();
            merged.get("properties").properties().forEach(entry -> properties.set(entry.getKey(),
                    schema(entry.getValue(), depth + 1)));
            merged.set("properties", properties);
        }
        if (merged.has("items")) {
            merged.set("items", schema(merged.get("items"), depth + 1));
        }
        for (String alternatives : List.of("oneOf", "anyOf")) {
            if (merged.has(alternatives)) {
                tools.jackson.databind.node.ArrayNode resolved = JsonNodeFactory.instance.arrayNode();
                merged.get(alternatives).forEach(option -> resolved.add(schema(option, depth + 1)));
                merged.set(alternatives, resolved);
            }
        }
        return merged;
    }

    /** Follows local {@code $ref}s ({@code #/components/...}) until a node without one. */
    private JsonNode resolve(JsonNode node) {
        JsonNode current = node;
        for (int hops = 0; hops < 20 && current.has("$ref"); hops++) {
            String ref = current.get("$ref").asString("");
            if (!ref.startsWith("#/")) {
                return JsonNodeFactory.instance.objectNode();
            }
            JsonNode target = root;
            for (String part : ref.substring(2).split("/")) {
                target = target.path(part.replace("~1", "/").replace("~0", "~"));
            }
            current = target;
        }
        return current;
    }
}
