package dev.verificationservice.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.server.ApiClient.Answer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * Requests the service refuses or guards before any rule of the domain runs, on the embedded store (no store
 * takes part): the API key, path spellings, what the container refuses, malformed input and bodies, caching,
 * and input a person would misread. Each refusal is a problem document naming the field, and writes nothing.
 */
class HttpRequestsTest extends EmbeddedOnlyApiTest {

    @Test
    void everyV1CallNeedsAValidApiKeyAndEitherRotationKeyWorks() {
        String user = newUser();
        Answer missing = api.withKey(null).get("/v1/users/" + user + "/audit");
        assertThat(missing.status()).isEqualTo(401);
        assertThat(missing.header("WWW-Authenticate")).startsWith("Bearer");
        assertThat(missing.text("code")).isEqualTo("UNAUTHORIZED");
        assertThat(api.withKey("wrong").get("/v1/users/" + user + "/audit").status()).isEqualTo(401);
        assertThat(api.withKey(null).get("/dev/outbox").status()).isEqualTo(401);
        assertThat(api.withKey(NEXT_API_KEY).get("/v1/users/" + user + "/audit").status()).isEqualTo(200);
        assertThat(api.withKey(null).get("/actuator/health/liveness").status()).isEqualTo(200);
    }

    @Test
    void noSpellingOfAPathGetsPastTheApiKey() {
        ApiClient anonymous = api.withKey(null);
        for (String path : List.of("/dev;/outbox", "/%64ev/outbox", "/v1;/users/alice/audit", "/%761/users/alice/devices",
                "/v1/users/alice/audit;x=1", "/V1/users/alice/audit", "/v1/./users/alice/audit", "/dev/../dev/outbox")) {
            String[] answer = anonymous.raw("GET", path, "");
            assertThat(answer[0]).as(path).isIn("401", "400", "404");
            assertThat(answer[1]).as(path).doesNotContain("\"events\"", "\"messages\"");
        }
        String[] delete = anonymous.raw("DELETE", "/%761/users/alice/devices", "");
        assertThat(delete[0]).isEqualTo("401");
    }

    @Test
    void whatTheContainerRefusesIsStillAProblem() {
        String user = newUser();
        String[] badQuery = api.raw("GET", "/v1/users/" + user + "/audit?cursor=%zz", "");
        assertThat(badQuery[0]).isEqualTo("400");
        assertThat(badQuery[1]).contains("application/problem+json").contains("MALFORMED_QUERY");
        String[] publicBadQuery = api.withKey(null).raw("GET", "/actuator/health?x=%zz", "");
        assertThat(publicBadQuery[0]).isEqualTo("400");
        String[] encodedSlash = api.raw("GET", "/v1/users/a%2Fb/devices", "");
        assertThat(encodedSlash[0]).isEqualTo("400");
        assertThat(encodedSlash[1]).contains("application/problem+json").doesNotContain("<html");
        String[] trace = api.raw("TRACE", "/v1/codes", "");
        assertThat(trace[0]).isEqualTo("405");
        assertThat(trace[1]).contains("application/problem+json");
        // A form body is never parsed, so a broken one cannot break a DELETE.
        assertThat(api.send("DELETE", "/v1/users/" + user + "/devices", "application/x-www-form-urlencoded", "a=%zz")
                .status()).isEqualTo(200);
        Answer error = api.get("/error");
        assertThat(error.status()).isEqualTo(404);
        assertThat(error.text("code")).isEqualTo("NOT_FOUND");
    }

