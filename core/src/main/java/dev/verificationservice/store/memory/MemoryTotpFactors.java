package dev.verificationservice.store.memory;

import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.totp.StepAcceptance;
import dev.verificationservice.totp.StepOutcome;
import dev.verificationservice.totp.TotpFactor;
import dev.verificationservice.totp.TotpRepository;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * Authenticator-app factors in memory, by user and factor id.
 *
 * <p><b>Algorithm.</b>
 * <ol>
 *   <li>Enrol: refused (false, nothing written) when the user holds {@code maxFactors} factors not expired at the
 *   new factor's creation; a taken factor key or entry key is a StoreException (nothing written); otherwise the
 *   pending factor and its {@code TOTP_ENROLLED} entry are stored. The count and the write are one step under the
 *   store's lock, so concurrent enrolments never pass the cap.</li>
 *   <li>Confirm ({@link MemoryAttempts}): the condition is a stored factor, not confirmed, unexpired at {@code now};
 *   the change confirms it, drops its ttl and sets the confirming code's step.</li>
 *   <li>Accept a step, the replay rule ({@link MemoryAttempts}): the condition is a confirmed factor whose
 *   {@code lastAcceptedStep} is before the step; the change sets the step and {@code lastUsedAt}.</li>
 *   <li>Both stamp the factor with the attempt's id (a retry of it wins again) and replace the sealed secret when the
 *   write carries a re-sealed one.</li>
 *   <li>Find and delete: the user's factors by factor id, pending and expired ones included.</li>
 * </ol>
 */
final class MemoryTotpFactors implements TotpRepository {

    /** A factor as the store keeps it: with the attempt that last confirmed it or accepted a step, if one did. */
    record StoredFactor(TotpFactor factor, Optional<String> acceptedBy) {
    }

    private record Key(String userId, String factorId) {
    }

    private final Object lock;
    private final MemoryAudit audit;
    private final MemoryAttempts attempts;
    private final Map<Key, StoredFactor> factors = new LinkedHashMap<>();

    MemoryTotpFactors(Object lock, MemoryAudit audit, MemoryAttempts attempts) {
        this.lock = lock;
        this.audit = audit;
        this.attempts = attempts;
    }

    @Override
    public boolean insertFactor(TotpFactor factor, AuditEntry enrolled, int maxFactors) {
        synchronized (lock) {
            if (findFactors(factor.userId()).stream().filter(stored -> !stored.isExpiredAt(factor.createdAt()))
                    .count() >= maxFactors) {
                return false;
            }
            Key key = new Key(factor.userId(), factor.factorId());
            if (factors.containsKey(key)) {
                throw new StoreException("factor enrolment refused: factor " + factor.factorId()
                        + " of this user exists already; nothing was written");
            }
            audit.requireFree(enrolled, "enrolment");
            factors.put(key, new StoredFactor(factor, Optional.empty()));
            audit.add(enrolled);
            return true;
        }
    }

    @Override
    public List<TotpFactor> findFactors(String userId) {
        synchronized (lock) {
            return factors.values().stream().map(StoredFactor::factor).filter(factor -> factor.userId().equals(userId))
                    .sorted(Comparator.comparing(TotpFactor::factorId)).toList();
        }
    }

    @Override
    public Optional<TotpFactor> findFactor(String userId, String factorId) {
        synchronized (lock) {
            return Optional.ofNullable(factors.get(new Key(userId, factorId))).map(StoredFactor::factor);
        }
    }

    @Override
    public StepOutcome confirmFactor(StepAcceptance confirmation) {
        return step(confirmation, "confirmation", factor -> !factor.confirmed() && factor.expiresAt().isPresent()
                && !factor.isExpiredAt(confirmation.now()), true);
    }

    @Override
    public StepOutcome acceptStep(StepAcceptance acceptance) {
        return step(acceptance, "TOTP step", factor -> factor.confirmed()
                && factor.lastAcceptedStep() < acceptance.step(), false);
    }

    private StepOutcome step(StepAcceptance write, String what, Predicate<TotpFactor> condition,
                             boolean confirming) {
        Key key = new Key(write.userId(), write.factorId());
        synchronized (lock) {
            StoredFactor stored = factors.get(key);
            Optional<TotpFactor> current = Optional.ofNullable(stored).map(StoredFactor::factor);
            boolean wonBefore = stored != null && stored.acceptedBy().equals(Optional.of(write.attemptId()));
            boolean won = attempts.write(current.filter(condition).isPresent(), wonBefore, write.entry(),
                    write.placeToGiveBack(), what, () -> factors.put(key, new StoredFactor(
                            accepted(stored.factor(), write, confirming), Optional.of(write.attemptId()))));
            return won ? new StepOutcome.Accepted() : new StepOutcome.Refused(current);
        }
    }

    /** The factor after the write: confirmed without a ttl, or with its lastUsedAt moved; the step set either way. */
    private static TotpFactor accepted(TotpFactor factor, StepAcceptance write, boolean confirming) {
        return new TotpFactor(factor.userId(), factor.factorId(), factor.label(), factor.issuer(), factor.algorithm(),
                factor.digits(), factor.period(), write.resealed().orElse(factor.secret()), true, factor.createdAt(),
                confirming ? Optional.empty() : factor.expiresAt(), write.step(),
                confirming ? factor.lastUsedAt() : Optional.of(write.now()));
    }

    @Override
    public List<TotpFactor> deleteFactors(String userId, Optional<String> factorId) {
        synchronized (lock) {
            List<TotpFactor> doomed = findFactors(userId).stream()
                    .filter(factor -> factorId.map(factor.factorId()::equals).orElse(true)).toList();
            doomed.forEach(factor -> factors.remove(new Key(userId, factor.factorId())));
            return doomed;
        }
    }

    /** Every stored factor, for the raw view of the tests. */
    List<StoredFactor> stored() {
        synchronized (lock) {
            return List.copyOf(factors.values());
        }
    }
}
