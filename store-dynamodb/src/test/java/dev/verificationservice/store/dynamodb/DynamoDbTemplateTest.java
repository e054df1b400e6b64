package dev.verificationservice.store.dynamodb;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.services.dynamodb.model.AttributeDefinition;
import software.amazon.awssdk.services.dynamodb.model.CreateTableRequest;
import software.amazon.awssdk.services.dynamodb.model.GlobalSecondaryIndex;
import software.amazon.awssdk.services.dynamodb.model.KeySchemaElement;
import software.amazon.awssdk.services.dynamodb.model.WarmThroughput;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;
import tools.jackson.dataformat.yaml.YAMLMapper;

/**
 * The CloudFormation template ({@code deploy/verification-table.yaml}) against the two things it must not
 * drift from: the table {@code create-table} makes ({@link DynamoDbTableAdmin#createTableRequest(String)} and
 * {@link DynamoDbTableAdmin#TTL_ATTRIBUTE}, read from the code, never restated here) and the IAM statement the
 * README documents, which is the template's statement written out ({@link #readmeSnippet}): change the
 * template's actions and this test prints the README text to paste. Its warm-throughput parameters are read as
 * CloudFormation resolves them and compared with what {@code create-table} sends for the same settings.
 */
class DynamoDbTemplateTest {

    static final String TEMPLATE = "deploy/verification-table.yaml";
    /** Where the deployment guide documents the policy (docs/deployment.md, "Deploying on DynamoDB"). */
    static final String README = "docs/deployment.md";
    static final String BEGIN = "<!-- BEGIN iam-policy";
    static final String END = "<!-- END iam-policy -->";

    private static final YAMLMapper YAML = YAMLMapper.builder().build();
    private static final Path root = projectRoot();
    /** The template as parsed (also read by {@link IamActionsTest}). */
    private static final JsonNode template = readTemplate();