    @Test
    void malformedInputIsA4xxNamingTheFieldAndWritesNothing() {
        String user = newUser();
        record Case(String method, String path, String contentType, String body, int status, String code, String field) {
        }
        String big = "{\"userId\":\"" + "a".repeat(17_000) + "\"}";
        List<Case> cases = List.of(
                new Case("POST", "/v1/codes", "application/json", "{broken", 400, "MALFORMED_JSON", null),
                new Case("POST", "/v1/codes", "application/json", "", 400, "MALFORMED_JSON", null),
                new Case("POST", "/v1/codes", "application/json", "[1]", 400, "MALFORMED_JSON", null),
                new Case("POST", "/v1/codes", "application/json", "null", 400, "MALFORMED_JSON", null),
                new Case("POST", "/v1/codes", "application/json", "{\"userId\":{\"a\":1}}", 400, "INVALID_INPUT", "userId"),
                new Case("POST", "/v1/codes", "application/json", "{\"userId\":\"" + user + "\",\"codeType\":\"EMAIL_VERIFICATION\","
                        + "\"deliveryMethod\":\"EMAIL\",\"deliveryTarget\":\"x@example.com\",\"codeLength\":\"six\"}", 400,
                        "INVALID_INPUT", "codeLength"),
                new Case("POST", "/v1/codes", "application/json", "{\"userId\":\"" + user + "\"}", 400, "INVALID_INPUT", "codeType"),
                new Case("POST", "/v1/codes", "application/json", "{\"userId\":\"" + user + "\",\"codeType\":\"SOMETHING\"}", 400,
                        "INVALID_INPUT", "codeType"),
                // LOGIN codes are the embedding application's own (Spring Security login links): never over this API.
                new Case("POST", "/v1/codes", "application/json", "{\"userId\":\"" + user + "\",\"codeType\":\"LOGIN\","
                        + "\"deliveryMethod\":\"EMAIL\",\"deliveryTarget\":\"x@example.com\"}", 400, "INVALID_INPUT", "codeType"),
                new Case("POST", "/v1/codes/verify", "application/json", "{\"code\":\"" + "A".repeat(43)
                        + "\",\"codeType\":\"LOGIN\"}", 400, "INVALID_INPUT", "codeType"),
                new Case("POST", "/v1/codes/check", "application/json", "{\"code\":\"" + "A".repeat(43)
                        + "\",\"codeType\":\"LOGIN\"}", 400, "INVALID_INPUT", "codeType"),
                new Case("POST", "/v1/codes", "application/json", "{\"userId\":\"" + user + "\",\"codeType\":\"EMAIL_VERIFICATION\","
                        + "\"deliveryMethod\":\"PIGEON\"}", 400, "INVALID_INPUT", "deliveryMethod"),
                new Case("POST", "/v1/codes", "application/json", "{\"userId\":\"" + user + "\",\"codeType\":\"EMAIL_VERIFICATION\","
                        + "\"deliveryMethod\":\"SMS\",\"deliveryTarget\":\"+447700123456\"}", 400, "INVALID_INPUT", "deliveryMethod"),
                new Case("POST", "/v1/codes", "application/json", "{\"userId\":\"" + user + "\",\"codeType\":\"EMAIL_VERIFICATION\","
                        + "\"deliveryMethod\":\"EMAIL\",\"deliveryTarget\":\"not-an-email\"}", 400, "INVALID_INPUT", "deliveryTarget"),
                new Case("POST", "/v1/codes", "application/json", "{\"userId\":\"" + user + "\",\"codeType\":\"PHONE_VERIFICATION\","
                        + "\"deliveryMethod\":\"SMS\",\"deliveryTarget\":\"12345\"}", 400, "INVALID_INPUT", "deliveryTarget"),
                new Case("POST", "/v1/codes", "application/json", "{\"userId\":\"a#b\",\"codeType\":\"EMAIL_VERIFICATION\","
                        + "\"deliveryMethod\":\"EMAIL\",\"deliveryTarget\":\"x@example.com\"}", 400, "INVALID_INPUT", "userId"),
                new Case("POST", "/v1/codes", "application/json", "{\"userId\":\"" + user + "\",\"codeType\":\"EMAIL_VERIFICATION\","
                        + "\"deliveryMethod\":\"EMAIL\",\"deliveryTarget\":\"x@example.com\",\"ipAddress\":\"nope\"}", 400,
                        "INVALID_INPUT", "ipAddress"),
                new Case("POST", "/v1/codes", "application/json", big, 413, "BODY_TOO_LARGE", null),
                new Case("POST", "/v1/codes", "application/json", "{\"userId\":123}", 400, "INVALID_INPUT", "userId"),
                new Case("POST", "/v1/codes", "application/json", "{\"userId\":true}", 400, "INVALID_INPUT", "userId"),
                new Case("POST", "/v1/codes", "application/json", "{\"codeLength\":6.9}", 400, "INVALID_INPUT", "codeLength"),
                new Case("POST", "/v1/codes", "application/json", "{\"codeLength\":1e400}", 400, "INVALID_INPUT", "codeLength"),
                new Case("POST", "/v1/codes", "application/json", "{\"codeLength\":99999999999999999999999}", 400,
                        "INVALID_INPUT", "codeLength"),
                new Case("POST", "/v1/codes", "application/json", "{\"userId\":\"" + user + "\",\"userId\":\"other\"}", 400,
                        "MALFORMED_JSON", null),
                new Case("POST", "/v1/codes", "application/json", "{\"userId\":\"" + user + "\",\"codeType\":\"PASSWORD_RESET\","
                        + "\"deliveryMethod\":\"EMAIL\",\"deliveryTarget\":\"x@example.com\",\"codeLength\":8}", 400,
                        "INVALID_INPUT", "codeLength"),
                new Case("POST", "/v1/codes", "application/json", "{\"userId\":\"" + user + "\",\"codeType\":\"EMAIL_VERIFICATION\","
                        + "\"deliveryMethod\":\"EMAIL\",\"deliveryTarget\":\"x@example.com\",\"codeLength\":5}", 400,
                        "INVALID_INPUT", "codeLength"),
                new Case("POST", "/v1/devices", "application/json", "{\"userId\":\"" + user + "\",\"deviceId\":\"d1\","
                        + "\"deviceType\":\"WEB\",\"deviceName\":\"\\ud800x\"}", 400, "INVALID_INPUT", "deviceName"),
                new Case("POST", "/v1/codes", "text/plain", "hello", 415, "UNSUPPORTED_MEDIA_TYPE", null),
                new Case("POST", "/v1/codes/verify", "application/json", "{\"code\":\"123456\"}", 400, "INVALID_INPUT", "userId"),
                new Case("POST", "/v1/codes/verify", "application/json", "{\"code\":\"12\",\"userId\":\"" + user
                        + "\",\"codeType\":\"EMAIL_VERIFICATION\"}", 400, "INVALID_INPUT", "code"),
                new Case("POST", "/v1/codes/check", "application/json", "{}", 400, "INVALID_INPUT", "code"),
                new Case("POST", "/v1/devices", "application/json", "{\"userId\":\"" + user + "\",\"deviceId\":\"a b\","
                        + "\"deviceType\":\"WEB\"}", 400, "INVALID_INPUT", "deviceId"),
                new Case("POST", "/v1/devices", "application/json", "{\"userId\":\"" + user + "\",\"deviceId\":\"d1\"}", 400,
                        "INVALID_INPUT", "deviceType"),
                new Case("POST", "/v1/devices/verify", "application/json", "{\"deviceId\":\"d1\",\"secret\":\"short\"}", 400,
                        "INVALID_INPUT", "secret"),
                new Case("GET", "/v1/users/" + user + "/audit?limit=0", null, null, 400, "INVALID_INPUT", "limit"),
                new Case("GET", "/v1/users/" + user + "/audit?limit=x", null, null, 400, "INVALID_INPUT", "limit"),
                new Case("GET", "/v1/users/" + user + "/audit?from=yesterday", null, null, 400, "INVALID_INPUT", "from"),
                new Case("GET", "/v1/users/" + user + "/audit?cursor=%25%25", null, null, 400, "INVALID_INPUT", "cursor"),
                new Case("GET", "/v1/users/a%23b/devices", null, null, 400, "INVALID_INPUT", "userId"),
                new Case("DELETE", "/v1/users/" + user + "/devices/a%23b", null, null, 400, "INVALID_INPUT", "deviceId"),
                new Case("PUT", "/v1/codes", "application/json", "{}", 405, "METHOD_NOT_ALLOWED", null),
                new Case("GET", "/v1/codes/verify", null, null, 405, "METHOD_NOT_ALLOWED", null),
                new Case("GET", "/v1/no-such-thing", null, null, 404, "NOT_FOUND", null));

        for (Case c : cases) {
            Answer answer = api.send(c.method(), c.path(), c.contentType(), c.body());
            assertThat(answer.status()).as("%s %s %s", c.method(), c.path(), c.body() == null ? "" : c.body()
                    .substring(0, Math.min(80, c.body().length()))).isEqualTo(c.status());
            assertThat(answer.header("Content-Type")).as(c.path()).startsWith("application/problem+json");
            assertThat(answer.text("code")).as(c.path() + " " + c.body()).isEqualTo(c.code());
            assertThat(answer.text("field")).as(c.path() + " " + c.body()).isEqualTo(c.field());
        }
        // Nothing above left a trace: no audit entry, no counted request, no code.
        assertThat(auditEventTypes(user)).isEmpty();
        assertThat(api.get("/v1/users/" + user + "/rate-limits").json().get("limits"))
                .allSatisfy(limit -> assertThat(limit.get("count").asLong()).isZero());
    }

