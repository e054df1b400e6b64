package dev.verificationservice.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.server.ApiClient.Answer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/**
 * How the API answers the domain's decisions, once, on the embedded store: status, Retry-After, problem type and
 * field, the JSON of an answer. The rules behind them (limits, cooldown, ttl, context, paging) are the contract
 * suite's, on both stores; these tests assert what HTTP adds (docs/testing.md says which level owns which rule).
 */
class HttpMappingTest extends EmbeddedOnlyApiTest {

    /** The lock-out itself (five wrong guesses, two windows) is the contract suite's; here its answers. */
    @Test
    void aLockOutAnswersTooManyAttemptsAndA429WithTheSecondsUntilItEnds() {
        String user = newUser();
        String code = sendAndGuessWrong(user, 4);
        clock.advance(Duration.ofSeconds(30));

        Answer fifth = verify(user, wrongFor(code));

        assertThat(fifth.status()).isEqualTo(200);
        assertThat(fifth.json().get("valid").asBoolean()).isFalse();
        assertThat(fifth.text("reason")).isEqualTo("TOO_MANY_ATTEMPTS");
        Answer refused = sendEmailCode(user);
        assertRateLimited(refused, "VERIFY_EMAIL_VERIFICATION");
        // The failures count over the window they happened in and the next (a live code may span both): the
        // lock-out ends at 10:30, 29 minutes 30 seconds from now.
        assertThat(refused.header("Retry-After")).isEqualTo("1770");
        assertThat(auditEventTypes(user).get(0)).isEqualTo("RATE_LIMITED");
    }

    @Test
    void theSixthRequestInAWindowIsRateLimitedWithRetryAfter() {
        String user = newUser();
        for (int request = 0; request < 5; request++) {
            assertThat(sendEmailCode(user).status()).isEqualTo(202);
            clock.advance(Duration.ofSeconds(30));
        }
        clock.advance(Duration.ofMinutes(2).plusSeconds(30));
        Answer sixth = sendEmailCode(user);

        assertThat(sixth.status()).isEqualTo(429);
        assertThat(sixth.header("Content-Type")).startsWith("application/problem+json");
        assertThat(sixth.header("Retry-After")).isEqualTo("600");
        assertThat(sixth.text("action")).isEqualTo("SEND_EMAIL_VERIFICATION");

        Answer limits = api.get("/v1/users/" + user + "/rate-limits");
        assertThat(limits.json().get("limits")).anySatisfy(limit -> {
            assertThat(limit.get("action").asString()).isEqualTo("SEND_EMAIL_VERIFICATION");
            // A refused request is not counted: the count stops at the limit.
            assertThat(limit.get("count").asLong()).isEqualTo(5);
            assertThat(limit.get("limit").asInt()).isEqualTo(5);
            assertThat(limit.get("resetsAt").asString()).isEqualTo("2026-11-30T10:15:00.000Z");
        });
    }

    /** The rule (five sends to one number, whatever the user id) is the contract suite's; here its answer. */
    @Test
    void aSendOverTheTargetLimitIsA429NamingTheTargetLimitWithRetryAfterAndAMetric() {
        String number = "+4477001" + String.format("%05d", Math.floorMod(System.nanoTime(), 100_000));
        for (int i = 0; i < 5; i++) {
            assertThat(api.post("/v1/codes", Map.of("userId", newUser(), "codeType", "PHONE_VERIFICATION",
                    "deliveryMethod", "SMS", "deliveryTarget", number)).status()).isEqualTo(202);
        }

        Answer refused = api.post("/v1/codes", Map.of("userId", newUser(), "codeType", "PHONE_VERIFICATION",
                "deliveryMethod", "SMS", "deliveryTarget", number));

        assertRateLimited(refused, "SEND_TO_TARGET");
        assertThat(refused.header("Retry-After")).matches("[1-9][0-9]*");
        String metrics = api.withKey(null).get("/actuator/prometheus").raw().body();
        assertThat(metrics).contains("verification_ratelimited_total{action=\"SEND_TO_TARGET\"");
    }

    /** The cooldown itself is the contract suite's; here its answer: the seconds left as Retry-After. */
    @Test
    void aSecondCodeWithinThirtySecondsIsRefusedWithTheSecondsToWait() {
        String user = newUser();
        assertThat(sendEmailCode(user).status()).isEqualTo(202);
        clock.advance(Duration.ofSeconds(10));

        Answer again = sendEmailCode(user);

        assertRateLimited(again, "RESEND_EMAIL_VERIFICATION");
        assertThat(again.header("Retry-After")).isEqualTo("20");
    }

