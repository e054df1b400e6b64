package dev.verificationservice.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.Verification;
import dev.verificationservice.VerificationSettings;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.codes.CodeRequest;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.DevelopmentOutbox;
import dev.verificationservice.codes.IssueResult;
import dev.verificationservice.codes.VerificationResult;
import dev.verificationservice.codes.VerifyRequest;
import dev.verificationservice.ratelimit.RateLimitDecision;
import dev.verificationservice.ratelimit.RateLimitPolicy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** Rate limits and the abuse controls : per user, per target, per client address, the resend cooldown. */
public abstract class RateLimitContract extends ContractPart {

    protected RateLimitContract(ContractFixture fixture) {
        super(fixture);
    }

    @Test
    void theSixthCodeRequestInAWindowIsRateLimited() {
        for (int request = 1; request <= 5; request++) {
            sendEmailCode("alice");
            clock().advance(Duration.ofSeconds(30));
        }
        clock().advance(Duration.ofMinutes(2).plusSeconds(30));
        IssueResult sixth = verification().codes().issue(
                CodeRequest.of("alice", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL, "alice@example.com"));

        assertThat(sixth).isInstanceOf(IssueResult.RateLimited.class);
        IssueResult.RateLimited limited = (IssueResult.RateLimited) sixth;
        assertThat(limited.action()).isEqualTo("SEND_EMAIL_VERIFICATION");
        assertThat(limited.resetsAt()).isEqualTo(START.plus(Duration.ofMinutes(15)));
        assertThat(limited.retryAfterSeconds()).isEqualTo(600);
        assertThat(auditTypes("alice")).first().isEqualTo(AuditEventType.RATE_LIMITED);

        clock().advance(Duration.ofMinutes(10));
        // A new window for the user's requests; the address itself has had its five for this hour.
        IssueResult sameAddress = verification().codes().issue(
                CodeRequest.of("alice", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL, "alice@example.com"));
        assertThat(sameAddress).isInstanceOfSatisfying(IssueResult.RateLimited.class,
                refused -> assertThat(refused.action()).isEqualTo("SEND_TO_TARGET"));
        assertThat(verification().codes().issue(CodeRequest.of("alice", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL,
                "alice.work@example.com"))).isInstanceOf(IssueResult.Issued.class);
    }

    @Test
    void rateLimitStateListsEveryActionsCurrentWindow() {
        sendEmailCode("hal");
        clock().advance(Duration.ofSeconds(30));
        sendEmailCode("hal");
        verifyEmailCode("hal", "000000");

        List<RateLimitDecision> limits = verification().operator().rateLimits("hal");
        assertThat(limits).as("send, verify and verify in a row of each of the four code types; TOTP and recovery "
                + "codes' verify and verify in a row").hasSize(16);
        assertThat(limits).extracting(RateLimitDecision::action)
                .containsExactlyInAnyOrderElementsOf(verification().operator().userActions());
        assertThat(limits).filteredOn(limit -> limit.action().equals("SEND_EMAIL_VERIFICATION")).singleElement()
                .satisfies(limit -> {
                    assertThat(limit.count()).isEqualTo(2);
                    assertThat(limit.limit()).isEqualTo(5);
                    assertThat(limit.resetsAt()).isEqualTo(START.plus(Duration.ofMinutes(15)));
                });
        assertThat(limits).filteredOn(limit -> limit.action().equals("VERIFY_EMAIL_VERIFICATION"))
                .extracting(RateLimitDecision::count).containsExactly(1L);

        clock().advance(Duration.ofMinutes(15));
        assertThat(verification().operator().rateLimits("hal")).filteredOn(limit -> limit.action().startsWith("SEND_"))
                .extracting(RateLimitDecision::count).containsOnly(0L);
        // A failure counts over the windows a live code may span: the one it happened in and the next.
        assertThat(verification().operator().rateLimits("hal")).filteredOn(limit -> limit.action().equals(
                "VERIFY_EMAIL_VERIFICATION")).extracting(RateLimitDecision::count).containsExactly(1L);
        clock().advance(Duration.ofMinutes(15));
        assertThat(verification().operator().rateLimits("hal"))
                .filteredOn(limit -> !limit.action().equals("VERIFY_EMAIL_VERIFICATION_CONSECUTIVE"))
                .extracting(RateLimitDecision::count).containsOnly(0L);
        assertThat(verification().operator().rateLimits("hal")).as("wrong answers in a row count over 30 days")
                .filteredOn(limit -> limit.action().equals("VERIFY_EMAIL_VERIFICATION_CONSECUTIVE"))
                .extracting(RateLimitDecision::count).containsExactly(1L);
    }

