package dev.verificationservice.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.Verification;
import dev.verificationservice.VerificationSettings;
import dev.verificationservice.codes.CodeRequest;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.IssueResult;
import dev.verificationservice.ratelimit.Cooldown;
import dev.verificationservice.ratelimit.CounterWindow;
import dev.verificationservice.ratelimit.Place;
import dev.verificationservice.ratelimit.RateLimitDecision;
import dev.verificationservice.ratelimit.RateLimitPolicy;
import dev.verificationservice.security.SecureTokens;
import dev.verificationservice.ratelimit.RateLimiter;
import dev.verificationservice.table.ItemAttributes;
import dev.verificationservice.table.RateLimitItems;
import dev.verificationservice.testsupport.dynamodb.DynamoDbUnits;
import java.time.Instant;
import software.amazon.awssdk.services.dynamodb.model.AttributeValue;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The global SMS budget: shared by all users, split over shards, never held by a refused send. */
public abstract class SmsBudgetContract extends ContractPart {

    protected SmsBudgetContract(ContractFixture fixture) {
        super(fixture);
    }

    @Test
    void theSmsBudgetStopsSmsAcrossAllUsersButNotEmail() throws Exception {
        Verification budgeted = build(keys(), outbox(), VerificationSettings.defaults()
                .withSmsBudget(Optional.of(new RateLimitPolicy(3, Duration.ofHours(1)))));
        List<String> numbers = List.of("+447700123401", "+447700123402", "+447700123403", "+447700123404",
                "+447700123405", "+447700123406");
        AtomicInteger next = new AtomicInteger();
        List<IssueResult> results = runConcurrently(6, () -> {
            int n = next.getAndIncrement();
            return budgeted.codes().issue(CodeRequest.of("budget-" + n, CodeType.PHONE_VERIFICATION, DeliveryMethod.SMS,
                    numbers.get(n)));
        });

        assertThat(results).filteredOn(IssueResult.Issued.class::isInstance).hasSize(3);
        assertThat(results).filteredOn(IssueResult.RateLimited.class::isInstance).hasSize(3)
                .allSatisfy(result -> assertThat(((IssueResult.RateLimited) result).action()).isEqualTo("SMS_BUDGET"));
        assertThat(budgeted.codes().issue(CodeRequest.of("budget-mail", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL,
                "budget@example.com"))).isInstanceOf(IssueResult.Issued.class);
    }

    @Test
    void aBudgetSplitOverShardsLetsExactlyItsLimitThroughUnderConcurrency() throws Exception {
        // 7 over 3 shards: the shards hand out 3, 2 and 2 places; 16 users at once, each a number of its own.
        RateLimitPolicy budget = new RateLimitPolicy(7, Duration.ofHours(1), 3);
        Verification budgeted = build(keys(), outbox(), VerificationSettings.defaults().withSmsBudget(Optional.of(budget)));
        AtomicInteger next = new AtomicInteger(10);
        List<IssueResult> results = runConcurrently(16, () -> {
            int n = next.getAndIncrement();
            return budgeted.codes().issue(smsTo("shard-" + n, "+4477001234" + n));
        });

        assertThat(results).filteredOn(IssueResult.Issued.class::isInstance).hasSize(7);
        assertThat(results).filteredOn(IssueResult.RateLimited.class::isInstance).hasSize(9)
                .allSatisfy(result -> assertThat(((IssueResult.RateLimited) result).action()).isEqualTo("SMS_BUDGET"));
        assertThat(smsBudgetHeld(budgeted, budget)).isEqualTo(7);
        // Every shard is full at exactly its share, in an item of its own (a partition key of its own on DynamoDB).
        assertThat(allRawItems()).filteredOn(item -> "SMS_BUDGET".equals(item.get("action")))
                .extracting(item -> item.get("PK") + "=" + ((Number) item.get("count")).longValue())
                .containsExactlyInAnyOrder("RATELIMIT#global#SMS_BUDGET=3", "RATELIMIT#global#1#SMS_BUDGET=2",
                        "RATELIMIT#global#2#SMS_BUDGET=2");
        assertThat(smsBudgetMarks()).as("no sent SMS holds a mark").isZero();
    }

    @Test
    void aFullShardFallsOverToTheNextAndAPlaceGivenBackIsFoundAgain() {
        RateLimitPolicy split = new RateLimitPolicy(5, Duration.ofHours(1), 2);
        List<RateLimitDecision> taken = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            RateLimitDecision decision = verification().rateLimiter().acquire("global", "SHARDED", split);
            assertThat(decision.allowed()).as("place %d of 5", i + 1).isTrue();
            taken.add(decision);
        }
        assertThat(verification().rateLimiter().acquire("global", "SHARDED", split).allowed()).isFalse();
        assertThat(verification().rateLimiter().current("global", "SHARDED", split).count()).isEqualTo(5);