    @Test
    void aChunkedBodyOverSixteenKilobytesIsRefusedWhileItIsRead() throws Exception {
        String user = newUser();
        byte[] body = ("{\"userId\":\"" + user + "\",\"codeType\":\"EMAIL_VERIFICATION\",\"deliveryMethod\":\"EMAIL\","
                + "\"deliveryTarget\":\"jane@example.com\",\"userAgent\":\"" + "a".repeat(20_000) + "\"}")
                .getBytes(java.nio.charset.StandardCharsets.UTF_8);
        // A body of unknown length goes chunked: no Content-Length tells the service the size up front.
        java.net.http.HttpResponse<String> answer = java.net.http.HttpClient.newHttpClient().send(
                java.net.http.HttpRequest.newBuilder(java.net.URI.create("http://127.0.0.1:" + port + "/v1/codes"))
                        .header("Authorization", "Bearer " + API_KEY).header("Content-Type", "application/json")
                        .POST(java.net.http.HttpRequest.BodyPublishers.ofInputStream(
                                () -> new java.io.ByteArrayInputStream(body)))
                        .build(),
                java.net.http.HttpResponse.BodyHandlers.ofString());

        assertThat(answer.statusCode()).isEqualTo(413);
        assertThat(answer.headers().firstValue("Content-Type")).hasValueSatisfying(type ->
                assertThat(type).startsWith("application/problem+json"));
        assertThat(answer.body()).contains("BODY_TOO_LARGE");
        assertThat(api.get("/v1/users/" + user + "/audit").json().get("events")).as("nothing written").isEmpty();
    }