    @Test
    void aLimitOfFiveLetsExactlyFiveOfFortySimultaneousRequestsThrough() throws Exception {
        RateLimitPolicy policy = new RateLimitPolicy(5, Duration.ofMinutes(15));

        List<RateLimitDecision> decisions = runConcurrently(40,
                () -> verification().rateLimiter().acquire("jon", "SEND_EMAIL_VERIFICATION", policy));

        assertThat(decisions).filteredOn(RateLimitDecision::allowed).extracting(RateLimitDecision::count)
                .containsExactlyInAnyOrder(1L, 2L, 3L, 4L, 5L);
        // Past the limit nothing is counted: every refused attempt is told it would be the sixth.
        assertThat(decisions).filteredOn(decision -> !decision.allowed()).hasSize(35)
                .allSatisfy(decision -> assertThat(decision.count()).isEqualTo(6));
        assertThat(verification().rateLimiter().current("jon", "SEND_EMAIL_VERIFICATION", policy).count()).isEqualTo(5);
    }

    private IssueResult sms(String userId, String number, ClientContext client) {
        return verification().codes().issue(CodeRequest.of(userId, CodeType.PHONE_VERIFICATION, DeliveryMethod.SMS, number)
                .withClient(client));
    }

    @Test
    void cyclingUserIdsCannotPumpOneNumberExactlyFiveOfTwelveSimultaneousSendsGoOut() throws Exception {
        AtomicInteger users = new AtomicInteger();
        List<IssueResult> results = runConcurrently(12, () -> sms("pump-" + users.incrementAndGet(), "+447700123456",
                ClientContext.none()));

        assertThat(results).filteredOn(IssueResult.Issued.class::isInstance).hasSize(5);
        assertThat(results).filteredOn(result -> !(result instanceof IssueResult.Issued)).hasSize(7)
                .allSatisfy(result -> assertThat(((IssueResult.RateLimited) result).action()).isEqualTo("SEND_TO_TARGET"));
        assertThat(outbox().messages()).hasSize(5);
        // The target is counted under its HMAC: the number is nowhere in the table, not even in a counter's key.
        assertThat(allRawItems().toString()).doesNotContain("447700123456").contains("target:");
    }

    @Test
    void anEmailTargetIsCountedWhateverTheCaseOfTheAddress() {
        for (String address : List.of("jo@example.com", "JO@example.com", "jo@EXAMPLE.com", "Jo@Example.Com", "jo@example.COM")) {
            assertThat(verification().codes().issue(CodeRequest.of("u-" + address.hashCode(), CodeType.EMAIL_VERIFICATION,
                    DeliveryMethod.EMAIL, address))).isInstanceOf(IssueResult.Issued.class);
        }
        IssueResult sixth = verification().codes().issue(CodeRequest.of("u-last", CodeType.EMAIL_VERIFICATION,
                DeliveryMethod.EMAIL, "jO@eXample.com"));
        assertThat(sixth).isInstanceOfSatisfying(IssueResult.RateLimited.class,
                refused -> assertThat(refused.action()).isEqualTo("SEND_TO_TARGET"));
        assertThat(outbox().messages()).extracting(message -> message.to()).as("sent as given, the domain in lower case")
                .containsExactly("jo@example.com", "Jo@example.com", "jo@example.com", "JO@example.com", "jo@example.com");
    }

    @Test
    void cyclingUserIdsOverSpellingsOfOneGmailInboxIsStoppedAtTheTargetLimitAndEachMessageGoesToTheGivenSpelling() {
        List<IssueResult> results = new ArrayList<>();
        for (int i = 1; i <= 40; i++) {
            // The red team's spellings: +tags, dots, googlemail.com and capitals, one user id each.
            String spelling = switch (i % 4) {
                case 0 -> "victim+" + i + "@gmail.com";
                case 1 -> "vic.tim+" + i + "@googlemail.com";
                case 2 -> "Victim+" + i + "@GMail.com";
                default -> "v.i.c.t.i.m@gmail.com";
            };
            results.add(verification().codes().issue(CodeRequest.of("rotating-" + i, CodeType.EMAIL_VERIFICATION,
                    DeliveryMethod.EMAIL, spelling)));
        }

        assertThat(results.subList(0, 5)).allMatch(IssueResult.Issued.class::isInstance);
        assertThat(results.subList(5, 40)).allSatisfy(result -> assertRefusedBy(result, "SEND_TO_TARGET"));
        // Only the limit's key is the mailbox: each message went to the spelling its caller gave.
        assertThat(outbox().messages()).extracting(message -> message.to()).containsExactlyInAnyOrder("vic.tim+1@googlemail.com",
                "Victim+2@gmail.com", "v.i.c.t.i.m@gmail.com", "victim+4@gmail.com", "vic.tim+5@googlemail.com");
        // And the code verifies as before.
        DevelopmentOutbox.Message first = outbox().messages().stream()
                .filter(message -> message.to().equals("vic.tim+1@googlemail.com")).findFirst().orElseThrow();
        assertThat(verification().codes().verify(VerifyRequest.numeric(first.code(), "rotating-1",
                CodeType.EMAIL_VERIFICATION))).isInstanceOf(VerificationResult.Valid.class);
        // Another mailbox at the same provider still gets its codes.
        assertThat(verification().codes().issue(CodeRequest.of("rotating-41", CodeType.EMAIL_VERIFICATION,
                DeliveryMethod.EMAIL, "victim2@gmail.com"))).isInstanceOf(IssueResult.Issued.class);
    }

