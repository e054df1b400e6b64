package dev.verificationservice.store.memory;

import dev.verificationservice.VerificationStore;
import dev.verificationservice.ratelimit.CounterWindow;
import dev.verificationservice.ratelimit.RateLimitCounter;
import dev.verificationservice.ratelimit.RateLimiter;
import dev.verificationservice.store.contract.AbstractVerificationStoreContractTest;
import dev.verificationservice.table.AuditItems;
import dev.verificationservice.table.CodeItems;
import dev.verificationservice.table.DeviceItems;
import dev.verificationservice.table.EventItems;
import dev.verificationservice.table.IdempotencyItems;
import dev.verificationservice.table.ItemAttributes;
import dev.verificationservice.table.RateLimitItems;
import dev.verificationservice.table.RecoveryCodeItems;
import dev.verificationservice.table.TotpItems;
import dev.verificationservice.testsupport.time.MutableClock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The contract suite on the reference store in memory, every part of it. The store keeps the domain's records, not
 * items, so the raw view of the suite is those records written as the table's items by the table model's own
 * mappers: each stored record holds nothing but what its item holds, so a scan of these items sees all it keeps.
 */
class MemoryVerificationStoreTest extends AbstractVerificationStoreContractTest {

    @Override
    protected VerificationStore openStore(MutableClock clock) {
        return new MemoryVerificationStore();
    }

    /** The store is its state: a second service on it is what a second instance on one table is elsewhere. */
    @Override
    protected VerificationStore openAnotherInstance(MutableClock clock) {
        return store;
    }

    private MemoryVerificationStore memory() {
        return (MemoryVerificationStore) store;
    }

    /**
     * The suite puts counter items (a counter at its most places) and deliveries (as the previous release wrote them:
     * the memory store keeps no keys, so it holds them as any other); any other item is refused.
     */
    @Override
    public void putRawItem(Map<String, Object> item) {
        if (item.containsKey(ItemAttributes.DELIVERY_STATUS)) {
            store.webhooks().putDelivery(EventItems.delivery(item));
            return;
        }
        if (!item.containsKey(ItemAttributes.ACTION) || !item.containsKey(ItemAttributes.COUNT)) {
            throw new IllegalArgumentException("the memory store takes raw counter items only: " + item.keySet());
        }
        RateLimitCounter counter = RateLimitItems.counter(item);
        // The previous release's place_ marks are ignored, as every store ignores them.
        Map<Integer, String> givenBack = new LinkedHashMap<>();
        item.forEach((name, value) -> {
            if (name.startsWith(ItemAttributes.GIVE_BACK_PREFIX)) {
                givenBack.put(Integer.parseInt(name.substring(ItemAttributes.GIVE_BACK_PREFIX.length())), (String) value);
            }
        });
        memory().putCounter(new MemoryCounters.Counter(new CounterWindow(counter.userId(), counter.action(),
                counter.windowStart(), counter.expiresAt()), counter.count(), givenBack));
    }

    @Override
    public List<Map<String, Object>> allRawItems() {
        MemoryVerificationStore.Contents contents = memory().contents();
        List<Map<String, Object>> items = new ArrayList<>();
        for (MemoryCodes.StoredCode stored : contents.codes()) {
            Map<String, Object> item = CodeItems.codeItem(stored.code(), stored.issuedBy());
            stored.consumedBy().ifPresent(attempt -> item.put(ItemAttributes.CONSUMED_BY, attempt));
            items.add(item);
        }
        contents.devices().forEach(token -> items.add(DeviceItems.deviceItem(token)));
        contents.revocations().forEach(marker -> items.add(DeviceItems.revocationItem(marker.userId(),
                marker.revokedBefore(), marker.expiresAt())));
        for (MemoryAudit.StoredEntry stored : contents.audit()) {
            items.add(AuditItems.auditItem(stored.entry(), stored.undelivered()));
        }
        for (MemoryCounters.Counter counter : contents.counters()) {
            CounterWindow window = counter.window();
            Map<String, Object> item = RateLimitItems.counterItem(window.userId(), window.action(), window.windowStart(),
                    window.expiresAt(), counter.count());
            counter.givenBack().forEach((slot, attempt) -> item.put(ItemAttributes.GIVE_BACK_PREFIX + slot, attempt));
            items.add(item);
        }
        contents.cooldowns().forEach(claim -> items.add(RateLimitItems.cooldownItem(claim,
                claim.endsAt().plus(RateLimiter.COUNTER_GRACE))));
        contents.idempotencyKeys().forEach(record -> items.add(IdempotencyItems.idempotencyItem(record)));
        for (MemoryTotpFactors.StoredFactor stored : contents.factors()) {
            Map<String, Object> item = TotpItems.totpFactorItem(stored.factor());
            stored.acceptedBy().ifPresent(attempt -> item.put(ItemAttributes.ACCEPTED_BY, attempt));
            items.add(item);
        }
        for (MemoryRecoveryCodes.StoredCode stored : contents.recoveryCodes()) {
            Map<String, Object> item = RecoveryCodeItems.recoveryCodeItem(stored.code());
            stored.usedBy().ifPresent(attempt -> item.put(ItemAttributes.USED_BY, attempt));
            items.add(item);
        }
        contents.recoverySets().forEach((userId, setId) -> items.add(RecoveryCodeItems.recoverySetItem(userId, setId)));
        contents.endpoints().forEach(endpoint -> items.add(EventItems.endpointItem(endpoint)));
        contents.deliveries().forEach(delivery -> items.add(EventItems.deliveryItem(delivery)));
        return items;
    }
}