    @Test
    void noAnswerIsEverStoredByACache() {
        String user = newUser();
        List<Answer> answers = new ArrayList<>();
        answers.add(sendEmailCode(user));
        answers.add(api.get("/dev/outbox"));
        if (missingTransactions().isEmpty()) {
            Answer registered = api.post("/v1/devices", Map.of("userId", user, "deviceId", "d-1", "deviceType", "WEB"));
            assertThat(registered.status()).isEqualTo(201);
            answers.add(registered);
        }
        answers.add(admin().get("/v1/admin/users/" + user));
        answers.add(api.get("/v1/users/" + user + "/audit"));
        answers.add(api.withKey(null).get("/v1/users/" + user + "/audit"));
        answers.add(admin().get("/dev/outbox"));
        answers.add(api.post("/v1/codes", "{broken"));
        answers.add(api.get("/v1/no-such-thing"));
        answers.add(api.withKey(null).get("/actuator/health/readiness"));
        for (Answer answer : answers) {
            assertThat(answer.header("Cache-Control")).as(answer.raw().uri() + " " + answer.status()).isEqualTo("no-store");
            assertThat(answer.header("Pragma")).as(answer.raw().uri().toString()).isEqualTo("no-cache");
        }
        // Also what the container refuses before any filter runs.
        String[] encodedSlash = api.raw("GET", "/v1/users/a%2Fb/devices", "");
        assertThat(encodedSlash[0]).isEqualTo("400");
        assertThat(encodedSlash[1].toLowerCase(java.util.Locale.ROOT)).contains("cache-control: no-store");
    }

    @Test
    void theKeyIsCheckedBeforeAnyBodyIsRead() {
        String form = "application/x-www-form-urlencoded";
        String oversized = "a=" + "b".repeat(20_000);
        ApiClient anonymous = api.withKey(null);
        for (String path : List.of("/v1/codes", "/v1/devices", "/v1/admin/users/" + newUser() + "/codes")) {
            String method = path.startsWith("/v1/admin") ? "DELETE" : "POST";
            for (String body : List.of("a=%zz", oversized)) {
                Answer answer = anonymous.send(method, path, form, body);
                assertThat(answer.status()).as("%s %s without a key, body of %d", method, path, body.length())
                        .isEqualTo(401);
                assertThat(answer.text("code")).isEqualTo("UNAUTHORIZED");
                assertThat(api.withKey("wrong").send(method, path, form, body).status()).isEqualTo(401);
            }
        }
        // With a key, the normal refusals: the wrong media type, or a body over the limit.
        Answer broken = api.send("POST", "/v1/codes", form, "a=%zz");
        assertThat(broken.status()).isEqualTo(415);
        assertThat(broken.text("code")).isEqualTo("UNSUPPORTED_MEDIA_TYPE");
        Answer tooLarge = api.send("POST", "/v1/codes", form, oversized);
        assertThat(tooLarge.status()).isEqualTo(413);
        assertThat(tooLarge.text("code")).isEqualTo("BODY_TOO_LARGE");
    }

