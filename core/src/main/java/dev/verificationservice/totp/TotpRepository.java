package dev.verificationservice.totp;

import dev.verificationservice.audit.AuditEntry;
import java.util.List;
import java.util.Optional;

/**
 * Storage SPI for authenticator-app factors: items {@code USER#<userId>} / {@code TOTP#<factorId>}. As for every SPI
 * here, a store decides no validity except inside its conditional writes, which carry their condition themselves,
 * and every write is correct when it runs twice (the attempt ids are how a store recognises its own earlier write).
 */
public interface TotpRepository {

    /**
     * Writes a new pending factor (with its ttl) and its {@code TOTP_ENROLLED} entry atomically, on the conditions that
     * no item has its key and that the user has fewer than {@code maxFactors} factors that are not expired at the
     * factor's {@code createdAt} ({@link TotpFactor#isExpiredAt}). The count is part of the same atomic step as the
     * write, so of any number of concurrent enrolments (from any number of store instances on one table or file) at
     * most {@code maxFactors} are stored. The {@code TOTP_ENROLLED} entry is written together with its undelivered
     * event, in the same atomic step, and a retry after a lost answer leaves exactly one entry and one event
     * ({@link dev.verificationservice.audit.AuditRepository}) whether it is answered done or refused.
     *
     * @return false when the cap refused the factor (nothing was written)
     * @throws dev.verificationservice.store.StoreException when the write was refused otherwise or failed
     */
    boolean insertFactor(TotpFactor factor, AuditEntry enrolled, int maxFactors);

    /** Every stored factor of the user (one Query of the user's item collection), pending and expired ones included. */
    List<TotpFactor> findFactors(String userId);

    /** The stored factor (a strongly consistent read), pending, expired or not. */
    Optional<TotpFactor> findFactor(String userId, String factorId);

    /**
     * Confirms a pending factor in one atomic step, on the condition: the item exists, is not confirmed, and its ttl
     * is after {@code now}, or it was confirmed by this same {@code attemptId} (a retry). It becomes confirmed, loses
     * its ttl, and its {@code lastAcceptedStep} becomes the step of the confirming code (so that code cannot verify
     * again); the {@code TOTP_CONFIRMED} entry is written, with its undelivered event, and the place given back in the
     * same step. A retry after a lost answer leaves exactly one entry and one event
     * ({@link dev.verificationservice.audit.AuditRepository}).
     */
    StepOutcome confirmFactor(StepAcceptance confirmation);

    /**
     * The replay rule, as one conditional write: accept step S for factor F if F is confirmed and
     * {@code S > lastAcceptedStep}, or if F's {@code acceptedBy} is this {@code attemptId} (a retry of the write that
     * won, whose answer was lost). Of any number of concurrent calls for one factor and step at most one returns
     * {@link StepOutcome.Accepted} (and a retry of it); a step not later than the last accepted one is refused. The
     * acceptance's entry is written together with its undelivered event, in the same atomic step, and a retry after a
     * lost answer leaves exactly one entry and one event ({@link dev.verificationservice.audit.AuditRepository}).
     */
    StepOutcome acceptStep(StepAcceptance acceptance);

    /**
     * Deletes the user's factors (all of them, or the one named) and returns what it deleted, pending and expired
     * ones included.
     */
    List<TotpFactor> deleteFactors(String userId, Optional<String> factorId);
}