    @Test
    void oneClientAddressGetsExactlyTwentyOfThirtySimultaneousSends() throws Exception {
        AtomicInteger users = new AtomicInteger();
        List<IssueResult> results = runConcurrently(30, () -> {
            int n = users.incrementAndGet();
            return verification().codes().issue(CodeRequest.of("ip-user-" + n, CodeType.EMAIL_VERIFICATION,
                    DeliveryMethod.EMAIL, "ip-user-" + n + "@example.com").withClient(ClientContext.of("203.0.113.50", null, null)));
        });

        assertThat(results).filteredOn(IssueResult.Issued.class::isInstance).hasSize(20);
        assertThat(results).filteredOn(IssueResult.RateLimited.class::isInstance).hasSize(10)
                .allSatisfy(result -> assertThat(((IssueResult.RateLimited) result).action()).isEqualTo("SEND_FROM_IP"));
        // Another address, and the same /64 of IPv6 counted as one subscriber.
        assertThat(verification().codes().issue(CodeRequest.of("ip-other", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL,
                "ip-other@example.com").withClient(ClientContext.of("203.0.113.51", null, null))))
                .isInstanceOf(IssueResult.Issued.class);
    }

    @Test
    void aBlockedIpv4AddressStaysBlockedUnderEveryIpv6FormOfIt() {
        Verification onePerAddress = build(keys(), outbox(), VerificationSettings.defaults()
                .withIpLimit(new RateLimitPolicy(1, Duration.ofHours(1))));
        assertThat(onePerAddress.codes().issue(emailFrom("v4-0", "v4-0@example.com", "203.0.113.7")))
                .isInstanceOf(IssueResult.Issued.class);

        // 203.0.113.7 is cb00:7107; Teredo carries it inverted (34ff:8ef8); the 6to4 subnets are the client's choice.
        List<String> forms = List.of("::ffff:203.0.113.7", "::203.0.113.7", "::ffff:0:203.0.113.7", "64:ff9b::203.0.113.7",
                "64:ff9b::cb00:7107", "2002:cb00:7107::1", "2002:cb00:7107:1::1", "2002:cb00:7107:ffff::1",
                "2001:0:4136:e378:8000:63bf:34ff:8ef8", "2001:0:5ef5:79fd:0:1:34ff:8ef8");
        for (int i = 0; i < forms.size(); i++) {
            assertRefusedBy(onePerAddress.codes().issue(emailFrom("v4-" + (i + 1), "v4-" + (i + 1) + "@example.com",
                    forms.get(i))), "SEND_FROM_IP");
        }
        // An ordinary IPv6 client is its own /64, and the IPv4 address's one place is still the only one held.
        assertThat(onePerAddress.codes().issue(emailFrom("v6", "v6@example.com", "2001:db8:1:2::7")))
                .isInstanceOf(IssueResult.Issued.class);
        assertThat(onePerAddress.rateLimiter().current("ip:203.0.113.7", "SEND_FROM_IP",
                VerificationSettings.DEFAULT_IP_LIMIT).count()).isEqualTo(1);
    }

    private static CodeRequest emailFrom(String userId, String address, String ipAddress) {
        return CodeRequest.of(userId, CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL, address)
                .withClient(ipAddress == null ? ClientContext.none() : ClientContext.of(ipAddress, null, null));
    }

    @Test
    void aSendRefusedByItsTargetCountsAgainstNothingElseAndStartsNoCooldown() {
        Verification onePerTarget = build(keys(), outbox(), VerificationSettings.defaults()
                .withTargetLimit(new RateLimitPolicy(1, Duration.ofHours(1))));
        assertThat(onePerTarget.codes().issue(emailFrom("ron", "shared@example.com", null)))
                .isInstanceOf(IssueResult.Issued.class);

        assertRefusedBy(onePerTarget.codes().issue(emailFrom("sue", "shared@example.com", "203.0.113.60")),
                "SEND_TO_TARGET");

        // The user's and the client address's places went out beside the target's and were given back.
        assertThat(onePerTarget.rateLimiter().current("sue", "SEND_EMAIL_VERIFICATION",
                VerificationSettings.DEFAULT_SEND_LIMIT).count()).isZero();
        assertThat(onePerTarget.rateLimiter().current("ip:203.0.113.60", "SEND_FROM_IP",
                VerificationSettings.DEFAULT_IP_LIMIT).count()).isZero();
        // No cooldown was started: at the same instant sue's code goes out to another address.
        assertThat(onePerTarget.codes().issue(emailFrom("sue", "sue@example.com", "203.0.113.60")))
                .isInstanceOf(IssueResult.Issued.class);
        assertThat(auditTypes("sue")).containsExactly(AuditEventType.CODE_SENT, AuditEventType.RATE_LIMITED);
    }

