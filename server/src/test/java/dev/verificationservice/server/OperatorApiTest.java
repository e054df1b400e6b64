package dev.verificationservice.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.server.ApiClient.Answer;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.springframework.boot.test.system.CapturedOutput;
import tools.jackson.databind.JsonNode;

/**
 * The operator API (contract §11) over HTTP, on the embedded store: which key opens which API, the answers of
 * its calls, and the key id (never the key) in the audit. What a lift or an invalidation does is the contract
 * suite's, on both stores; the overview of every repository runs on both stores in AbstractApiTest.
 */
class OperatorApiTest extends EmbeddedOnlyApiTest {

    private static void assertForbidden(Answer answer, String detail) {
        assertThat(answer.status()).isEqualTo(403);
        assertThat(answer.header("Content-Type")).startsWith("application/problem+json");
        assertThat(answer.text("code")).isEqualTo("FORBIDDEN");
        assertThat(answer.text("detail")).contains(detail);
    }

    @Test
    void eachKeyOpensOnlyItsOwnApi() {
        String user = newUser();
        String overview = "/v1/admin/users/" + user;
        // An application key never reaches the operator API.
        assertForbidden(api.get(overview), "needs an admin key");
        assertForbidden(api.delete(overview + "/codes"), "needs an admin key");
        assertForbidden(api.delete(overview + "/rate-limits/VERIFY_EMAIL_VERIFICATION"), "needs an admin key");
        assertForbidden(api.withKey(NEXT_API_KEY).get(overview), "needs an admin key");
        // An admin key never replaces an application key: not on /v1, not on the outbox.
        ApiClient admin = admin();
        assertForbidden(admin.get("/v1/users/" + user + "/audit"), "This is an admin key");
        assertForbidden(admin.get("/v1/users/" + user + "/rate-limits"), "This is an admin key");
        assertForbidden(admin.post("/v1/codes", Map.of("userId", user, "codeType", "EMAIL_VERIFICATION",
                "deliveryMethod", "EMAIL", "deliveryTarget", "jane@example.com")), "This is an admin key");
        assertForbidden(admin.post("/v1/codes/verify", Map.of("code", "123456", "userId", user,
                "codeType", "EMAIL_VERIFICATION")), "This is an admin key");
        assertForbidden(admin.delete("/v1/users/" + user + "/devices"), "This is an admin key");
        assertForbidden(admin.get("/dev/outbox"), "This is an admin key");
        assertForbidden(api.withKey(NEXT_ADMIN_KEY).get("/dev/outbox"), "This is an admin key");
        // A missing or unknown key is a 401, on the operator API as everywhere.
        for (String key : new String[] {null, "wrong", ADMIN_KEY + "x", ADMIN_KEY.substring(1)}) {
            Answer answer = api.withKey(key).get(overview);
            assertThat(answer.status()).as(String.valueOf(key)).isEqualTo(401);
            assertThat(answer.text("code")).isEqualTo("UNAUTHORIZED");
            assertThat(answer.header("WWW-Authenticate")).startsWith("Bearer");
        }
        // The path the container decodes decides: no spelling takes an application key into the operator API.
        for (String path : List.of("/v1/%61dmin/users/" + user, "/v1;x=1/admin/users/" + user, "/v1/admin;x=1/users/" + user,
                "/%761/admin/users/" + user)) {
            assertThat(api.raw("GET", path, "")[0]).as(path).isEqualTo("403");
            assertThat(api.withKey(null).raw("GET", path, "")[0]).as(path).isEqualTo("401");
        }
        assertThat(api.raw("GET", "/V1/admin/users/" + user, "")[0]).as("another path, not the operator API").isEqualTo("404");
        assertThat(admin.raw("GET", "/v1/%61dmin/users/" + user, "")[0]).isEqualTo("200");
        // Both admin keys work (rotation), and public paths need no key of either kind.
        assertThat(admin.get(overview).status()).isEqualTo(200);
        assertThat(api.withKey(NEXT_ADMIN_KEY).get(overview).status()).isEqualTo(200);
        assertThat(admin.get("/actuator/health/liveness").status()).isEqualTo(200);
        // Nothing above did anything.
        assertThat(auditEventTypes(user)).isEmpty();
    }

    /** What a lift does to a lock-out is the contract suite's; here the operator's call, its answer and audit. */
    @Test
    void anOperatorLiftsAGuessingLockOutAndTheAuditNamesTheKeyIdNeverTheKey(CapturedOutput output) throws Exception {
        String user = newUser();
        sendAndGuessWrong(user, 5);

        Answer lifted = admin().delete("/v1/admin/users/" + user + "/rate-limits/VERIFY_EMAIL_VERIFICATION");

        assertThat(lifted.status()).isEqualTo(200);
        assertThat(lifted.header("Cache-Control")).isEqualTo("no-store");
        assertThat(lifted.text("action")).isEqualTo("VERIFY_EMAIL_VERIFICATION");
        assertThat(lifted.json().get("windowsCleared").asInt()).isEqualTo(1);
        assertAuditedReset(user, "VERIFY_EMAIL_VERIFICATION", output);
    }

    /** One RATE_LIMIT_RESET entry for the action, with the operator's key id and never the key. */
    private void assertAuditedReset(String user, String action, CapturedOutput output) throws Exception {
        List<JsonNode> resets = auditEvents(user, "RATE_LIMIT_RESET");
        assertThat(resets).hasSize(1);
        JsonNode details = resets.get(0).get("details");
        assertThat(details.get("operatorKeyId").asString()).isEqualTo(adminKeyId(ADMIN_KEY)).startsWith("adm-").hasSize(16);
        assertThat(details.get("action").asString()).isEqualTo(action);
        assertThat(details.get("windowsCleared").asString()).isEqualTo("1");
        assertThat(resets.get(0).get("success").asBoolean()).isTrue();
        String history = api.get("/v1/users/" + user + "/audit?limit=100").raw().body();
        assertThat(history).doesNotContain(ADMIN_KEY);
        assertThat(output.getAll()).doesNotContain(ADMIN_KEY, NEXT_ADMIN_KEY);
    }