    /**
     * The IP limit (twenty sends an hour, under every IPv6 form of the address) is the contract suite's; here the
     * request's ipAddress reaches it, also written as IPv6, and its refusal names it.
     */
    @Test
    void theIpAddressOfARequestCountsAgainstTheIpLimitAlsoWrittenAsIpv6() {
        String ip = "198.51.100." + Math.floorMod(System.nanoTime(), 250);
        for (int i = 0; i < 20; i++) {
            String user = newUser();
            assertThat(api.post("/v1/codes", Map.of("userId", user, "codeType", "EMAIL_VERIFICATION",
                    "deliveryMethod", "EMAIL", "deliveryTarget", user + "@example.com", "ipAddress", ip)).status())
                    .isEqualTo(202);
        }

        String user = newUser();
        Answer refused = api.post("/v1/codes", Map.of("userId", user, "codeType", "EMAIL_VERIFICATION",
                "deliveryMethod", "EMAIL", "deliveryTarget", user + "@example.com", "ipAddress", "::ffff:" + ip));

        assertRateLimited(refused, "SEND_FROM_IP");
        assertThat(refused.header("Retry-After")).matches("[1-9][0-9]*");
    }

    @Test
    void aNumberThatCannotReceiveAVerificationSmsIsA400NamingTheTargetAndWhy() {
        Answer premium = api.post("/v1/codes", Map.of("userId", newUser(), "codeType", "PHONE_VERIFICATION",
                "deliveryMethod", "SMS", "deliveryTarget", "+19005550123"));
        assertThat(premium.status()).isEqualTo(400);
        assertThat(premium.text("field")).isEqualTo("deliveryTarget");
        assertThat(premium.text("detail")).contains("premium rate");

        Answer fiction = api.post("/v1/codes", Map.of("userId", newUser(), "codeType", "PHONE_VERIFICATION",
                "deliveryMethod", "SMS", "deliveryTarget", "+447700900123"));
        assertThat(fiction.status()).isEqualTo(400);
        assertThat(fiction.text("detail")).contains("not a valid phone number");
    }

    @Test
    void aCodePastItsTtlThatIsStillStoredIsRefused() {
        String user = newUser();
        sendEmailCode(user);
        String code = codeFromOutbox();
        clock.advance(Duration.ofMinutes(15).plusSeconds(1));

        Answer check = api.post("/v1/codes/check", Map.of("code", code, "userId", user, "codeType", "EMAIL_VERIFICATION"));
        assertThat(check.json().get("valid").asBoolean()).isFalse();
        assertThat(check.text("reason")).isEqualTo("EXPIRED");
        assertThat(verify(user, code).text("reason")).isEqualTo("EXPIRED");
    }

    @Test
    void aPasswordResetLinkCodeVerifiesWithoutTheUser() {
        String user = newUser();
        Answer sent = api.post("/v1/codes", Map.of("userId", user, "codeType", "PASSWORD_RESET",
                "deliveryMethod", "SMS", "deliveryTarget", "+447700123456"));
        assertThat(sent.status()).isEqualTo(202);
        assertThat(sent.text("format")).isEqualTo("LINK");
        assertThat(sent.text("maskedTarget")).isEqualTo("+44******3456");
        String link = codeFromOutbox();

        Answer someoneElses = api.post("/v1/codes/verify", Map.of("code", link, "userId", newUser()));
        assertThat(someoneElses.json().get("valid").asBoolean()).isFalse();
        assertThat(someoneElses.text("reason")).as("a LINK code named for another user").isEqualTo("NOT_FOUND");

        Answer verified = api.post("/v1/codes/verify", Map.of("code", link));
        assertThat(verified.json().get("valid").asBoolean()).isTrue();
        assertThat(verified.text("userId")).isEqualTo(user);
        assertThat(verified.text("codeType")).isEqualTo("PASSWORD_RESET");
    }

    /** Paging itself (newest first, by cursor) is the contract suite's; here limit, cursor and nextCursor. */
    @Test
    void auditHistoryPagesWithTheLimitAndTheNextCursor() {
        String user = newUser();
        for (int i = 0; i < 3; i++) {
            sendEmailCode(user);
            clock.advance(Duration.ofSeconds(30));
        }
        // CODE_SENT, then twice CODES_INVALIDATED and CODE_SENT: five events in pages of two.
        List<Integer> pageSizes = new ArrayList<>();
        String cursor = null;
        do {
            Answer page = api.get("/v1/users/" + user + "/audit?limit=2" + (cursor == null ? "" : "&cursor=" + cursor));
            assertThat(page.status()).isEqualTo(200);
            pageSizes.add(page.json().get("events").size());
            cursor = page.text("nextCursor");
        } while (cursor != null);

        assertThat(pageSizes).containsExactly(2, 2, 1);
    }