    @Test
    void whenSeveralLimitsRefuseOneSendTheFirstInTheirOrderIsReportedAndTheOtherPlacesGoBack() {
        Verification tight = build(keys(), outbox(), VerificationSettings.defaults()
                .withSendLimit(new RateLimitPolicy(1, Duration.ofMinutes(15)))
                .withTargetLimit(new RateLimitPolicy(1, Duration.ofHours(1)))
                .withIpLimit(new RateLimitPolicy(1, Duration.ofHours(1))));
        assertThat(tight.codes().issue(emailFrom("eve", "eve@example.com", null))).isInstanceOf(IssueResult.Issued.class);
        String evesCode = latestCode();
        assertThat(tight.codes().issue(emailFrom("fay", "full@example.com", null))).isInstanceOf(IssueResult.Issued.class);
        assertThat(tight.codes().issue(emailFrom("gus", "gus@example.com", "198.51.100.1")))
                .isInstanceOf(IssueResult.Issued.class);

        // The user's limit and the target's (and the cooldown): the user's is reported, the address's place goes back.
        assertRefusedBy(tight.codes().issue(emailFrom("eve", "full@example.com", "203.0.113.61")),
                "SEND_EMAIL_VERIFICATION");
        assertThat(tight.rateLimiter().current("ip:203.0.113.61", "SEND_FROM_IP", VerificationSettings.DEFAULT_IP_LIMIT)
                .count()).isZero();
        // The target's and the address's: the target's is reported, the user's place goes back.
        assertRefusedBy(tight.codes().issue(emailFrom("hal", "full@example.com", "198.51.100.1")), "SEND_TO_TARGET");
        assertThat(tight.rateLimiter().current("hal", "SEND_EMAIL_VERIFICATION", VerificationSettings.DEFAULT_SEND_LIMIT)
                .count()).isZero();
        // Locked out of guessing and over the user's limit: the lock-out is reported, the target's place goes back.
        for (int guess = 0; guess < 5; guess++) {
            tight.codes().verify(VerifyRequest.numeric(wrongCode(evesCode), "eve", CodeType.EMAIL_VERIFICATION));
        }
        assertRefusedBy(tight.codes().issue(emailFrom("eve", "eve2@example.com", null)), "VERIFY_EMAIL_VERIFICATION");
        assertThat(tight.codes().issue(emailFrom("ida", "eve2@example.com", null))).isInstanceOf(IssueResult.Issued.class);
    }

    @Test
    void aNewCodeIsRefusedForThirtySecondsAfterTheLastAndOfTenAtOnceOneGoesOut() throws Exception {
        AtomicInteger targets = new AtomicInteger();
        List<IssueResult> results = runConcurrently(10, () -> verification().codes().issue(CodeRequest.of("cool",
                CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL, "cool-" + targets.incrementAndGet() + "@example.com")));

        assertThat(results).filteredOn(IssueResult.Issued.class::isInstance).hasSize(1);
        assertThat(results).filteredOn(result -> result instanceof IssueResult.RateLimited limited
                && limited.action().equals("RESEND_EMAIL_VERIFICATION")).isNotEmpty();

        clock().advance(Duration.ofSeconds(29));
        IssueResult early = verification().codes().issue(CodeRequest.of("cool", CodeType.EMAIL_VERIFICATION,
                DeliveryMethod.EMAIL, "cool@example.com"));
        assertThat(early).isInstanceOfSatisfying(IssueResult.RateLimited.class, refused -> {
            assertThat(refused.action()).isEqualTo("RESEND_EMAIL_VERIFICATION");
            assertThat(refused.retryAfterSeconds()).isEqualTo(1);
        });
        // A refused request takes no place: the user's send count holds only the code that went out.
        assertThat(verification().rateLimiter().current("cool", "SEND_EMAIL_VERIFICATION", FIVE).count()).isEqualTo(1);
        clock().advance(Duration.ofSeconds(1));
        assertThat(verification().codes().issue(CodeRequest.of("cool", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL,
                "cool@example.com"))).isInstanceOf(IssueResult.Issued.class);
    }
}
