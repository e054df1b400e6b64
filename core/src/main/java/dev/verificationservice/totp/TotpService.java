package dev.verificationservice.totp;

import dev.verificationservice.attempts.Admission;
import dev.verificationservice.attempts.Attempt;
import dev.verificationservice.attempts.CountedAttempts;
import dev.verificationservice.attempts.CountedFactor;
import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.AuditLog;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.recovery.RecoveryCodeIssue;
import dev.verificationservice.recovery.RecoveryCodeService;
import dev.verificationservice.security.EncryptionKeyRing;
import dev.verificationservice.security.SealedSecret;
import dev.verificationservice.security.SecureTokens;
import dev.verificationservice.store.UnitOfWork;
import dev.verificationservice.time.Instants;
import dev.verificationservice.validation.Inputs;
import dev.verificationservice.validation.InvalidInputException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Authenticator apps (RFC 6238): enrol, confirm, verify, list, remove.
 *
 * <ul>
 *   <li><b>Enrol</b> draws a 160-bit secret, seals it (AES-256-GCM, the user and factor ids as associated data) and
 *   writes a pending factor with a ttl together with {@code TOTP_ENROLLED}; the secret leaves only in the answer.</li>
 *   <li><b>Confirm</b> and <b>verify</b> are counted attempts at the factor {@value #VERIFY_ACTION}, under the rule every
 *   factor shares ({@link dev.verificationservice.attempts.CountedAttempts}); they test the code against each
 *   confirmed factor at the current step and one either side, every comparison in constant time, without stopping
 *   at the first match.</li>
 *   <li><b>The replay rule</b> is one conditional write per accepted code: accept step S for factor F only if
 *   {@code S > lastAcceptedStep}. It makes the same code twice, an older step after a newer one and fifty parallel
 *   submissions of one code all accept at most once, and a retry of the write is recognised by its attempt id. A
 *   right code whose step is not later answers REPLAYED: no wrong guess.</li>
 *   <li>A secret sealed under an older key is re-sealed under the current one in that same write.</li>
 * </ul>
 */
public final class TotpService {

    /** The counted factor of wrong TOTP codes (confirmations included): its rate-limit action. */
    public static final String VERIFY_ACTION = "VERIFY_TOTP";
    /** How many factors, pending ones included, a user may have: bounds what one verification computes. */
    public static final int MAX_FACTORS = 10;
    /** Steps accepted either side of the current one: a clock off by up to one period still works. */
    public static final int ACCEPTED_SKEW_STEPS = 1;
    public static final int MAX_LABEL_LENGTH = 64;
    /** A factorId: 96 random bits in hex. */
    private static final int FACTOR_ID_BYTES = 12;
    private static final Pattern FACTOR_ID = Pattern.compile("[0-9a-f]{" + FACTOR_ID_BYTES * 2 + "}");
    private static final TotpAlgorithm ALGORITHM = TotpAlgorithm.SHA1;
    private static final int DIGITS = Totp.DEFAULT_DIGITS;
    private static final Duration PERIOD = Totp.DEFAULT_PERIOD;
    private static final Pattern CODE = Pattern.compile("[0-9]{" + DIGITS + "}");

    private final TotpRepository factors;
    private final RecoveryCodeService recovery;
    private final CountedFactor counted;
    private final AuditLog audit;
    private final EncryptionKeyRing encryption;
    private final SecureTokens tokens;
    private final TotpSecrets secrets;
    private final Clock clock;
    private final TotpPolicy policy;
    private final UnitOfWork units;

    /**
     * @param attempts the counted guesses every factor shares, where this one counts its wrong codes
     * @param units    the store's units of work, in which each confirmation and verification runs
     */
    public TotpService(TotpRepository factors, RecoveryCodeService recovery, EncryptionKeyRing encryption,
                       TotpPolicy policy, CountedAttempts attempts, AuditLog audit, SecureTokens tokens, Clock clock,
                       UnitOfWork units) {
        this.factors = factors;
        this.recovery = recovery;
        this.counted = attempts.factor(VERIFY_ACTION, policy.verifyLimit(), 0);
        this.audit = audit;
        this.encryption = encryption;
        this.tokens = tokens;
        this.secrets = new TotpSecrets(tokens.random());
        this.clock = clock;
        this.policy = policy;
        this.units = units;
    }

    /** A new pending factor; the label defaults to the userId and the issuer to the configured one. */
    public Enrolment enrol(String userId, Optional<String> label, Optional<String> issuer, ClientContext client) {
        String user = Inputs.userId(userId);
        String shownLabel = uriPart("label", label).orElse(user);
        String shownIssuer = uriPart("issuer", issuer).orElse(policy.defaultIssuer());
        Instant now = Instants.toMillis(clock.instant());
        String factorId = tokens.randomHex(FACTOR_ID_BYTES);
        byte[] secret = secrets.newSecret();
        try {
            SealedSecret sealed = encryption.seal(secret, TotpFactor.associatedData(user, factorId));
            Instant expiresAt = Instants.wholeSecond(now.plus(policy.pendingTtl()));
            TotpFactor pending = new TotpFactor(user, factorId, shownLabel, shownIssuer, ALGORITHM, DIGITS, PERIOD,
                    sealed, false, now, Optional.of(expiresAt), TotpFactor.NO_STEP, Optional.empty());
            Map<String, String> details = new LinkedHashMap<>();
            details.put("factorId", factorId);
            details.put("label", shownLabel);
            // The store counts the user's live factors in the write itself: a count read here would race.
            if (!factors.insertFactor(pending, audit.newEntry(user, AuditEventType.TOTP_ENROLLED, true,
                    Optional.empty(), details, client), MAX_FACTORS)) {
                throw new InvalidInputException("userId", "has " + MAX_FACTORS + " authenticator factors already; "
                        + "remove one before enrolling another");
            }
            String base32 = TotpSecrets.base32(secret);
            String uri = OtpAuthUri.of(shownIssuer, shownLabel, base32, ALGORITHM, DIGITS, PERIOD);
            return new Enrolment(factorId, base32, uri, QrCodes.pngDataUri(uri), expiresAt);
        } finally {
            Arrays.fill(secret, (byte) 0);
        }
    }

    /** Confirms a pending factor with the app's current code, and issues the user's recovery codes. */
    public Confirmation confirm(String userId, String factorId, String code, ClientContext client) {
        String user = Inputs.userId(userId);
        String factor = factorId(factorId);
        String presented = code(code);
        // The count, the test, its outcome and the recovery codes it issues are one unit of work (on the embedded
        // store one transaction).
        if (counted.knownLockOut(user).isPresent()) {
            return new Confirmation.NotConfirmed(Confirmation.Reason.TOO_MANY_ATTEMPTS);
        }
        return units.run("confirm an authenticator factor", () -> confirmCounted(user, factor, presented, client));
    }

    private Confirmation confirmCounted(String user, String factor, String presented, ClientContext client) {
        if (!(counted.begin(user) instanceof Admission.Admitted admitted)) {
            return notConfirmed(user, factor, Confirmation.Reason.TOO_MANY_ATTEMPTS, client);
        }
        Attempt attempt = admitted.attempt();
        Instant now = clock.instant();
        // Empty: confirmed by this attempt, its window place given back in the confirming write.
        Optional<Confirmation.Reason> refused = attempt.tested(() -> {
            Optional<TotpFactor> found = factors.findFactor(user, factor).filter(stored -> !stored.isExpiredAt(now));
            if (found.isEmpty() || found.get().confirmed()) {
                return Optional.of(found.isEmpty() ? Confirmation.Reason.NOT_FOUND
                        : Confirmation.Reason.ALREADY_CONFIRMED);
            }
            List<Match> matches = matches(List.of(found.get()), presented, now);
            if (matches.isEmpty()) {
                return Optional.of(Confirmation.Reason.INVALID_CODE);
            }
            AuditEntry confirmed = audit.newEntry(user, AuditEventType.TOTP_CONFIRMED, true, Optional.empty(),
                    Map.of("factorId", factor), client);
            StepOutcome outcome = factors.confirmFactor(acceptance(matches.get(0), now, confirmed, attempt));
            if (outcome instanceof StepOutcome.Refused stale) {
                // Confirmed or expired between the read and the write.
                return Optional.of(stale.current().map(TotpFactor::confirmed).orElse(false)
                        ? Confirmation.Reason.ALREADY_CONFIRMED : Confirmation.Reason.NOT_FOUND);
            }
            return Optional.empty();
        });
        if (refused.isEmpty()) {
            attempt.succeeded(true);
            // A conflict: a simultaneous issue's set is the user's, and shown in its answer; this one shows none.
            RecoveryCodeIssue codes = recovery.issue(user, client);
            return new Confirmation.Confirmed(factor, codes instanceof RecoveryCodeIssue.Issued issued
                    ? Optional.of(issued.codes()) : Optional.empty());
        }
        if (refused.get() == Confirmation.Reason.INVALID_CODE) {
            return notConfirmed(user, factor, attempt.wrongGuess() ? Confirmation.Reason.TOO_MANY_ATTEMPTS
                    : Confirmation.Reason.INVALID_CODE, client);
        }
        // Nothing was tested, or the factor changed under the attempt: no guess to count.
        attempt.noWrongGuess();
        return notConfirmed(user, factor, refused.get(), client);
    }

    /**
     * Tests a code against every confirmed factor of the user; one submission is one counted attempt at
     * {@value #VERIFY_ACTION}, however many factors it is tested against.
     */
    public TotpVerification verify(String userId, String code, ClientContext client) {
        String user = Inputs.userId(userId);
        String presented = code(code);
        // The count, the test and its outcome are one unit of work (on the embedded store one transaction).
        if (counted.knownLockOut(user).isPresent()) {
            return new TotpVerification.Invalid(TotpVerification.Reason.TOO_MANY_ATTEMPTS);
        }
        return units.run("verify an authenticator code", () -> verifyCounted(user, presented, client));
    }

    private TotpVerification verifyCounted(String user, String presented, ClientContext client) {
        if (!(counted.begin(user) instanceof Admission.Admitted admitted)) {
            return invalid(user, TotpVerification.Reason.TOO_MANY_ATTEMPTS, Optional.empty(), client);
        }
        Attempt attempt = admitted.attempt();
        Instant now = clock.instant();
        Tested tested = attempt.tested(() -> test(user, presented, now, attempt, client));
        if (tested.answer() instanceof TotpVerification.Valid valid) {
            attempt.succeeded(true);
            return valid;
        }
        TotpVerification.Reason reason = ((TotpVerification.Invalid) tested.answer()).reason();
        if (reason == TotpVerification.Reason.INVALID_CODE) {
            return invalid(user, attempt.wrongGuess() ? TotpVerification.Reason.TOO_MANY_ATTEMPTS : reason,
                    Optional.empty(), client);
        }
        // NO_FACTOR (nothing to test against) or REPLAYED (the user's own code again): no wrong guess.
        attempt.noWrongGuess();
        return invalid(user, reason, tested.factorId(), client);
    }

    /** What testing a code found, and the factor a replay was of. */
    private record Tested(TotpVerification answer, Optional<String> factorId) {
    }

    private Tested test(String user, String presented, Instant now, Attempt attempt, ClientContext client) {
        List<TotpFactor> confirmed = factors.findFactors(user).stream().filter(TotpFactor::confirmed).toList();
        if (confirmed.isEmpty()) {
            return new Tested(new TotpVerification.Invalid(TotpVerification.Reason.NO_FACTOR), Optional.empty());
        }
        List<Match> matches = matches(confirmed, presented, now);
        if (matches.isEmpty()) {
            return new Tested(new TotpVerification.Invalid(TotpVerification.Reason.INVALID_CODE), Optional.empty());
        }
        // The latest step first: of two matches (one code valid for two steps), the newer one is the app's.
        for (Match match : matches) {
            if (match.step() <= match.factor().lastAcceptedStep()) {
                continue;
            }
            Map<String, String> details = new LinkedHashMap<>();
            details.put("factorId", match.factor().factorId());
            details.put("step", Long.toString(match.step()));
            AuditEntry verified = audit.newEntry(user, AuditEventType.TOTP_VERIFIED, true, Optional.empty(), details,
                    client);
            if (factors.acceptStep(acceptance(match, now, verified, attempt)) instanceof StepOutcome.Accepted) {
                return new Tested(new TotpVerification.Valid(match.factor().factorId()), Optional.empty());
            }
            // Another submission of this step (or a later one) won the write: a replay.
        }
        // A right code, but of a step already accepted: the user's own code again.
        return new Tested(new TotpVerification.Invalid(TotpVerification.Reason.REPLAYED),
                Optional.of(matches.get(0).factor().factorId()));
    }

    /** The user's factors that are confirmed or still pending, oldest first; never a secret. */
    public List<FactorSummary> list(String userId) {
        String user = Inputs.userId(userId);
        Instant now = clock.instant();
        return factors.findFactors(user).stream().filter(factor -> !factor.isExpiredAt(now))
                .sorted(Comparator.comparing(TotpFactor::createdAt).thenComparing(TotpFactor::factorId))
                .map(factor -> new FactorSummary(factor.factorId(), factor.label(), factor.confirmed(),
                        factor.createdAt(), factor.lastUsedAt()))
                .toList();
    }

    /**
     * Removes one factor; when the user has no confirmed factor left, the recovery codes go too (they recover a
     * second factor the user no longer has). Answers whether the factor existed.
     */
    public boolean remove(String userId, String factorId, ClientContext client) {
        String user = Inputs.userId(userId);
        String factor = factorId(factorId);
        return units.run("remove an authenticator factor", () -> {
            List<TotpFactor> deleted = factors.deleteFactors(user, Optional.of(factor));
            if (deleted.isEmpty()) {
                return false;
            }
            boolean confirmedLeft = factors.findFactors(user).stream().anyMatch(TotpFactor::confirmed);
            int recoveryCodes = confirmedLeft ? 0 : recovery.deleteAll(user);
            audit.recordSuccess(user, AuditEventType.TOTP_REMOVED, removedDetails(deleted.size(), Optional.of(factor),
                    recoveryCodes, Map.of()), client);
            return true;
        });
    }

    /**
     * Removes every factor and the recovery codes of the user (the "lost my phone" case), with {@code context} (for
     * example the operator's key id) among the details of its TOTP_REMOVED entry; how many factors were removed.
     */
    public int removeAll(String userId, Map<String, String> context, ClientContext client) {
        String user = Inputs.userId(userId);
        return units.run("remove every authenticator factor", () -> {
            List<TotpFactor> deleted = factors.deleteFactors(user, Optional.empty());
            int recoveryCodes = recovery.deleteAll(user);
            audit.recordSuccess(user, AuditEventType.TOTP_REMOVED, removedDetails(deleted.size(), Optional.empty(),
                    recoveryCodes, context), client);
            return deleted.size();
        });
    }

    /**
     * A new set of recovery codes, voiding the old, or a conflict with a simultaneous issue; empty when the user has
     * no confirmed factor to recover.
     */
    public Optional<RecoveryCodeIssue> regenerateRecoveryCodes(String userId, ClientContext client) {
        String user = Inputs.userId(userId);
        // No unit, as for every issue of a set (RecoveryCodeService#issue).
        if (factors.findFactors(user).stream().noneMatch(TotpFactor::confirmed)) {
            return Optional.empty();
        }
        return Optional.of(recovery.issue(user, client));
    }

    /** A factor whose code for {@code step} is the presented one. */
    private record Match(TotpFactor factor, long step, byte[] secret) {
    }

    /**
     * Every (factor, step) whose code is the presented one, latest step first. Every factor and step is computed and
     * compared in constant time, whether or not an earlier one matched.
     */
    private List<Match> matches(List<TotpFactor> candidates, String presented, Instant now) {
        long current = Totp.step(now, PERIOD);
        List<Match> matches = new ArrayList<>();
        for (TotpFactor factor : candidates) {
            byte[] secret = encryption.open(factor.secret(), TotpFactor.associatedData(factor.userId(),
                    factor.factorId()));
            for (long step = current - ACCEPTED_SKEW_STEPS; step <= current + ACCEPTED_SKEW_STEPS; step++) {
                String expected = Totp.code(secret, step, factor.algorithm(), factor.digits());
                if (SecureTokens.constantTimeEquals(expected, presented)) {
                    matches.add(new Match(factor, step, secret));
                }
            }
        }
        matches.sort(Comparator.comparingLong(Match::step).reversed());
        return matches;
    }

    private StepAcceptance acceptance(Match match, Instant now, AuditEntry entry, Attempt attempt) {
        TotpFactor factor = match.factor();
        // Rotation on use: a secret sealed under an older key is sealed anew under the current one in this write.
        Optional<SealedSecret> resealed = encryption.isCurrent(factor.secret()) ? Optional.empty()
                : Optional.of(encryption.seal(match.secret(), TotpFactor.associatedData(factor.userId(),
                factor.factorId())));
        return new StepAcceptance(factor.userId(), factor.factorId(), match.step(), Instants.toMillis(now),
                tokens.attemptId(), entry, attempt.place(), resealed);
    }

    private Confirmation notConfirmed(String userId, String factorId, Confirmation.Reason reason, ClientContext client) {
        Map<String, String> details = new LinkedHashMap<>();
        details.put("operation", "confirm");
        details.put("factorId", factorId);
        audit.recordFailure(userId, AuditEventType.TOTP_VERIFICATION_FAILED, reason.name(), details, client);
        return new Confirmation.NotConfirmed(reason);
    }

    private TotpVerification invalid(String userId, TotpVerification.Reason reason, Optional<String> factorId,
                                     ClientContext client) {
        Map<String, String> details = new LinkedHashMap<>();
        details.put("operation", "verify");
        factorId.ifPresent(id -> details.put("factorId", id));
        audit.recordFailure(userId, AuditEventType.TOTP_VERIFICATION_FAILED, reason.name(), details, client);
        return new TotpVerification.Invalid(reason);
    }

    private static Map<String, String> removedDetails(int count, Optional<String> factorId, int recoveryCodes,
                                                      Map<String, String> context) {
        Map<String, String> details = new LinkedHashMap<>();
        details.put("count", Integer.toString(count));
        factorId.ifPresent(id -> details.put("factorId", id));
        details.put("recoveryCodesRemoved", Integer.toString(recoveryCodes));
        details.putAll(context);
        return details;
    }

    private static String factorId(String value) {
        String factorId = Inputs.required("factorId", value);
        if (!FACTOR_ID.matcher(factorId).matches()) {
            throw new InvalidInputException("factorId", "must be the " + FACTOR_ID_BYTES * 2
                    + "-character id returned at enrolment");
        }
        return factorId;
    }

    private static String code(String value) {
        String code = Inputs.required("code", value);
        if (!CODE.matcher(code).matches()) {
            throw new InvalidInputException("code", "must be the " + DIGITS + "-digit code the authenticator app shows");
        }
        return code;
    }

    /** A label or issuer: printable, short, and without the colon that separates them in the otpauth URI. */
    private static Optional<String> uriPart(String field, Optional<String> value) {
        Optional<String> text = Inputs.optionalText(field, value.orElse(null), MAX_LABEL_LENGTH);
        if (text.isPresent() && text.get().contains(":")) {
            throw new InvalidInputException(field, "must not contain ':', which separates issuer and label in the "
                    + "authenticator app");
        }
        return text;
    }
}