    /**
     * What a context binds (numeric and link codes, check and verify) is the contract suite's; here the request's
     * context reaches the rule, the message shows it, and no answer or audit entry ever does.
     */
    @Test
    void aCodeSentWithAContextVerifiesOnlyWithThatContextAndTheContextIsNeverInAnAnswer() {
        String user = newUser();
        String context = "Pay 120.00 EUR to ACME";
        Answer sent = api.post("/v1/codes", Map.of("userId", user, "codeType", "EMAIL_VERIFICATION",
                "deliveryMethod", "EMAIL", "deliveryTarget", emailOf(user), "context", context));
        assertThat(sent.status()).isEqualTo(202);
        assertThat(sent.raw().body()).doesNotContain("ACME", "context");
        JsonNode message = api.get("/dev/outbox").json().get("messages").get(0);
        assertThat(message.get("body").asString()).contains("This code approves: " + context);
        Map<String, String> numeric = Map.of("code", message.get("code").asString(), "userId", user,
                "codeType", "EMAIL_VERIFICATION");

        assertThat(api.post("/v1/codes/verify", numeric).text("reason")).isEqualTo("NOT_FOUND");
        Answer verified = api.post("/v1/codes/verify", with(numeric, "context", context));
        assertThat(verified.json().get("valid").asBoolean()).isTrue();
        assertThat(verified.raw().body()).doesNotContain("ACME", "context");

        // The audit log says a context was bound, never what it was.
        String history = api.get("/v1/users/" + user + "/audit?limit=100").raw().body();
        assertThat(history).contains("\"context\":\"bound\"").doesNotContain("ACME");
    }

    @Test
    void theMessageIsInTheRequestedLanguageOrTheNumbersAndTheAnswerSaysWhich() {
        String user = newUser();
        Answer austrian = api.post("/v1/codes", Map.of("userId", user, "codeType", "EMAIL_VERIFICATION",
                "deliveryMethod", "EMAIL", "deliveryTarget", emailOf(user), "locale", "de-AT"));
        assertThat(austrian.status()).isEqualTo(202);
        assertThat(austrian.text("locale")).isEqualTo("de");
        JsonNode message = api.get("/dev/outbox").json().get("messages").get(0);
        assertThat(message.get("locale").asString()).isEqualTo("de");
        assertThat(message.get("body").asString()).contains("Geben Sie diesen Code ein", "Der Code ist 15 Minuten gültig.");

        // No locale: an email is in English, an SMS in the language of the number's country.
        Answer email = sendEmailCode(newUser());
        assertThat(email.text("locale")).isEqualTo("en");
        Answer brazil = api.post("/v1/codes", Map.of("userId", newUser(), "codeType", "PHONE_VERIFICATION",
                "deliveryMethod", "SMS", "deliveryTarget", mobile("+55119", 8)));
        assertThat(brazil.status()).isEqualTo(202);
        assertThat(brazil.text("locale")).isEqualTo("pt-BR");
        assertThat(api.get("/dev/outbox").json().get("messages").get(0).get("body").asString())
                .startsWith("Seu codigo de verificacao é ");
        Answer germany = api.post("/v1/codes", Map.of("userId", newUser(), "codeType", "PHONE_VERIFICATION",
                "deliveryMethod", "SMS", "deliveryTarget", mobile("+49151", 8)));
        assertThat(germany.text("locale")).isEqualTo("de");
        assertThat(api.get("/dev/outbox").json().get("messages").get(0).get("body").asString())
                .startsWith("Ihr Bestätigungscode lautet ");
        // A requested locale wins over the number's country; a language without templates is English.
        Answer requested = api.post("/v1/codes", Map.of("userId", newUser(), "codeType", "PHONE_VERIFICATION",
                "deliveryMethod", "SMS", "deliveryTarget", mobile("+49151", 8), "locale", "PT-br"));
        assertThat(requested.text("locale")).isEqualTo("pt-BR");
        Answer swahili = api.post("/v1/codes", Map.of("userId", newUser(), "codeType", "EMAIL_VERIFICATION",
                "deliveryMethod", "EMAIL", "deliveryTarget", emailOf(newUser()), "locale", "sw-KE"));
        assertThat(swahili.text("locale")).isEqualTo("en");
    }

    @Test
    void theOutboxShowsOneUsersOrOneAddresssMessagesWhenAsked() {
        String first = newUser();
        String second = newUser();
        assertThat(sendEmailCode(first).status()).isEqualTo(202);
        assertThat(sendEmailCode(second).status()).isEqualTo(202);

        JsonNode mine = api.get("/dev/outbox?userId=" + first).json().get("messages");
        JsonNode theirs = api.get("/dev/outbox?to=" + emailOf(second)).json().get("messages");

        assertThat(api.get("/dev/outbox").json().get("messages").get(0).get("userId").asString()).isEqualTo(second);
        assertThat(mine.size()).isEqualTo(1);
        assertThat(mine.get(0).get("userId").asString()).isEqualTo(first);
        assertThat(mine.get(0).get("to").asString()).isEqualTo(emailOf(first));
        assertThat(theirs.size()).isEqualTo(1);
        assertThat(theirs.get(0).get("userId").asString()).isEqualTo(second);
        assertThat(api.get("/dev/outbox?userId=nobody-" + first).json().get("messages").size()).isZero();
    }

    /** A refusal by a limit: 429 and a problem document of code RATE_LIMITED that names the limit's action. */
    private static void assertRateLimited(Answer answer, String action) {
        assertThat(answer.status()).isEqualTo(429);
        assertThat(answer.header("Content-Type")).startsWith("application/problem+json");
        assertThat(answer.text("code")).isEqualTo("RATE_LIMITED");
        assertThat(answer.text("action")).isEqualTo(action);
    }
}