        verification().rateLimiter().release(taken.get(2));
        assertThat(verification().rateLimiter().current("global", "SHARDED", split).count()).isEqualTo(4);
        assertThat(verification().rateLimiter().acquire("global", "SHARDED", split).allowed())
                .as("whichever shard the walk starts at, it reaches the one with room").isTrue();
        assertThat(verification().rateLimiter().acquire("global", "SHARDED", split).allowed()).isFalse();
    }

    /**
     * The previous release's counter item at the most places one counter may hand out, a {@code place_} mark for
     * every place (its shape while no outcome was known): it still counts, the marks are ignored, and one place
     * more is refused without a write, a retry like any other.
     */
    @Test
    void aCounterOfThePreviousReleaseWithAMarkPerPlaceStillCountsAndRefusesPastItsLimit() {
        int most = RateLimitPolicy.MAX_PER_COUNTER;
        Place last = placeOf("max", "SEND_EMAIL_VERIFICATION", new SecureTokens().attemptId());
        CounterWindow window = last.window();
        Map<String, Object> item = RateLimitItems.counterItem(window.userId(), window.action(), window.windowStart(),
                window.expiresAt(), most - 1);
        SecureTokens tokens = new SecureTokens();
        for (int place = 1; place < most; place++) {
            item.put(ItemAttributes.PLACE_PREFIX + tokens.attemptId(), (long) place);
        }
        putRawItem(item);

        assertThat(store().counters().takePlace(last, most)).isEqualTo(most);
        assertThat(store().counters().takePlace(placeOf("max", "SEND_EMAIL_VERIFICATION", tokens.attemptId()), most))
                .isEqualTo(most + 1L);
        assertThat(store().counters().takePlace(last, most)).as("a retry at the limit is refused").isEqualTo(most + 1L);
        store().counters().givePlaceBack(last);
        assertThat(verification().rateLimiter().current("max", "SEND_EMAIL_VERIFICATION", new RateLimitPolicy(most,
                Duration.ofMinutes(15))).count()).isEqualTo(most - 1L);
    }

    /**
     * A counter at a limit of 10,000 takes every place, 50 takers at once: each place is handed out once, the next
     * is refused, and the item, with hundreds of places given back (each twice), stays under 1 KB: it holds a
     * count and at most {@value Place#GIVE_BACK_SLOTS} give-back marks, never a mark per place.
     */
    @Test
    void tenThousandPlacesAreEachHandedOutOnceAndTheirCounterStaysUnderOneKilobyte() throws Exception {
        int limit = RateLimitPolicy.MAX_PER_COUNTER;
        SecureTokens tokens = new SecureTokens();
        List<Place> places = new ArrayList<>();
        for (int i = 0; i < limit; i++) {
            places.add(placeOf("ten", "SEND_EMAIL_VERIFICATION", tokens.attemptId()));
        }
        AtomicInteger next = new AtomicInteger();
        List<Long> taken = runConcurrently(limit, () -> store().counters().takePlace(places.get(next.getAndIncrement()), limit));
        assertThat(new java.util.TreeSet<>(taken)).as("the places 1 to 10,000, each once").hasSize(limit)
                .first().isEqualTo(1L);
        assertThat(store().counters().takePlace(placeOf("ten", "SEND_EMAIL_VERIFICATION", tokens.attemptId()), limit))
                .isEqualTo(limit + 1L);

        for (Place place : places.subList(0, 200)) {
            store().counters().givePlaceBack(place);
            store().counters().givePlaceBack(place);
        }
        assertThat(verification().rateLimiter().current("ten", "SEND_EMAIL_VERIFICATION", FIVE).count())
                .isEqualTo(limit - 200L);
        Map<String, Object> counter = allRawItems().stream().filter(item -> "ten".equals(item.get(ItemAttributes.USER_ID))
                && "SEND_EMAIL_VERIFICATION".equals(item.get(ItemAttributes.ACTION))).findFirst().orElseThrow();
        assertThat(counter.keySet()).noneMatch(name -> name.startsWith(ItemAttributes.PLACE_PREFIX))
                .filteredOn(name -> name.startsWith(ItemAttributes.GIVE_BACK_PREFIX)).hasSizeLessThanOrEqualTo(Place.GIVE_BACK_SLOTS);
        assertThat(DynamoDbUnits.itemSize(attributeValues(counter))).as("bytes by DynamoDB's rules").isLessThan(1024);
    }

    private static Map<String, AttributeValue> attributeValues(Map<String, Object> item) {
        Map<String, AttributeValue> values = new java.util.LinkedHashMap<>();
        item.forEach((name, value) -> values.put(name, value instanceof Number number
                ? AttributeValue.fromN(number.toString()) : AttributeValue.fromS((String) value)));
        return values;
    }

    /**
     * The previous release kept the whole budget in one item, the key of the first shard now: during its window it
     * still counts in the budget's state and fills the first shard, whose share it holds, so no new place goes there.
     */
    @Test
    void thePreviousReleasesWholeBudgetItemStillCountsDuringItsWindow() {
        RateLimitPolicy budget = new RateLimitPolicy(16, Duration.ofHours(1), 8);
        Instant windowStart = RateLimiter.windowStart(clock().instant(), budget.window());
        Map<String, Object> old = RateLimitItems.counterItem("global", "SMS_BUDGET", windowStart,
                windowStart.plus(budget.window()).plus(RateLimiter.COUNTER_GRACE), 5);
        SecureTokens tokens = new SecureTokens();
        for (int place = 1; place <= 5; place++) {
            old.put(ItemAttributes.PLACE_PREFIX + tokens.attemptId(), (long) place);
        }
        putRawItem(old);
        assertThat(verification().rateLimiter().current("global", "SMS_BUDGET", budget).count()).isEqualTo(5);

        int granted = 0;
        while (verification().rateLimiter().acquire("global", "SMS_BUDGET", budget).allowed()) {
            granted++;
        }
        assertThat(granted).as("the seven other shards' shares, none in the first").isEqualTo(14);
        assertThat(allRawItems()).filteredOn(item -> "RATELIMIT#global#SMS_BUDGET".equals(item.get(ItemAttributes.PK)))
                .singleElement().satisfies(item -> assertThat(((Number) item.get(ItemAttributes.COUNT)).longValue()).isEqualTo(5L));
        assertThat(verification().rateLimiter().current("global", "SMS_BUDGET", budget).count()).isEqualTo(19);
    }

    private static final String BUDGET_NUMBER = "+447700123401";

    private static CodeRequest smsTo(String userId, String number) {
        return CodeRequest.of(userId, CodeType.PHONE_VERIFICATION, DeliveryMethod.SMS, number);
    }

    private long smsBudgetHeld(Verification service, RateLimitPolicy budget) {
        return service.rateLimiter().current("global", "SMS_BUDGET", budget).count();
    }

    /** Marks of a place in the SMS budget's counter items: none, however many SMS went out. */
    private long smsBudgetMarks() {
        return allRawItems().stream().filter(item -> "SMS_BUDGET".equals(item.get("action")))
                .mapToLong(item -> item.keySet().stream().filter(name -> name.startsWith(ItemAttributes.PLACE_PREFIX)).count()).sum();
    }

    @Test
    void resendsInsideTheCooldownNeverTakeFromTheSmsBudgetAndAnotherUserStillGetsAnSms() {
        // The red team's run: one user posts the same number 26 times in 30 seconds under a budget of 20.
        RateLimitPolicy budget = new RateLimitPolicy(20, Duration.ofHours(1));
        Verification budgeted = build(keys(), outbox(), VerificationSettings.defaults().withSmsBudget(Optional.of(budget)));
        assertThat(budgeted.codes().issue(smsTo("red", BUDGET_NUMBER))).isInstanceOf(IssueResult.Issued.class);
        for (int again = 1; again <= 25; again++) {
            clock().advance(Duration.ofMillis(1100));
            assertRefusedBy(budgeted.codes().issue(smsTo("red", BUDGET_NUMBER)), "RESEND_PHONE_VERIFICATION");
        }

        assertThat(smsBudgetHeld(budgeted, budget)).isEqualTo(1);
        assertThat(smsBudgetMarks()).as("the sent SMS holds no mark").isZero();
        assertThat(budgeted.codes().issue(smsTo("blue", "+447700123402"))).isInstanceOf(IssueResult.Issued.class);
        assertThat(smsBudgetHeld(budgeted, budget)).isEqualTo(2);
    }

    @Test
    void ofTwelveSimultaneousSmsOfOneUserInsideTheCooldownExactlyOneTakesAPlaceInTheBudget() throws Exception {
        RateLimitPolicy budget = new RateLimitPolicy(2, Duration.ofHours(1));
        Verification budgeted = build(keys(), outbox(), VerificationSettings.defaults().withSmsBudget(Optional.of(budget)));

        List<IssueResult> results = runConcurrently(12, () -> budgeted.codes().issue(smsTo("storm", BUDGET_NUMBER)));

        assertThat(results).filteredOn(IssueResult.Issued.class::isInstance).hasSize(1);
        assertThat(results).filteredOn(result -> !(result instanceof IssueResult.Issued)).hasSize(11)
                .allSatisfy(result -> assertThat(result).isInstanceOf(IssueResult.RateLimited.class))
                .extracting(result -> ((IssueResult.RateLimited) result).action()).doesNotContain("SMS_BUDGET");
        assertThat(smsBudgetHeld(budgeted, budget)).isEqualTo(1);
        // The budget's second place is still there for someone else, and then it is spent.
        assertThat(budgeted.codes().issue(smsTo("calm", "+447700123402"))).isInstanceOf(IssueResult.Issued.class);
        assertRefusedBy(budgeted.codes().issue(smsTo("late", "+447700123403")), "SMS_BUDGET");
    }

    @Test
    void aSmsTheBudgetRefusesReleasesTheUsersCooldownAndHoldsNothing() {
        RateLimitPolicy budget = new RateLimitPolicy(1, Duration.ofHours(1));
        Verification budgeted = build(keys(), outbox(), VerificationSettings.defaults().withSmsBudget(Optional.of(budget)));
        assertThat(budgeted.codes().issue(smsTo("first", BUDGET_NUMBER))).isInstanceOf(IssueResult.Issued.class);

        assertRefusedBy(budgeted.codes().issue(smsTo("second", "+447700123402")), "SMS_BUDGET");

        assertThat(budgeted.rateLimiter().current("second", "SEND_PHONE_VERIFICATION",
                VerificationSettings.DEFAULT_SEND_LIMIT).count()).isZero();
        assertThat(smsBudgetHeld(budgeted, budget)).isEqualTo(1);
        // No cooldown holds "second" back: once the budget has room again (an operator clears it), at the same
        // instant, the SMS goes out.
        budgeted.rateLimiter().reset("global", "SMS_BUDGET");
        assertThat(budgeted.codes().issue(smsTo("second", "+447700123402"))).isInstanceOf(IssueResult.Issued.class);
    }

    @Test
    void aPlaceKeptStaysCountedWithoutAWriteAndAPlaceGivenBackTwiceCountsDownOnce() {
        Place kept = placeOf("kai", "SMS_BUDGET", "attempt-1");
        Place open = placeOf("kai", "SMS_BUDGET", "attempt-2");
        assertThat(store().counters().takePlace(kept, 5)).isEqualTo(1);
        assertThat(store().counters().takePlace(open, 5)).isEqualTo(2);

        assertThat(verification().rateLimiter().current("kai", "SMS_BUDGET", FIVE).count()).isEqualTo(2);
        store().counters().givePlaceBack(open);
        store().counters().givePlaceBack(open);
        assertThat(verification().rateLimiter().current("kai", "SMS_BUDGET", FIVE).count()).isEqualTo(1);
        assertThat(allRawItems()).filteredOn(item -> "kai".equals(item.get("userId")) && "SMS_BUDGET".equals(item.get("action")))
                .singleElement().satisfies(item -> assertThat(item.keySet())
                        .filteredOn(name -> name.startsWith(ItemAttributes.GIVE_BACK_PREFIX))
                        .as("the give-back's mark, no place's").containsExactly(RateLimitItems.giveBackAttribute("attempt-2")));
    }

    @Test
    void aReleasedCooldownIsFreeAgainAndOnlyItsOwnClaimIsEverReleased() {
        Cooldown mine = new Cooldown("cal", "RESEND_EMAIL_VERIFICATION", START, Duration.ofSeconds(30), "attempt-1");
        Cooldown other = new Cooldown("cal", "RESEND_EMAIL_VERIFICATION", START.plusSeconds(1), Duration.ofSeconds(30),
                "attempt-2");
        assertThat(store().counters().claimCooldown(mine)).isEmpty();

        store().counters().releaseCooldown(other);
        assertThat(store().counters().claimCooldown(other)).as("another attempt's release left it held").isPresent();

        store().counters().releaseCooldown(mine);
        store().counters().releaseCooldown(mine);
        assertThat(store().counters().claimCooldown(other)).as("free once released").isEmpty();
        store().counters().releaseCooldown(mine);
        Cooldown third = new Cooldown("cal", "RESEND_EMAIL_VERIFICATION", START.plusSeconds(2), Duration.ofSeconds(30),
                "attempt-3");
        assertThat(store().counters().claimCooldown(third)).as("a late retry of the first release frees nobody else's claim")
                .contains(START.plusSeconds(31));
    }
}