    @Test
    void aBadLocaleOrContextIsA400NamingItAndWritesNothing() {
        String user = newUser();
        Map<String, String> send = Map.of("userId", user, "codeType", "EMAIL_VERIFICATION", "deliveryMethod", "EMAIL",
                "deliveryTarget", emailOf(user));
        for (String locale : List.of("pt_BR", "not a tag", "x-private", "e", "en-" + "a".repeat(40))) {
            Answer refused = api.post("/v1/codes", with(send, "locale", locale));
            assertThat(refused.status()).as(locale).isEqualTo(400);
            assertThat(refused.text("code")).isEqualTo("INVALID_INPUT");
            assertThat(refused.text("field")).isEqualTo("locale");
        }
        for (String context : List.of("x".repeat(201), "Pay\u0007 now", "line\nbreak", "Pay \u202e0.01 EUR",
                "Pay\u200b 120.00 EUR", "\ufeffPay 120.00 EUR", "Pay \u2067120.00\u2069 EUR", "Pay \u061c120 EUR")) {
            Answer refused = api.post("/v1/codes", with(send, "context", context));
            assertThat(refused.status()).isEqualTo(400);
            assertThat(refused.text("field")).isEqualTo("context");
            Answer check = api.post("/v1/codes/check", Map.of("code", "123456", "userId", user,
                    "codeType", "EMAIL_VERIFICATION", "context", context));
            assertThat(check.status()).isEqualTo(400);
            assertThat(check.text("field")).isEqualTo("context");
        }
        assertThat(auditEventTypes(user)).isEmpty();
        assertThat(api.post("/v1/codes", with(send, "context", "x".repeat(200))).status()).isEqualTo(202);
    }

    /**
     * A bidi override makes text read otherwise than it is: refused (400 naming the field, nothing written) in a
     * device name a person reads, kept as a visible escape in the user agent that is only recorded.
     */
    @Test
    void aBidiOverrideIsRefusedInADeviceNameAndShownAsAnEscapeInTheRecordedUserAgent() {
        String user = newUser();
        Answer refused = api.post("/v1/devices", Map.of("userId", user, "deviceId", "d1", "deviceType", "WEB",
                "deviceName", "Laptop \u202egnp.exe"));
        assertThat(refused.status()).isEqualTo(400);
        assertThat(refused.text("field")).isEqualTo("deviceName");
        assertThat(refused.text("detail")).contains("U+202E");
        assertThat(auditEventTypes(user)).isEmpty();

        Answer sent = api.post("/v1/codes", Map.of("userId", user, "codeType", "EMAIL_VERIFICATION",
                "deliveryMethod", "EMAIL", "deliveryTarget", emailOf(user), "userAgent", "Mozilla/5.0 \u202eevil"));
        assertThat(sent.status()).isEqualTo(202);
        String history = api.get("/v1/users/" + user + "/audit?limit=100").raw().body();
        assertThat(history).contains("Mozilla/5.0 <U+202E>evil").doesNotContain("\u202e", "\\u202e");
    }

    @Test
    void theOpenApiDocumentDescribesLocaleAndContext() {
        JsonNode schemas = api.withKey(null).get("/v3/api-docs").json().get("components").get("schemas");
        JsonNode send = schemas.get("SendCodeBody").get("properties");
        assertThat(send.get("locale").get("maxLength").asInt()).isEqualTo(35);
        assertThat(send.get("locale").get("description").asString()).contains("BCP 47");
        assertThat(send.get("context").get("maxLength").asInt()).isEqualTo(200);
        assertThat(schemas.get("CodeBody").get("properties").get("context").get("maxLength").asInt()).isEqualTo(200);
        assertThat(schemas.get("SendCodeResponse").get("properties").has("locale")).isTrue();
    }
}