    private static JsonNode readTemplate() {
        try {
            return YAML.readTree(Files.readString(root.resolve(TEMPLATE)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** The directory holding the template: the module's parent when run by Maven, found upwards from elsewhere. */
    private static Path projectRoot() {
        for (Path dir = Path.of("").toAbsolutePath(); dir != null; dir = dir.getParent()) {
            if (Files.isRegularFile(dir.resolve(TEMPLATE))) {
                return dir;
            }
        }
        throw new IllegalStateException(TEMPLATE + " not found above " + Path.of("").toAbsolutePath());
    }

    private static JsonNode table() {
        return template.path("Resources").path("VerificationTable");
    }

    private static JsonNode policyStatements() {
        return template.path("Resources").path("VerificationServicePolicy").path("Properties")
                .path("PolicyDocument").path("Statement");
    }

    // ------------------------------------------------------------------------------------------- table shape

    @Test
    void theTableIsTheOneCreateTableMakes() {
        assertThat(table().path("Type").asString()).isEqualTo("AWS::DynamoDB::Table");
        assertThat(shapeDifferences(table().path("Properties"), DynamoDbTableAdmin.createTableRequest("any")))
                .isEmpty();
    }

    @Test
    void everyDifferenceInShapeIsSeen() {
        assertDifference(properties -> at(properties, "GlobalSecondaryIndexes", 0).withObjectProperty("Projection")
                .put("ProjectionType", "KEYS_ONLY"), "projection");
        assertDifference(properties -> properties.put("BillingMode", "PROVISIONED"), "billing");
        assertDifference(properties -> properties.withObjectProperty("TimeToLiveSpecification").put("AttributeName", "expiresAt"),
                "TTL");
        assertDifference(properties -> properties.withObjectProperty("TimeToLiveSpecification").put("Enabled", false), "TTL");
        assertDifference(properties -> properties.remove("TimeToLiveSpecification"), "TTL");
        assertDifference(properties -> at(properties, "KeySchema", 1).put("AttributeName", "GSI1SK"), "key schema");
        assertDifference(properties -> at(properties, "AttributeDefinitions", 0).put("AttributeType", "N"),
                "attribute definitions");
        assertDifference(properties -> at(properties, "GlobalSecondaryIndexes", 0).put("IndexName", "GSI2"),
                "index");
        assertDifference(properties -> at(at(properties, "GlobalSecondaryIndexes", 0), "KeySchema", 0)
                .put("KeyType", "RANGE"), "index GSI1 key schema");
        assertDifference(properties -> properties.withArrayProperty("GlobalSecondaryIndexes")
                .add(properties.path("GlobalSecondaryIndexes").get(0).deepCopy()), "index");
    }

    private static ObjectNode at(ObjectNode node, String array, int index) {
        return (ObjectNode) node.withArrayProperty(array).get(index);
    }

    private static void assertDifference(Consumer<ObjectNode> change, String expected) {
        ObjectNode properties = (ObjectNode) table().path("Properties").deepCopy();
        change.accept(properties);
        assertThat(shapeDifferences(properties, DynamoDbTableAdmin.createTableRequest("any")))
                .as("after a change that should show as '%s'", expected)
                .anySatisfy(difference -> assertThat(difference).contains(expected));
    }

    /** Every way the template's table properties differ from the CreateTable request, as the checked parts. */
    static List<String> shapeDifferences(JsonNode properties, CreateTableRequest expected) {
        List<String> differences = new ArrayList<>();
        if (!expected.billingModeAsString().equals(properties.path("BillingMode").asString(null))) {
            differences.add("billing mode is " + properties.path("BillingMode").asString(null) + " instead of "
                    + expected.billingModeAsString());
        }
        Set<String> expectedAttributes = expected.attributeDefinitions().stream()
                .map(DynamoDbTemplateTest::attribute).collect(Collectors.toCollection(LinkedHashSet::new));
        Set<String> actualAttributes = new LinkedHashSet<>();
        properties.path("AttributeDefinitions").forEach(definition -> actualAttributes.add(
                definition.path("AttributeName").asString(null) + ":" + definition.path("AttributeType").asString(null)));
        if (!expectedAttributes.equals(actualAttributes)) {
            differences.add("attribute definitions are " + actualAttributes + " instead of " + expectedAttributes);
        }
        compareKeys("key schema", properties.path("KeySchema"), expected.keySchema(), differences);

        Map<String, JsonNode> actualIndexes = new LinkedHashMap<>();
        properties.path("GlobalSecondaryIndexes").forEach(index -> {
            if (actualIndexes.put(index.path("IndexName").asString(null), index) != null) {
                differences.add("index " + index.path("IndexName").asString(null) + " is declared twice");
            }
        });
        Set<String> expectedNames = expected.globalSecondaryIndexes().stream().map(GlobalSecondaryIndex::indexName)
                .collect(Collectors.toCollection(LinkedHashSet::new));
        if (!expectedNames.equals(actualIndexes.keySet())) {
            differences.add("global secondary indexes are " + actualIndexes.keySet() + " instead of " + expectedNames);
        }
        for (GlobalSecondaryIndex index : expected.globalSecondaryIndexes()) {
            JsonNode actual = actualIndexes.get(index.indexName());
            if (actual == null) {
                continue;
            }
            compareKeys("index " + index.indexName() + " key schema", actual.path("KeySchema"), index.keySchema(),
                    differences);
            String projection = actual.path("Projection").path("ProjectionType").asString(null);
            if (!index.projection().projectionTypeAsString().equals(projection)) {
                differences.add("index " + index.indexName() + " projection is " + projection + " instead of "
                        + index.projection().projectionTypeAsString());
            }
            if (actual.has("ProvisionedThroughput")) {
                differences.add("index " + index.indexName() + " has provisioned throughput on an on-demand table");
            }
        }

        JsonNode ttl = properties.path("TimeToLiveSpecification");
        if (!DynamoDbTableAdmin.TTL_ATTRIBUTE.equals(ttl.path("AttributeName").asString(null))
                || !ttl.path("Enabled").isBoolean() || !ttl.path("Enabled").booleanValue()) {
            differences.add("TTL is " + ttl + " instead of enabled on '" + DynamoDbTableAdmin.TTL_ATTRIBUTE + "'");
        }
        return differences;
    }

    private static void compareKeys(String what, JsonNode actual, List<KeySchemaElement> expected,
                                    List<String> differences) {
        List<String> expectedKeys = expected.stream()
                .map(key -> key.attributeName() + ":" + key.keyTypeAsString()).toList();
        List<String> actualKeys = new ArrayList<>();
        actual.forEach(key -> actualKeys.add(key.path("AttributeName").asString(null) + ":"
                + key.path("KeyType").asString(null)));
        if (!expectedKeys.equals(actualKeys)) {
            differences.add(what + " is " + actualKeys + " instead of " + expectedKeys);
        }
    }

    private static String attribute(AttributeDefinition definition) {
        return definition.attributeName() + ":" + definition.attributeTypeAsString();
    }

    // ------------------------------------------------------------------------------------------ warm throughput

    /**
     * The template resolved for each way its two warm-throughput parameters can be set carries what create-table
     * sends for the same settings, on the table and on every index; by default, nothing at all.
     */
    @Test
    void warmThroughputParametersResolveToWhatCreateTableSends() {
        assertThat(template.path("Parameters").path("WarmWriteUnits").path("Default").asString(null)).isEmpty();
        assertThat(template.path("Parameters").path("WarmReadUnits").path("Default").asString(null)).isEmpty();
        Long[][] settings = {{null, null}, {20_000L, null}, {null, 40_000L}, {20_000L, 40_000L}};
        for (Long[] setting : settings) {
            Map<String, String> parameters = new LinkedHashMap<>();
            template.path("Parameters").properties().forEach(parameter -> parameters.put(parameter.getKey(),
                    parameter.getValue().path("Default").asString()));
            parameters.put("WarmWriteUnits", setting[0] == null ? "" : setting[0].toString());
            parameters.put("WarmReadUnits", setting[1] == null ? "" : setting[1].toString());
            JsonNode properties = resolve(table().path("Properties"), parameters);
            CreateTableRequest expected = DynamoDbTableAdmin.createTableRequest("any",
                    DynamoDbTableAdmin.warmThroughput(setting[0], setting[1]));
            assertThat(warm(properties)).as("the table with %s", parameters).isEqualTo(warm(expected.warmThroughput()));
            Map<String, JsonNode> indexes = new LinkedHashMap<>();
            properties.path("GlobalSecondaryIndexes").forEach(index -> indexes.put(index.path("IndexName").asString(), index));
            for (GlobalSecondaryIndex index : expected.globalSecondaryIndexes()) {
                assertThat(warm(indexes.get(index.indexName()))).as("index %s with %s", index.indexName(), parameters)
                        .isEqualTo(warm(index.warmThroughput()));
            }
        }
    }

    private static String warm(JsonNode resource) {
        JsonNode warm = resource.path("WarmThroughput");
        return warm.isMissingNode() ? null : "write " + warm.path("WriteUnitsPerSecond").asString(null) + ", read "
                + warm.path("ReadUnitsPerSecond").asString(null);
    }

    private static String warm(WarmThroughput warm) {
        return warm == null ? null : "write " + warm.writeUnitsPerSecond() + ", read " + warm.readUnitsPerSecond();
    }

    /** The node as CloudFormation reads it for these parameters: each Fn::If chosen, each Ref to a parameter replaced, AWS::NoValue dropped. */
    private static JsonNode resolve(JsonNode node, Map<String, String> parameters) {
        if (node.isObject() && node.size() == 1 && node.has("Ref")) {
            String name = node.path("Ref").asString();
            return name.equals("AWS::NoValue") ? null
                    : parameters.containsKey(name) ? YAML.getNodeFactory().stringNode(parameters.get(name)) : node;
        }
        if (node.isObject() && node.size() == 1 && node.has("Fn::If")) {
            JsonNode choice = node.path("Fn::If");
            return resolve(choice.get(condition(template.path("Conditions").path(choice.get(0).asString()), parameters)
                    ? 1 : 2), parameters);
        }
        if (node.isObject()) {
            ObjectNode copy = YAML.createObjectNode();
            node.properties().forEach(field -> {
                JsonNode value = resolve(field.getValue(), parameters);
                if (value != null) {
                    copy.set(field.getKey(), value);
                }
            });
            return copy;
        }
        if (node.isArray()) {
            ArrayNode copy = YAML.createArrayNode();
            node.forEach(element -> {
                JsonNode value = resolve(element, parameters);
                if (value != null) {
                    copy.add(value);
                }
            });
            return copy;
        }
        return node;
    }

    private static boolean condition(JsonNode condition, Map<String, String> parameters) {
        if (condition.has("Fn::Not")) {
            return !condition(condition.path("Fn::Not").get(0), parameters);
        }
        if (condition.has("Fn::Equals")) {
            JsonNode operands = condition.path("Fn::Equals");
            return resolve(operands.get(0), parameters).asString().equals(resolve(operands.get(1), parameters).asString());
        }
        throw new IllegalArgumentException("a condition this test does not read: " + condition);
    }

    // --------------------------------------------------------------------------------- production settings

    @Test
    void theTableHasRecoveryDeletionProtectionEncryptionAndANamedParameter() {
        JsonNode properties = table().path("Properties");
        assertThat(properties.path("TableName").path("Ref").asString(null)).isEqualTo("TableName");
        assertThat(template.path("Parameters").path("TableName").path("Default").asString(null)).isNotBlank();
        assertThat(properties.path("PointInTimeRecoverySpecification").path("PointInTimeRecoveryEnabled")
                .booleanValue()).isTrue();
        assertThat(properties.path("DeletionProtectionEnabled").booleanValue()).isTrue();
        assertThat(table().path("DeletionPolicy").asString(null)).isEqualTo("Retain");

        // An AWS owned key unless a KMS key ARN is given, then SSE with that key.
        assertThat(template.path("Parameters").path("KmsKeyArn").path("Default").asString(null)).isEmpty();
        JsonNode condition = template.path("Conditions").path("UseKmsKey");
        assertThat(condition.toString()).contains("Fn::Not", "Fn::Equals", "KmsKeyArn");
        JsonNode choice = properties.path("SSESpecification").path("Fn::If");
        assertThat(choice.get(0).asString()).isEqualTo("UseKmsKey");
        assertThat(choice.get(1).path("SSEEnabled").booleanValue()).isTrue();
        assertThat(choice.get(1).path("SSEType").asString(null)).isEqualTo("KMS");
        assertThat(choice.get(1).path("KMSMasterKeyId").path("Ref").asString(null)).isEqualTo("KmsKeyArn");
        assertThat(choice.get(2).path("SSEEnabled").isBoolean()).isTrue();
        assertThat(choice.get(2).path("SSEEnabled").booleanValue()).as("AWS owned key").isFalse();
    }

    @Test
    void theOutputsNameTheTableAndThePolicy() {
        JsonNode outputs = template.path("Outputs");
        assertThat(outputs.path("TableName").path("Value").path("Ref").asString(null)).isEqualTo("VerificationTable");
        assertThat(outputs.path("TableArn").path("Value").path("Fn::GetAtt").toString())
                .isEqualTo("[\"VerificationTable\",\"Arn\"]");
        assertThat(outputs.path("ServicePolicyArn").path("Value").path("Ref").asString(null))
                .isEqualTo("VerificationServicePolicy");
        assertThat(template.path("Resources").path("VerificationServicePolicy").path("Type").asString(null))
                .isEqualTo("AWS::IAM::ManagedPolicy");
    }

    // -------------------------------------------------------------------------------------------------- IAM

    /** The unconditional statement: the service's actions on the table and every index of it. */
    static JsonNode tableStatement() {
        List<JsonNode> statements = new ArrayList<>();
        policyStatements().forEach(statement -> {
            if (!statement.has("Fn::If")) {
                statements.add(statement);
            }
        });
        assertThat(statements).as("one unconditional statement").hasSize(1);
        return statements.get(0);
    }

    /** The service's DynamoDB actions, as the template grants them. */
    static List<String> templateActions() {
        List<String> actions = new ArrayList<>();
        tableStatement().path("Action").forEach(action -> actions.add(action.asString()));
        return actions;
    }

    @Test
    void thePolicyGrantsTheTableAndEachOfItsIndexes() {
        JsonNode statement = tableStatement();
        assertThat(statement.path("Effect").asString(null)).isEqualTo("Allow");
        assertThat(templateActions()).doesNotHaveDuplicates().allSatisfy(action -> assertThat(action)
                .startsWith("dynamodb:"));
        List<String> resources = new ArrayList<>();
        statement.path("Resource").forEach(resource -> resources.add(resource.toString()));
        List<String> expected = new ArrayList<>(List.of("{\"Fn::GetAtt\":[\"VerificationTable\",\"Arn\"]}"));
        DynamoDbTableAdmin.createTableRequest("any").globalSecondaryIndexes().forEach(index -> expected.add(
                "{\"Fn::Sub\":\"${VerificationTable.Arn}/index/" + index.indexName() + "\"}"));
        assertThat(resources).containsExactlyElementsOf(expected);
    }

    @Test
    void theReadmeDocumentsExactlyTheTemplatesActions() throws IOException {
        String readme = Files.readString(root.resolve(README));
        int begin = readme.indexOf(BEGIN);
        int end = readme.indexOf(END);
        assertThat(begin).as("README marker " + BEGIN).isNotNegative();
        assertThat(end).as("README marker " + END).isGreaterThan(begin);
        String documented = readme.substring(readme.indexOf('\n', begin) + 1, end);
        String expected = readmeSnippet(templateActions());
        assertThat(documented).as("the README's IAM statement (between the iam-policy markers) must be:%n%s", expected)
                .isEqualTo(expected);
    }

    /** The README's text for the statement: the template's actions on placeholder ARNs. */
    static String readmeSnippet(List<String> actions) {
        List<String> resources = new ArrayList<>(List.of("arn:aws:dynamodb:REGION:ACCOUNT:table/TABLE"));
        DynamoDbTableAdmin.createTableRequest("TABLE").globalSecondaryIndexes().forEach(index ->
                resources.add("arn:aws:dynamodb:REGION:ACCOUNT:table/TABLE/index/" + index.indexName()));
        return "```json\n{\n  \"Effect\": \"Allow\",\n  \"Action\": [\n" + quotedLines(actions)
                + "  ],\n  \"Resource\": [\n" + quotedLines(resources) + "  ]\n}\n```\n";
    }

    private static String quotedLines(List<String> values) {
        return values.stream().map(value -> "    \"" + value + "\"").collect(Collectors.joining(",\n")) + "\n";
    }

    @Test
    void snsPublishAndTheKmsKeyAreOptionalParts() {
        List<JsonNode> conditional = new ArrayList<>();
        policyStatements().forEach(statement -> {
            if (statement.has("Fn::If")) {
                conditional.add(statement.path("Fn::If"));
            }
        });
        JsonNode sns = conditional.stream().filter(choice -> choice.get(0).asString().equals("AllowSns")).findFirst()
                .orElseThrow();
        assertThat(sns.get(1).path("Action").toString()).isEqualTo("[\"sns:Publish\"]");
        assertThat(sns.get(1).path("Resource").asString(null)).isEqualTo("*");
        assertThat(sns.get(2).path("Ref").asString(null)).isEqualTo("AWS::NoValue");
        assertThat(template.path("Parameters").path("AllowSnsPublish").path("Default").asString(null))
                .isEqualTo("false");
        assertThat(template.path("Conditions").path("AllowSns").toString()).contains("AllowSnsPublish", "true");

        JsonNode kms = conditional.stream().filter(choice -> choice.get(0).asString().equals("UseKmsKey")).findFirst()
                .orElseThrow();
        assertThat(kms.get(1).path("Resource").path("Ref").asString(null)).isEqualTo("KmsKeyArn");
        assertThat(kms.get(1).path("Condition").toString()).contains("kms:ViaService", "dynamodb.${AWS::Region}");
        assertThat(kms.get(2).path("Ref").asString(null)).isEqualTo("AWS::NoValue");
        assertThat(conditional).hasSize(2);
        assertThat(policyStatements().size()).isEqualTo(3);
    }

    /** Guards the README check itself: another action list renders to other text. */
    @Test
    void theReadmeSnippetFollowsTheList() {
        List<String> more = new ArrayList<>(templateActions());
        more.add("dynamodb:Scan");
        assertThat(readmeSnippet(more)).isNotEqualTo(readmeSnippet(templateActions())).contains("\"dynamodb:Scan\"");
        assertThat(readmeSnippet(templateActions())).contains("/index/GSI1\"");
    }
}
