package dev.verificationservice.codes;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditRepository;
import dev.verificationservice.ratelimit.Cooldown;
import dev.verificationservice.ratelimit.Place;
import dev.verificationservice.ratelimit.RateLimitCounter;
import dev.verificationservice.ratelimit.RateLimitRepository;
import dev.verificationservice.recovery.RecoveryCode;
import dev.verificationservice.recovery.RecoveryCodeRepository;
import dev.verificationservice.recovery.RecoveryCodeReplacement;
import dev.verificationservice.recovery.RecoveryCodeUse;
import dev.verificationservice.recovery.RecoveryUseOutcome;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.totp.StepAcceptance;
import dev.verificationservice.totp.StepOutcome;
import dev.verificationservice.totp.TotpFactor;
import dev.verificationservice.totp.TotpRepository;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The parts of the store a send touches, in memory, for the core's own tests: counters with marks, cooldowns,
 * codes and audit entries; and the TOTP factors and recovery codes, with their conditional writes, for the rules of
 * the TOTP and recovery services (the stores prove the same conditions through the contract suite). It can fail
 * chosen calls, and hold the first calls of a send at a gate until a given number of them are in flight together
 * (which calls that run one after another never are).
 */
public final class InMemoryStore implements CodeRepository, RateLimitRepository, AuditRepository, TotpRepository,
        RecoveryCodeRepository {

    private record WindowKey(String subject, String action, Instant windowStart) {
    }

    private static final class Counter {
        long count;
        final Set<String> marks = new HashSet<>();
    }

    private record Claim(Instant busyUntil, String claimedBy) {
    }

    private final Map<WindowKey, Counter> counters = new HashMap<>();
    private final Map<String, Claim> cooldowns = new HashMap<>();
    private final Map<String, VerificationCode> codes = new LinkedHashMap<>();
    private final Map<String, String> issueIds = new HashMap<>();
    private final List<AuditEntry> audit = new ArrayList<>();
    private final Map<String, TotpFactor> factors = new LinkedHashMap<>();
    private final Map<String, String> acceptedBy = new HashMap<>();
    private final Map<String, RecoveryCode> recoveryCodes = new LinkedHashMap<>();
    private final Map<String, String> recoveryUsedBy = new HashMap<>();
    /** userId -> the id of the user's current set. */
    private final Map<String, String> recoverySets = new HashMap<>();
    private Runnable afterRecoverySetRead = () -> { };
    private final List<String> givenBack = new ArrayList<>();
    private final List<String> placeRequests = new ArrayList<>();
    private final List<String> counterDeletions = new ArrayList<>();
    private final Set<String> failing = new HashSet<>();
    private final Set<String> losingAnswers = new HashSet<>();
    private volatile Gate gate = Gate.OPEN;

    /**
     * Holds the next {@code calls} reads and place-takings until all of them have arrived; a call that waits
     * longer than the timeout fails, so calls made one after another fail the send instead of hanging.
     */
    synchronized void holdUntilTogether(int calls) {
        gate = new Gate(calls);
    }

    /**
     * Makes every later call of this kind fail: {@code takePlace:<action>}, {@code findCode}, {@code findCodes},
     * {@code findCounters}, {@code insertCode}.
     */
    synchronized void fail(String call) {
        failing.add(call);
    }

    /** The places held now in every window of an action, all subjects together. */
    public synchronized long held(String action) {
        return counters.entrySet().stream().filter(entry -> entry.getKey().action().equals(action))
                .mapToLong(entry -> entry.getValue().count).sum();
    }

    /** How many places of an action were asked for so far, granted or not. */
    public synchronized long placeRequests(String action) {
        return placeRequests.stream().filter(action::equals).count();
    }

    /** The actions whose counters were deleted so far (a reset or a lift), in order. */
    public synchronized List<String> counterDeletions() {
        return List.copyOf(counterDeletions);
    }

    /** The actions of the places given back so far, in order. */
    synchronized List<String> givenBack() {
        return List.copyOf(givenBack);
    }

    synchronized boolean cooldownClaimed(String userId, String action) {
        return cooldowns.containsKey(userId + "|" + action);
    }

    synchronized List<VerificationCode> allCodes() {
        return List.copyOf(codes.values());
    }

    /**
     * Applies every later call of this kind, then fails it as if its answer were lost (the SDK's attempts ran out
     * after the write landed): {@code takePlace:<action>}, {@code claimCooldown}.
     */
    synchronized void loseAnswers(String call) {
        losingAnswers.add(call);
    }

    private synchronized void loseAnswerIfAsked(String call) {
        if (losingAnswers.contains(call)) {
            throw new StoreException("answer lost on purpose: " + call);
        }
    }

    private synchronized void failIfAsked(String call) {
        if (failing.contains(call)) {
            throw new StoreException("failed on purpose: " + call);
        }
    }

    // Rate limits

    @Override
    public long takePlace(Place place, long ceiling) {
        if (place.attemptId().isPresent()) {
            gate.pass();
        }
        failIfAsked("takePlace:" + place.window().action());
        synchronized (this) {
            placeRequests.add(place.window().action());
            Counter counter = counters.computeIfAbsent(key(place), ignored -> new Counter());
            if (place.attemptId().isPresent() && counter.marks.contains(place.attemptId().get())) {
                return counter.count;
            }
            if (counter.count >= ceiling) {
                return ceiling + 1;
            }
            counter.count++;
            place.attemptId().ifPresent(counter.marks::add);
            loseAnswerIfAsked("takePlace:" + place.window().action());
            return counter.count;
        }
    }

    @Override
    public synchronized void givePlaceBack(Place place) {
        Counter counter = counters.get(key(place));
        if (counter != null && place.attemptId().isPresent() && counter.marks.remove(place.attemptId().get())) {
            counter.count--;
            givenBack.add(place.window().action());
        }
    }

    @Override
    public synchronized void keepPlace(Place place) {
        Counter counter = counters.get(key(place));
        if (counter != null) {
            place.attemptId().ifPresent(counter.marks::remove);
        }
    }

    /** The marks held now in every window of an action: places taken whose outcome is still open. */
    public synchronized long marks(String action) {
        return counters.entrySet().stream().filter(entry -> entry.getKey().action().equals(action))
                .mapToLong(entry -> entry.getValue().marks.size()).sum();
    }

    private static WindowKey key(Place place) {
        return new WindowKey(place.window().userId(), place.window().action(), place.window().windowStart());
    }

    @Override
    public synchronized int deleteCounters(String userId, String action) {
        counterDeletions.add(action);
        int before = counters.size();
        counters.keySet().removeIf(key -> key.subject().equals(userId) && key.action().equals(action));
        return before - counters.size();
    }

    @Override
    public synchronized Optional<RateLimitCounter> findCounter(String userId, String action, Instant windowStart,
                                                               Instant now) {
        return Optional.ofNullable(counters.get(new WindowKey(userId, action, windowStart)))
                .map(counter -> new RateLimitCounter(userId, action, windowStart, counter.count, Instant.MAX));
    }

    @Override
    public List<RateLimitCounter> findCounters(String userId, String action, Instant fromWindowStart,
                                               Instant toWindowStart, Instant now) {
        gate.pass();
        failIfAsked("findCounters");
        synchronized (this) {
            return counters.entrySet().stream()
                    .filter(entry -> entry.getKey().subject().equals(userId) && entry.getKey().action().equals(action))
                    .filter(entry -> !entry.getKey().windowStart().isBefore(fromWindowStart)
                            && !entry.getKey().windowStart().isAfter(toWindowStart))
                    .sorted(Comparator.comparing(entry -> entry.getKey().windowStart()))
                    .map(entry -> new RateLimitCounter(userId, action, entry.getKey().windowStart(),
                            entry.getValue().count, Instant.MAX))
                    .toList();
        }
    }

    @Override
    public synchronized Optional<Instant> claimCooldown(Cooldown cooldown) {
        String key = cooldown.userId() + "|" + cooldown.action();
        Claim claim = cooldowns.get(key);
        if (claim == null || !claim.busyUntil().isAfter(cooldown.now()) || claim.claimedBy().equals(cooldown.attemptId())) {
            cooldowns.put(key, new Claim(cooldown.endsAt(), cooldown.attemptId()));
            loseAnswerIfAsked("claimCooldown");
            return Optional.empty();
        }
        return Optional.of(claim.busyUntil());
    }

    @Override
    public synchronized void releaseCooldown(Cooldown cooldown) {
        String key = cooldown.userId() + "|" + cooldown.action();
        Claim claim = cooldowns.get(key);
        if (claim != null && claim.claimedBy().equals(cooldown.attemptId())) {
            cooldowns.remove(key);
        }
    }

    // Codes

    @Override
    public boolean insertCode(VerificationCode code, String issueId) {
        failIfAsked("insertCode");
        return insert(code, issueId);
    }

    private synchronized boolean insert(VerificationCode code, String issueId) {
        if (codes.containsKey(code.digest())) {
            return issueId.equals(issueIds.get(code.digest()));
        }
        codes.put(code.digest(), code);
        issueIds.put(code.digest(), issueId);
        return true;
    }

    @Override
    public synchronized Optional<VerificationCode> findCode(String digest) {
        failIfAsked("findCode");
        return Optional.ofNullable(codes.get(digest));
    }

    @Override
    public ConsumeOutcome consumeCode(CodeConsumption consumption) {
        throw new UnsupportedOperationException("not needed by a send");
    }

    @Override
    public synchronized List<VerificationCode> deleteCodes(String userId, CodeType codeType,
                                                           Optional<CodeFormat> format) {
        List<VerificationCode> deleted = findCodesNow(userId, codeType).stream()
                .filter(code -> format.map(code.format()::equals).orElse(true)).toList();
        deleted.forEach(code -> codes.remove(code.digest()));
        return deleted;
    }

    /** No index lag here: the stored codes the new one replaces are deleted (or it, when a newer one is stored). */
    @Override
    public synchronized List<VerificationCode> makeCurrent(VerificationCode code) {
        List<VerificationCode> deleted = VerificationCode.replacedBy(code, findCodesNow(code.userId(), code.codeType()));
        deleted.forEach(other -> codes.remove(other.digest()));
        return deleted;
    }

    @Override
    public List<VerificationCode> findCodes(String userId, CodeType codeType) {
        gate.pass();
        failIfAsked("findCodes");
        synchronized (this) {
            return findCodesNow(userId, codeType);
        }
    }

    private List<VerificationCode> findCodesNow(String userId, CodeType codeType) {
        return codes.values().stream().filter(code -> code.userId().equals(userId) && code.codeType() == codeType)
                .toList();
    }

    @Override
    public synchronized void deleteCode(String digest) {
        codes.remove(digest);
    }

    // Audit

    @Override
    public synchronized boolean appendAudit(AuditEntry entry) {
        audit.add(entry);
        return true;
    }

    @Override
    public synchronized List<AuditEntry> queryAudit(String userId, Instant from, Instant to,
                                                    Optional<AuditPosition> before, int limit, Instant now) {
        List<AuditEntry> entries = new ArrayList<>();
        for (int i = audit.size() - 1; i >= 0 && entries.size() < limit; i--) {
            AuditEntry entry = audit.get(i);
            if (entry.userId().equals(userId) && !entry.timestamp().isBefore(from) && !entry.timestamp().isAfter(to)) {
                entries.add(entry);
            }
        }
        return entries;
    }

    /** Every audit entry written so far, oldest first. */
    public synchronized List<AuditEntry> auditEntries() {
        return List.copyOf(audit);
    }

    // TOTP factors: each conditional write checks its condition and writes everything it carries under one lock.

    private static String factorKey(String userId, String factorId) {
        return userId + "|" + factorId;
    }

    /** Every stored factor, of every user: what a scan of the table would find. */
    public synchronized List<TotpFactor> allFactors() {
        return List.copyOf(factors.values());
    }

    @Override
    public synchronized boolean insertFactor(TotpFactor factor, AuditEntry enrolled, int maxFactors) {
        if (findFactors(factor.userId()).stream().filter(stored -> !stored.isExpiredAt(factor.createdAt())).count()
                >= maxFactors) {
            return false;
        }
        if (factors.putIfAbsent(factorKey(factor.userId(), factor.factorId()), factor) != null) {
            throw new StoreException("factor " + factor.factorId() + " exists");
        }
        audit.add(enrolled);
        return true;
    }

    @Override
    public synchronized List<TotpFactor> findFactors(String userId) {
        return factors.values().stream().filter(factor -> factor.userId().equals(userId)).toList();
    }

    @Override
    public synchronized Optional<TotpFactor> findFactor(String userId, String factorId) {
        return Optional.ofNullable(factors.get(factorKey(userId, factorId)));
    }

    @Override
    public synchronized StepOutcome confirmFactor(StepAcceptance confirmation) {
        String key = factorKey(confirmation.userId(), confirmation.factorId());
        TotpFactor factor = factors.get(key);
        if (factor != null && confirmation.attemptId().equals(acceptedBy.get(key))) {
            return new StepOutcome.Accepted();
        }
        if (factor == null || factor.confirmed()
                || factor.expiresAt().map(end -> !end.isAfter(confirmation.now())).orElse(true)) {
            return new StepOutcome.Refused(Optional.ofNullable(factor));
        }
        return accept(key, factor, confirmation, true);
    }

    @Override
    public synchronized StepOutcome acceptStep(StepAcceptance acceptance) {
        String key = factorKey(acceptance.userId(), acceptance.factorId());
        TotpFactor factor = factors.get(key);
        if (factor != null && acceptance.attemptId().equals(acceptedBy.get(key))) {
            return new StepOutcome.Accepted();
        }
        if (factor == null || !factor.confirmed() || factor.lastAcceptedStep() >= acceptance.step()) {
            return new StepOutcome.Refused(Optional.ofNullable(factor));
        }
        return accept(key, factor, acceptance, false);
    }

    private StepOutcome accept(String key, TotpFactor factor, StepAcceptance write, boolean confirming) {
        factors.put(key, new TotpFactor(factor.userId(), factor.factorId(), factor.label(), factor.issuer(),
                factor.algorithm(), factor.digits(), factor.period(), write.resealed().orElse(factor.secret()), true,
                factor.createdAt(), Optional.empty(), write.step(),
                confirming ? factor.lastUsedAt() : Optional.of(write.now())));
        acceptedBy.put(key, write.attemptId());
        audit.add(write.entry());
        write.placeToGiveBack().ifPresent(this::givePlaceBack);
        return new StepOutcome.Accepted();
    }

    @Override
    public synchronized List<TotpFactor> deleteFactors(String userId, Optional<String> factorId) {
        List<TotpFactor> deleted = findFactors(userId).stream()
                .filter(factor -> factorId.map(factor.factorId()::equals).orElse(true)).toList();
        deleted.forEach(factor -> factors.remove(factorKey(userId, factor.factorId())));
        return deleted;
    }

    // Recovery codes

    /** Stores the codes as given, bypassing every condition: for fixtures only. */
    public synchronized void putRecoveryCodes(List<RecoveryCode> codes) {
        codes.forEach(code -> recoveryCodes.put(factorKey(code.userId(), code.digest()), code));
    }

    /** Every stored recovery code, of every user. */
    public synchronized List<RecoveryCode> allRecoveryCodes() {
        return List.copyOf(recoveryCodes.values());
    }

    /** Runs {@code interloper} once, right after the next read of a user's current set: a write between two reads. */
    public synchronized void afterNextRecoverySetRead(Runnable interloper) {
        afterRecoverySetRead = interloper;
    }

    @Override
    public Optional<String> currentRecoverySet(String userId) {
        Optional<String> current;
        Runnable interloper;
        synchronized (this) {
            current = Optional.ofNullable(recoverySets.get(userId));
            interloper = afterRecoverySetRead;
            afterRecoverySetRead = () -> { };
        }
        interloper.run();
        return current;
    }

    @Override
    public synchronized boolean replaceRecoveryCodes(RecoveryCodeReplacement replacement) {
        String userId = replacement.userId();
        Optional<String> current = Optional.ofNullable(recoverySets.get(userId));
        if (current.equals(Optional.of(replacement.setId()))) {
            return true; // this replacement, written before
        }
        if (!current.equals(replacement.replaces())) {
            return false;
        }
        replacement.voided().forEach(code -> recoveryCodes.remove(factorKey(userId, code.digest())));
        replacement.issued().forEach(code -> recoveryCodes.put(factorKey(userId, code.digest()), code));
        recoverySets.put(userId, replacement.setId());
        audit.add(replacement.issuedEntry());
        return true;
    }

    @Override
    public synchronized List<RecoveryCode> findRecoveryCodes(String userId) {
        return recoveryCodes.values().stream().filter(code -> code.userId().equals(userId)).toList();
    }

    @Override
    public synchronized RecoveryUseOutcome useRecoveryCode(RecoveryCodeUse use) {
        String key = factorKey(use.userId(), use.digest());
        RecoveryCode code = recoveryCodes.get(key);
        if (code != null && use.attemptId().equals(recoveryUsedBy.get(key))) {
            return new RecoveryUseOutcome.Used();
        }
        if (code == null || code.used() || !code.setId().equals(use.setId())) {
            return new RecoveryUseOutcome.Refused(Optional.ofNullable(code));
        }
        recoveryCodes.put(key, new RecoveryCode(code.userId(), code.digest(), code.setId(), code.issuedAt(), true,
                Optional.of(use.now())));
        recoveryUsedBy.put(key, use.attemptId());
        audit.add(use.used());
        use.placeToGiveBack().ifPresent(this::givePlaceBack);
        return new RecoveryUseOutcome.Used();
    }

    @Override
    public synchronized List<RecoveryCode> deleteRecoveryCodes(String userId) {
        List<RecoveryCode> deleted = findRecoveryCodes(userId);
        deleted.forEach(code -> recoveryCodes.remove(factorKey(userId, code.digest())));
        return deleted;
    }

    /** Holds calls until {@code expected} of them are in flight at once; afterwards lets every call through. */
    private static final class Gate {

        static final Gate OPEN = new Gate(0);

        private final CountDownLatch arrived;
        private final AtomicInteger admitted = new AtomicInteger();
        private final int expected;

        Gate(int expected) {
            this.expected = expected;
            this.arrived = new CountDownLatch(expected);
        }

        void pass() {
            if (admitted.incrementAndGet() > expected) {
                return;
            }
            arrived.countDown();
            try {
                if (!arrived.await(10, TimeUnit.SECONDS)) {
                    throw new IllegalStateException("only " + (expected - arrived.getCount()) + " of " + expected
                            + " calls were in flight together");
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
        }
    }
}