    @Test
    void anOperatorLiftsASendLimitAndEachAdminKeyHasItsOwnId(CapturedOutput output) throws Exception {
        String user = newUser();
        // Another inbox each time, some time apart: only the user's own send limit is reached.
        for (int request = 0; request < 5; request++) {
            assertThat(sendEmailCodeTo(user, "jane" + request + "@example.com").status()).isEqualTo(202);
            clock.advance(Duration.ofSeconds(31));
        }
        Answer refused = sendEmailCodeTo(user, "jane5@example.com");
        assertThat(refused.status()).isEqualTo(429);
        assertThat(refused.text("action")).isEqualTo("SEND_EMAIL_VERIFICATION");

        Answer lifted = admin().delete("/v1/admin/users/" + user + "/rate-limits/SEND_EMAIL_VERIFICATION");

        assertThat(lifted.status()).isEqualTo(200);
        assertThat(lifted.text("action")).isEqualTo("SEND_EMAIL_VERIFICATION");
        assertThat(lifted.json().get("windowsCleared").asInt()).isEqualTo(1);
        assertThat(sendEmailCodeTo(user, "jane6@example.com").status()).isEqualTo(202);
        assertThat(api.get("/v1/users/" + user + "/rate-limits").json().get("limits")).anySatisfy(limit -> {
            assertThat(limit.get("action").asString()).isEqualTo("SEND_EMAIL_VERIFICATION");
            assertThat(limit.get("count").asLong()).isEqualTo(1);
        });
        assertAuditedReset(user, "SEND_EMAIL_VERIFICATION", output);

        // The other admin key is another operator, with another id.
        Answer again = admin().withKey(NEXT_ADMIN_KEY).delete("/v1/admin/users/" + user
                + "/rate-limits/SEND_EMAIL_VERIFICATION");
        assertThat(again.json().get("windowsCleared").asInt()).isEqualTo(1);
        assertThat(auditEvents(user, "RATE_LIMIT_RESET").get(0).get("details").get("operatorKeyId").asString())
                .isEqualTo(adminKeyId(NEXT_ADMIN_KEY)).isNotEqualTo(adminKeyId(ADMIN_KEY));

        // Only the user's own limits can be lifted, and bad input names its field and changes nothing.
        Answer unknown = admin().delete("/v1/admin/users/" + user + "/rate-limits/NOT_AN_ACTION");
        assertThat(unknown.status()).isEqualTo(400);
        assertThat(unknown.text("code")).isEqualTo("INVALID_INPUT");
        assertThat(unknown.text("field")).isEqualTo("action");
        Answer badUser = admin().delete("/v1/admin/users/a%23b/rate-limits/VERIFY_EMAIL_VERIFICATION");
        assertThat(badUser.status()).isEqualTo(400);
        assertThat(badUser.text("field")).isEqualTo("userId");
        assertThat(auditEvents(user, "RATE_LIMIT_RESET")).hasSize(2);
    }

    /** What an invalidation does to the codes is the contract suite's; here the call, its answer and audit. */
    @Test
    void anOperatorInvalidatesEveryLiveCodeOfAUserAndTheAuditNamesTheKeyId() throws Exception {
        String user = newUser();
        sendEmailCode(user);
        assertThat(api.post("/v1/codes", Map.of("userId", user, "codeType", "PASSWORD_RESET", "deliveryMethod", "SMS",
                "deliveryTarget", mobileOf(user))).status()).isEqualTo(202);

        Answer invalidated = admin().delete("/v1/admin/users/" + user + "/codes");

        assertThat(invalidated.status()).isEqualTo(200);
        assertThat(invalidated.header("Cache-Control")).isEqualTo("no-store");
        assertThat(invalidated.json().get("invalidated").asInt()).isEqualTo(2);
        assertThat(admin().get("/v1/admin/users/" + user).json().get("liveCodes")).isEmpty();
        List<JsonNode> entries = auditEvents(user, "CODES_INVALIDATED");
        assertThat(entries).hasSize(2).allSatisfy(entry -> {
            assertThat(entry.get("details").get("operatorKeyId").asString()).isEqualTo(adminKeyId(ADMIN_KEY));
            assertThat(entry.get("details").get("reason").asString()).isEqualTo("OPERATOR");
        });
        assertThat(api.get("/v1/users/" + user + "/audit?limit=100").raw().body()).doesNotContain(ADMIN_KEY);
    }

    @Test
    void theApiDocumentDescribesTheOperatorApiWithItsOwnKey() {
        JsonNode document = api.withKey(null).get("/v3/api-docs").json();
        JsonNode paths = document.get("paths");
        assertThat(paths.has("/v1/admin/users/{userId}")).isTrue();
        assertThat(paths.get("/v1/admin/users/{userId}/rate-limits/{action}").has("delete")).isTrue();
        assertThat(paths.get("/v1/admin/users/{userId}/codes").has("delete")).isTrue();
        JsonNode overview = paths.get("/v1/admin/users/{userId}").get("get");
        assertThat(overview.get("security").get(0).has("adminKey")).isTrue();
        assertThat(overview.get("responses").has("403")).isTrue();
        assertThat(document.get("components").get("securitySchemes").get("adminKey").get("scheme").asString())
                .isEqualTo("bearer");
        assertThat(paths.get("/v1/codes").get("post").has("security")).as("the application API keeps the default key")
                .isFalse();
    }
}
