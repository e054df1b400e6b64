package dev.verificationservice.store.contract;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.Verification;
import dev.verificationservice.VerificationSettings;
import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.AuditPage;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.codes.CodeRequest;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryMethod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The audit log: newest first, paged by cursor, within a time range, kept for its retention. */
public abstract class AuditContract extends ContractPart {

    protected AuditContract(ContractFixture fixture) {
        super(fixture);
    }

    @Test
    void auditHistoryIsNewestFirstAndPagesWithACursor() {
        for (int i = 0; i < 7; i++) {
            verification().audit().recordSuccess("fay", AuditEventType.CODE_SENT, Map.of("n", Integer.toString(i)),
                    ClientContext.none());
            clock().advance(Duration.ofSeconds(1));
        }
        List<String> seen = new ArrayList<>();
        Optional<String> cursor = Optional.empty();
        List<Integer> pageSizes = new ArrayList<>();
        do {
            AuditPage page = verification().audit().query("fay", Optional.empty(), Optional.empty(), Optional.of(3), cursor);
            pageSizes.add(page.entries().size());
            page.entries().forEach(entry -> seen.add(entry.details().get("n")));
            cursor = page.nextCursor();
        } while (cursor.isPresent());

        assertThat(pageSizes).containsExactly(3, 3, 1);
        assertThat(seen).containsExactly("6", "5", "4", "3", "2", "1", "0");
    }

    @Test
    void aCursorOutsideTheQueriedRangeIsRefusedOrEndsThePage() {
        for (int i = 0; i < 4; i++) {
            verification().audit().recordSuccess("fay", AuditEventType.CODE_SENT, Map.of(), ClientContext.none());
            clock().advance(Duration.ofMinutes(1));
        }
        String cursor = verification().audit().query("fay", Optional.empty(), Optional.empty(), Optional.of(1),
                Optional.empty()).nextCursor().orElseThrow();

        assertField(() -> verification().audit().query("fay", Optional.empty(), Optional.of(START), Optional.of(1),
                Optional.of(cursor)), "cursor");
        assertThat(verification().audit().query("fay", Optional.of(START.plus(Duration.ofMinutes(10))),
                Optional.of(START.plus(Duration.ofMinutes(20))), Optional.of(1), Optional.of(cursor)).entries()).isEmpty();
        assertThat(verification().audit().query("fay", Optional.empty(), Optional.empty(), Optional.of(10),
                Optional.of(cursor)).entries()).hasSize(3);
    }

    @Test
    void auditHistoryHonoursTheTimeRange() {
        for (int i = 0; i < 5; i++) {
            verification().audit().recordSuccess("fay", AuditEventType.CODE_SENT, Map.of("n", Integer.toString(i)),
                    ClientContext.none());
            clock().advance(Duration.ofMinutes(1));
        }
        AuditPage page = verification().audit().query("fay", Optional.of(START.plus(Duration.ofMinutes(1))),
                Optional.of(START.plus(Duration.ofMinutes(3))), Optional.empty(), Optional.empty());

        assertThat(page.entries()).extracting(entry -> entry.details().get("n")).containsExactly("3", "2", "1");
        assertThat(page.nextCursor()).isEmpty();
    }

    @Test
    void auditEntriesPastRetentionAreNotListedThoughStillStored() {
        verification().audit().recordSuccess("fay", AuditEventType.CODE_SENT, Map.of(), ClientContext.none());
        clock().advance(Duration.ofDays(90).minusSeconds(1));
        assertThat(auditTypes("fay")).hasSize(1);

        clock().advance(Duration.ofSeconds(1));
        assertThat(auditTypes("fay")).isEmpty();
        assertThat(allRawItems()).hasSize(1);
    }

    @Test
    void aPageIsFilledPastEntriesThatExpiredBeforeItsOlderOnes() {
        // Older entries kept 90 days, then newer ones kept a day: two days later the newest ten have expired while
        // the five below them have not. A page must reach past the expired ones (on DynamoDB the filter runs after
        // the Limit, so the store has to follow the query's pages).
        Verification shortRetention = build(keys(), outbox(), VerificationSettings.defaults()
                .withAuditRetention(Optional.of(Duration.ofDays(1))));
        for (int i = 0; i < 5; i++) {
            verification().audit().recordSuccess("gil", AuditEventType.CODE_SENT, Map.of("n", "kept-" + i),
                    ClientContext.none());
            clock().advance(Duration.ofSeconds(1));
        }
        for (int i = 0; i < 10; i++) {
            shortRetention.audit().recordSuccess("gil", AuditEventType.CODE_VERIFIED, Map.of("n", "gone-" + i),
                    ClientContext.none());
            clock().advance(Duration.ofSeconds(1));
        }
        clock().advance(Duration.ofDays(2));

        AuditPage page = verification().audit().query("gil", Optional.empty(), Optional.empty(), Optional.of(2),
                Optional.empty());

        assertThat(page.entries()).extracting(entry -> entry.details().get("n")).containsExactly("kept-4", "kept-3");
        assertThat(page.nextCursor()).isPresent();
        assertThat(allRawItems()).hasSize(15);
    }

    @Test
    void foreverRetentionWritesNoTtlAndKeepsEntries() {
        Verification forever = build(keys(), outbox(), VerificationSettings.defaults().withAuditRetention(Optional.empty()));
        forever.audit().recordSuccess("fay", AuditEventType.CODE_SENT, Map.of(), ClientContext.none());

        assertThat(allRawItems()).singleElement().satisfies(item -> assertThat(item).doesNotContainKey("ttl"));
        clock().advance(Duration.ofDays(3650));
        assertThat(auditTypes("fay")).containsExactly(AuditEventType.CODE_SENT);
    }

    @Test
    void auditEntriesCarryTheClientContextAndMaskedTargets() {
        verification().codes().issue(CodeRequest.of("gus", CodeType.PHONE_VERIFICATION, DeliveryMethod.SMS, "+447700123456")
                .withClient(ClientContext.of("2001:db8::1", "curl/8", "phone-1")));

        AuditEntry sent = verification().audit().query("gus", Optional.empty(), Optional.empty(), Optional.empty(),
                Optional.empty()).entries().get(0);
        assertThat(sent.eventType()).isEqualTo(AuditEventType.CODE_SENT);
        assertThat(sent.ipAddress()).contains("2001:db8::1");
        assertThat(sent.userAgent()).contains("curl/8");
        assertThat(sent.deviceId()).contains("phone-1");
        assertThat(sent.success()).isTrue();
        assertThat(sent.details()).containsEntry("deliveryTarget", "+44******3456").containsEntry("codeType",
                "PHONE_VERIFICATION");
    }

    @Test
    void aThousandAuditEventsAtOneInstantGiveAThousandEntries() throws Exception {
        runConcurrently(1000, () -> verification().audit().recordSuccess("kim", AuditEventType.CODE_SENT, Map.of(),
                ClientContext.none()));

        Set<String> entryIds = new HashSet<>();
        Optional<String> cursor = Optional.empty();
        do {
            AuditPage page = verification().audit().query("kim", Optional.empty(), Optional.empty(), Optional.of(100), cursor);
            page.entries().forEach(entry -> entryIds.add(entry.entryId()));
            cursor = page.nextCursor();
        } while (cursor.isPresent());
        assertThat(entryIds).hasSize(1000);
        assertThat(allRawItems()).hasSize(1000);
    }
}
