package dev.verificationservice.recovery;

import dev.verificationservice.attempts.Admission;
import dev.verificationservice.attempts.Attempt;
import dev.verificationservice.attempts.CountedAttempts;
import dev.verificationservice.attempts.CountedFactor;
import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.AuditLog;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.ratelimit.RateLimitPolicy;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.security.SecureTokens;
import dev.verificationservice.store.UnitOfWork;
import dev.verificationservice.time.Instants;
import dev.verificationservice.validation.Inputs;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Recovery codes: the way back in when the authenticator app is lost. A set of {@value RecoveryCodes#SET_SIZE}
 * codes is shown once and stored only as HMAC digests under the server's key ring; each code works once.
 *
 * <ul>
 *   <li><b>Issue</b> replaces the user's set in one atomic write (the codes read are deleted, the new ones and
 *   {@code RECOVERY_CODES_ISSUED} written) on the condition that the set read is still the user's: of simultaneous
 *   issues one is written and the others are a {@link RecoveryCodeIssue.Conflict}, so no answer shows codes that
 *   never work.</li>
 *   <li><b>Verify</b> is a counted attempt at the factor {@value #VERIFY_ACTION}, under the rule every factor shares
 *   ({@link dev.verificationservice.attempts.CountedAttempts}). A code is used by one conditional write, with its
 *   audit entry and the attempt's window place given back. A used code presented again answers USED: no wrong
 *   guess.</li>
 * </ul>
 */
public final class RecoveryCodeService {

    /** The rate-limit action that counts wrong recovery codes. */
    public static final String VERIFY_ACTION = "VERIFY_RECOVERY";

    private final RecoveryCodeRepository repository;
    private final CountedFactor factor;
    private final AuditLog audit;
    private final SecretKeyRing keys;
    private final SecureTokens tokens;
    private final RecoveryCodes generator;
    private final Clock clock;
    private final UnitOfWork units;

    /**
     * @param attempts    the counted guesses every factor shares, where this one counts its wrong codes
     * @param verifyLimit wrong codes per window
     * @param units       the store's units of work, in which each use of a code runs
     */
    public RecoveryCodeService(RecoveryCodeRepository repository, CountedAttempts attempts, RateLimitPolicy verifyLimit,
                               AuditLog audit, SecretKeyRing keys, SecureTokens tokens, Clock clock, UnitOfWork units) {
        this.repository = repository;
        this.factor = attempts.factor(VERIFY_ACTION, verifyLimit, 0);
        this.audit = audit;
        this.keys = keys;
        this.tokens = tokens;
        this.generator = new RecoveryCodes(tokens.random());
        this.clock = clock;
        this.units = units;
    }

    /**
     * A new set for the user, voiding the old one, the codes in the answer and nowhere else; or a conflict when a
     * simultaneous issue replaced the set first.
     */
    public RecoveryCodeIssue issue(String userId, ClientContext client) {
        String user = Inputs.userId(userId);
        // Not a unit of its own: two issues at once must meet at the replacing write's condition (one set, one
        // conflict, no answer showing codes voided a moment later), where a unit on the embedded store's one writer
        // would run them one after the other. Inside a caller's unit (a confirmation's) the steps join it.
        // The set before its codes: an issue written between the two reads moves the set, so this one is refused.
        Optional<String> replaces = repository.currentRecoverySet(user);
        List<RecoveryCode> voided = repository.findRecoveryCodes(user);
        Instant now = Instants.toMillis(clock.instant());
        String setId = tokens.randomHex(8);
        List<String> shown = new ArrayList<>();
        List<RecoveryCode> stored = new ArrayList<>();
        while (shown.size() < RecoveryCodes.SET_SIZE) {
            String code = generator.newCode();
            String digest = keys.currentDigest(RecoveryCodes.digestInput(user, RecoveryCodes.normalise(code)));
            // Two equal codes in one set (about 1 in 10^13) would be one item: draw again.
            if (stored.stream().noneMatch(existing -> existing.digest().equals(digest))) {
                shown.add(code);
                stored.add(new RecoveryCode(user, digest, setId, now, false, Optional.empty()));
            }
        }
        Map<String, String> details = new LinkedHashMap<>();
        details.put("count", Integer.toString(stored.size()));
        details.put("voided", Long.toString(unused(currentSet(voided))));
        AuditEntry issued = audit.newEntry(user, AuditEventType.RECOVERY_CODES_ISSUED, true, Optional.empty(), details,
                client);
        if (!repository.replaceRecoveryCodes(new RecoveryCodeReplacement(user, replaces, setId, voided, stored,
                issued))) {
            return new RecoveryCodeIssue.Conflict();
        }
        return new RecoveryCodeIssue.Issued(new IssuedRecoveryCodes(shown, now));
    }

    /** Checks a recovery code and, when it is one of the user's unused codes, uses it up. */
    public RecoveryVerification verify(String userId, String code, ClientContext client) {
        String user = Inputs.userId(userId);
        String normalised = RecoveryCodes.normalise(Inputs.required("code", code));
        // The count, the test and its outcome are one unit of work (on the embedded store one transaction).
        if (factor.knownLockOut(user).isPresent()) {
            return new RecoveryVerification.Invalid(RecoveryVerification.Reason.TOO_MANY_ATTEMPTS, remaining(user));
        }
        return units.run("use a recovery code", () -> useCounted(user, normalised, client));
    }

    private RecoveryVerification useCounted(String user, String normalised, ClientContext client) {
        if (!(factor.begin(user) instanceof Admission.Admitted admitted)) {
            return failed(user, RecoveryVerification.Reason.TOO_MANY_ATTEMPTS, remaining(user), client);
        }
        Attempt attempt = admitted.attempt();
        Tested tested = attempt.tested(() -> test(user, normalised, attempt, client));
        if (tested instanceof Tested.Used used) {
            attempt.succeeded(true);
            return new RecoveryVerification.Valid(used.remaining());
        }
        if (tested instanceof Tested.UsedBefore before) {
            // The user's own code, presented again: no wrong guess.
            attempt.noWrongGuess();
            return failed(user, RecoveryVerification.Reason.USED, before.remaining(), client);
        }
        return failed(user, attempt.wrongGuess() ? RecoveryVerification.Reason.TOO_MANY_ATTEMPTS
                : RecoveryVerification.Reason.INVALID_CODE, tested.remaining(), client);
    }

    /** What testing a presented code found; {@code remaining} is how many unused codes the user has now. */
    private sealed interface Tested {

        int remaining();

        /** One of the user's unused codes, now used by this attempt (its window place given back in the write). */
        record Used(int remaining) implements Tested {
        }

        /** One of the user's codes, used before. */
        record UsedBefore(int remaining) implements Tested {
        }

        record Wrong(int remaining) implements Tested {
        }
    }

    private Tested test(String user, String normalised, Attempt attempt, ClientContext client) {
        List<RecoveryCode> current = currentSet(repository.findRecoveryCodes(user));
        int remaining = (int) unused(current);
        Optional<RecoveryCode> found = find(current, keys.candidateDigests(RecoveryCodes.digestInput(user, normalised)));
        if (found.isPresent() && !found.get().used()) {
            RecoveryCode hit = found.get();
            AuditEntry used = audit.newEntry(user, AuditEventType.RECOVERY_CODE_USED, true, Optional.empty(),
                    Map.of("remaining", Integer.toString(remaining - 1)), client);
            RecoveryUseOutcome outcome = repository.useRecoveryCode(new RecoveryCodeUse(user, hit.digest(), hit.setId(),
                    clock.instant(), tokens.attemptId(), used, attempt.place()));
            if (outcome instanceof RecoveryUseOutcome.Used) {
                return new Tested.Used(remaining - 1);
            }
            // Used by a concurrent attempt (or its set replaced) between the read and the write.
            found = ((RecoveryUseOutcome.Refused) outcome).current();
            remaining--;
        }
        if (found.isPresent() && found.get().used()) {
            return new Tested.UsedBefore(Math.max(remaining, 0));
        }
        return new Tested.Wrong(Math.max(remaining, 0));
    }

    /** How many unused codes of the user's current set are left. */
    public int remaining(String userId) {
        return (int) unused(currentSet(repository.findRecoveryCodes(Inputs.userId(userId))));
    }

    /** Deletes every recovery code of the user (no factor left to recover); how many unused ones there were. */
    public int deleteAll(String userId) {
        return (int) unused(currentSet(repository.deleteRecoveryCodes(Inputs.userId(userId))));
    }

    private RecoveryVerification failed(String userId, RecoveryVerification.Reason reason, int remaining,
                                        ClientContext client) {
        audit.recordFailure(userId, AuditEventType.RECOVERY_CODE_FAILED, reason.name(),
                Map.of("remaining", Integer.toString(remaining)), client);
        return new RecoveryVerification.Invalid(reason, remaining);
    }

    /** The code among {@code codes} whose digest is one of the candidates (compared in constant time). */
    private static Optional<RecoveryCode> find(List<RecoveryCode> codes, List<String> candidates) {
        Optional<RecoveryCode> found = Optional.empty();
        for (RecoveryCode code : codes) {
            for (String candidate : candidates) {
                if (SecureTokens.constantTimeEquals(code.digest(), candidate)) {
                    found = Optional.of(code);
                }
            }
        }
        return found;
    }

    /** The codes of the newest set (by issuedAt, then setId): the only ones that verify. */
    static List<RecoveryCode> currentSet(List<RecoveryCode> codes) {
        return codes.stream()
                .max(Comparator.comparing(RecoveryCode::issuedAt).thenComparing(RecoveryCode::setId))
                .map(newest -> codes.stream().filter(code -> code.setId().equals(newest.setId())).toList())
                .orElse(List.of());
    }

    private static long unused(List<RecoveryCode> codes) {
        return codes.stream().filter(code -> !code.used()).count();
    }
}
