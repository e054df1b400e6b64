package dev.verificationservice.foundation;

import dev.verificationservice.attempts.CountedAttempts;
import dev.verificationservice.audit.AuditLog;
import dev.verificationservice.ratelimit.RateLimiter;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.security.SecureTokens;
import dev.verificationservice.store.UnitOfWork;
import java.time.Clock;
import java.util.Objects;

/**
 * What every domain service stands on, the same for each: the rate limiter (limits, the cooldown), the rule of counted
 * guesses every factor shares, the audit log, the HMAC key ring, the source of randomness and the clock. {@code Verification} builds one and hands
 * it to each service; a test builds its own with a moved clock.
 *
 * @param rateLimiter every counted limit, over the store's counters
 * @param audit       the user's security history
 * @param keys        the HMAC keys codes, secrets and subjects are digested under (current first)
 * @param tokens      codes, secrets, attempt ids and suffixes, from one {@code SecureRandom}
 * @param clock       the service's time: every validity decision compares with it
 * @param units       how the steps of one operation run as a unit on the store (the rate limiter's too)
 * @param attempts    the counted guesses of every factor, on this rate limiter: one per domain, so that a success of
 *                    one factor resets the wrong answers in a row of all of them
 */
public record Foundation(RateLimiter rateLimiter, AuditLog audit, SecretKeyRing keys, SecureTokens tokens,
                         Clock clock, UnitOfWork units, CountedAttempts attempts) {

    public Foundation {
        Objects.requireNonNull(rateLimiter, "rateLimiter");
        Objects.requireNonNull(audit, "audit");
        Objects.requireNonNull(keys, "keys");
        Objects.requireNonNull(tokens, "tokens");
        Objects.requireNonNull(clock, "clock");
        Objects.requireNonNull(units, "units");
        Objects.requireNonNull(attempts, "attempts");
    }

    /** Counted guesses with the default bound on wrong answers in a row. */
    public Foundation(RateLimiter rateLimiter, AuditLog audit, SecretKeyRing keys, SecureTokens tokens, Clock clock,
                      UnitOfWork units) {
        this(rateLimiter, audit, keys, tokens, clock, units, new CountedAttempts(rateLimiter));
    }

    /** Each step its own store call ({@link UnitOfWork#SEPARATE_STEPS}). */
    public Foundation(RateLimiter rateLimiter, AuditLog audit, SecretKeyRing keys, SecureTokens tokens, Clock clock) {
        this(rateLimiter, audit, keys, tokens, clock, UnitOfWork.SEPARATE_STEPS);
    }
}
