package dev.verificationservice.codes;

import dev.verificationservice.attempts.Admission;
import dev.verificationservice.attempts.Attempt;
import dev.verificationservice.attempts.CountedAttempts;
import dev.verificationservice.attempts.CountedFactor;
import dev.verificationservice.audit.AuditEntry;
import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.audit.AuditLog;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.ratelimit.Place;
import dev.verificationservice.ratelimit.RateLimitDecision;
import dev.verificationservice.ratelimit.RateLimiter;
import dev.verificationservice.ratelimit.UserLimit;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.security.SecureTokens;
import dev.verificationservice.sms.SmsRange;
import dev.verificationservice.sms.SmsSignals;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.store.UnitOfWork;
import dev.verificationservice.time.Instants;
import dev.verificationservice.validation.Inputs;
import dev.verificationservice.validation.InvalidInputException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Issues, checks and verifies one-time codes.
 *
 * <ul>
 *   <li><b>Issue</b>: normalise the target (an SMS number must be a real mobile number of an allowed region);
 *   pass every send limit ({@link SendAdmission}: lock-out, per user, per target, per IP, cooldown,
 *   SMS budget, the SMS range breaker; each step's requests independent, one round trip on DynamoDB); once admitted, place the new
 *   code's HMAC as the one usable code of the type, stamped with the request's id (a new code on a collision,
 *   the same one on a retry; the code it replaces is unusable from the same write); hand the code to the
 *   sender; write {@code CODE_SENT} once it was delivered, with the replaced code's {@code CODES_INVALIDATED} and
 *   an SMS's range and country counts. A failed delivery deletes the code again.</li>
 *   <li><b>Verify</b>: one atomic write per key in the ring (current key first) marks the code used, writes
 *   its CODE_VERIFIED entry and gives a NUMERIC attempt's place back. When the condition fails, the store
 *   hands back the item as it was, and that says NOT_FOUND, USED or EXPIRED. A LINK code is read first, to
 *   learn the user its audit entry belongs to.</li>
 *   <li><b>Failures</b>: each type is a counted factor ({@code VERIFY_<codeType>}, the rule of
 *   {@link CountedAttempts}) for its NUMERIC codes, over the windows a live code may span, so no code ever has
 *   more than the limit of wrong guesses tested against it; the failure that reaches a limit deletes the user's
 *   NUMERIC codes of that type, and during the lock-out no new NUMERIC code of the type is issued (a LINK code
 *   still is). A failed check counts the same, so check is no guessing oracle. LINK codes carry 256 random bits
 *   and are not counted; a verified one is a success of the user's all the same.</li>
 *   <li><b>Units of work</b>: each operation's steps run as one {@link dev.verificationservice.store.UnitOfWork}
 *   (on the embedded store one transaction): a send up to its delivery, then what follows the delivery; a check
 *   or verification whole. Calls that need none of each other's answers go to the store as one
 *   {@link dev.verificationservice.store.UnitOfWork#together} call. A refused send gives back what its admission
 *   took (every place, the cooldown: the same calls on every store, which commit with the unit on the embedded
 *   store) and writes its RATE_LIMITED entry; a wrong guess, its entry and a lock-out's invalidation stay.</li>
 * </ul>
 */
public final class CodeService {

    private static final Logger LOG = LoggerFactory.getLogger(CodeService.class);
    private static final int MAX_INSERT_ATTEMPTS = 5;

    private final CodeRepository codes;
    private final RateLimiter rateLimiter;
    private final AuditLog audit;
    private final CodeSender sender;
    private final SecretKeyRing keys;
    private final SecureTokens tokens;
    private final Clock clock;
    private final CodePolicy policy;
    private final SendAdmission admission;
    private final MessageLocales locales;
    private final UnitOfWork units;
    private final CountedAttempts attempts;
    private final SmsSignals signals;
    /** Each type's counted attempts at its NUMERIC codes ({@code VERIFY_<codeType>}). */
    private final Map<CodeType, CountedFactor> factors = new EnumMap<>(CodeType.class);
    /** What a code may approve: shown in the message, so short and printable. */
    public static final int MAX_CONTEXT_LENGTH = 200;

    /**
     * What the service works with besides its delivery and its policy.
     *
     * @param codes       the store's codes
     * @param rateLimiter the send limits and the cooldown, over the store's counters
     * @param attempts    the counted guesses every factor shares (on {@code rateLimiter})
     * @param audit       the user's security history
     * @param keys        the HMAC keys codes and targets are digested under (current first)
     * @param tokens      codes, attempt ids and suffixes, from one {@code SecureRandom}
     * @param clock       the service's time: every validity decision compares with it
     * @param units       how the steps of one operation run as a unit on the store
     */
    public record Collaborators(CodeRepository codes, RateLimiter rateLimiter, CountedAttempts attempts,
                                AuditLog audit, SecretKeyRing keys, SecureTokens tokens, Clock clock,
                                UnitOfWork units) {
    }

    /** @param signals the SMS pumping signals: an SMS send reads its range's breaker, and counts itself once sent */
    public CodeService(Collaborators with, CodeDelivery delivery, CodePolicy policy, SmsSignals signals) {
        this.signals = signals;
        this.codes = with.codes();
        this.rateLimiter = with.rateLimiter();
        this.audit = with.audit();
        this.sender = delivery.sender();
        this.keys = with.keys();
        this.tokens = with.tokens();
        this.clock = with.clock();
        this.policy = policy;
        this.attempts = with.attempts();
        for (CodeType type : CodeType.values()) {
            factors.put(type, attempts.factor(verifyAction(type), policy.verifyLimit(), policy.verifyLookBack()));
        }
        this.admission = new SendAdmission(policy, rateLimiter, keys, tokens, clock, with.units(), factors, signals);
        this.locales = delivery.locales();
        this.units = with.units();
    }

    /** The rate-limit action that counts code requests of a type. */
    public static String sendAction(CodeType type) {
        return "SEND_" + type.name();
    }

    /** The rate-limit action that counts failed verifications of a type. */
    public static String verifyAction(CodeType type) {
        return "VERIFY_" + type.name();
    }

    public IssueResult issue(CodeRequest request) {
        return issue(request, policy.codeTtl());
    }

    /**
     * As {@link #issue(CodeRequest)}, for a code that lives at most {@code lifetime}: shorter than the service's
     * code lifetime when the caller asks for it (Spring Security's one-time tokens carry their own), never longer.
     * At least a second, since expiry is kept in whole seconds.
     */
    public IssueResult issue(CodeRequest request, Duration lifetime) {
        if (lifetime == null || lifetime.compareTo(Duration.ofSeconds(1)) < 0) {
            throw new InvalidInputException("lifetime", "must be at least one second");
        }
        Duration ttl = lifetime.compareTo(policy.codeTtl()) < 0 ? lifetime : policy.codeTtl();
        String userId = Inputs.userId(request.userId());
        CodeType type = Inputs.required("codeType", request.codeType());
        DeliveryMethod method = Inputs.required("deliveryMethod", request.deliveryMethod());
        if (!type.allows(method)) {
            throw new InvalidInputException("deliveryMethod", type + " codes are sent by " + type.deliveryMethods());
        }
        String target = DeliveryTargets.normalize(method, request.deliveryTarget(), policy.smsRegions(),
                policy.smsNetworks(), signals.policy().refusedNumberTypes());
        CodeFormat format = request.format().orElse(type.defaultFormat());
        if (format == CodeFormat.LINK && request.numericLength().isPresent()) {
            throw new InvalidInputException("codeLength", "applies to NUMERIC codes only; a LINK code is always "
                    + SecureTokens.RANDOM_TOKEN_LENGTH + " characters");
        }
        int length = request.numericLength().orElse(policy.defaultNumericLength());
        if (length < CodeFormat.MIN_NUMERIC_LENGTH || length > CodeFormat.MAX_NUMERIC_LENGTH) {
            throw new InvalidInputException("codeLength", "must be between " + CodeFormat.MIN_NUMERIC_LENGTH + " and "
                    + CodeFormat.MAX_NUMERIC_LENGTH);
        }
        ClientContext client = request.client();
        String maskedTarget = DeliveryTargets.mask(method, target);
        Optional<String> context = context(request.context());
        Locale locale = locales.choose(request.locale(), method, target);
        // Where an SMS code's verification is counted: kept on the code, which holds no full number.
        Optional<String> smsRange = method == DeliveryMethod.SMS && signals.enabled()
                ? signals.rangeOf(target).map(SmsRange::prefix) : Optional.empty();

        // Everything up to the delivery is one unit of work (on the embedded store one transaction); the delivery
        // runs after it, so that no request waits for the channel while the unit holds the store's writer.
        Prepared prepared = units.run("send a code", () -> {
            SendAdmission.Outcome outcome = admission.admit(
                    new SendAdmission.Send(userId, type, format, method, target, client, request.humanVerified()));
            if (outcome instanceof SendAdmission.Refused refused) {
                return new Prepared.Refused(rateLimited(userId, refused.decision(), client));
            }
            if (outcome instanceof SendAdmission.RangeBlocked blocked) {
                return new Prepared.Refused(rangeBlocked(userId, blocked.verdict(), client));
            }
            SendAdmission.Admitted admitted = (SendAdmission.Admitted) outcome;
            try {
                return new Prepared.Ready(admitted, write(userId, type, format, method, maskedTarget, length, context,
                        client, ttl, smsRange));
            } catch (RuntimeException failure) {
                // Nothing went out: the send counts against nothing, and the user may try again at once.
                admission.withdraw(admitted).ifPresent(failure::addSuppressed);
                throw failure;
            }
        });
        if (prepared instanceof Prepared.Refused refused) {
            return refused.result();
        }
        SendAdmission.Admitted admitted = ((Prepared.Ready) prepared).admitted();
        Written written = ((Prepared.Ready) prepared).written();
        VerificationCode stored = written.code();
        String plaintext = written.plaintext();
        Instant expiresAt = stored.expiresAt();

        Map<String, String> details = details(type, format);
        details.put("deliveryMethod", method.name());
        details.put("deliveryTarget", maskedTarget);
        details.put("locale", locale.toLanguageTag());
        context.ifPresent(ignored -> details.put("context", "bound"));
        admitted.sms().ifPresent(verdict -> smsDetails(verdict, details));
        try {
            sender.send(new OutgoingCode(userId, type, format, method, target, maskedTarget, plaintext, expiresAt, locale,
                    context));
        } catch (DeliveryException | RuntimeException e) {
            units.run("record a failed delivery", () -> {
                // The channel may have taken the message before it failed (and may bill it): its places stay.
                // Any failure of the channel, checked or not, leaves no usable code behind.
                codes.deleteCode(stored);
                afterDelivery(written, () -> audit.recordFailure(userId, AuditEventType.CODE_DELIVERY_FAILED,
                        "DELIVERY_FAILED", details, client), List.of());
                return null;
            });
            // A DeliveryException's message is safe by contract; an unchecked failure may echo the full
            // address, so only its type is logged.
            LOG.warn("Delivery of a {} code for user {} by {} to {} failed: {}", type, userId, method, maskedTarget,
                    e instanceof DeliveryException ? e.getMessage() : e.getClass().getSimpleName());
            return new IssueResult.DeliveryFailed(method, maskedTarget);
        }
        details.put("expiresAt", Instants.iso(expiresAt));
        // The message is out and the code durable since its unit: this entry is answered once committed (see runRecord).
        units.runRecord("record a sent code", () -> {
            // The SMS's counts in its range and country go with its entries: no round trip of their own, and each
            // fails open (the message is gone already).
            List<Supplier<Object>> writes = new ArrayList<>();
            if (admitted.sms().isPresent()) {
                writes.addAll(signals.sentCounts(target));
            }
            afterDelivery(written, () -> audit.recordSuccess(userId, AuditEventType.CODE_SENT, details, client), writes);
            return null;
        });
        return new IssueResult.Issued(type, method, format, maskedTarget, expiresAt, locale);
    }

    /**
     * A code as stored (its HMAC) and as it goes out, with the CODES_INVALIDATED entries of what its placement made
     * unusable, built at that moment and written with the entry that follows the delivery.
     */
    private record Written(VerificationCode code, String plaintext, List<AuditEntry> invalidated) {
    }

    /** The entry that follows the delivery, the placement's invalidations and {@code more}, in one step. */
    private void afterDelivery(Written written, Supplier<AuditEntry> outcome, List<Supplier<Object>> more) {
        List<Supplier<Object>> writes = new ArrayList<>();
        written.invalidated().forEach(entry -> writes.add(() -> audit.record(entry)));
        writes.add(outcome::get);
        writes.addAll(more);
        units.together(writes);
    }

    /** What a send's unit of work ends with: refused (its audit entry written), or a stored code to deliver. */
    private sealed interface Prepared {

        record Refused(IssueResult result) implements Prepared {
        }

        record Ready(SendAdmission.Admitted admitted, Written written) implements Prepared {
        }
    }

    /**
     * Stores the new code as the current one and then deletes the codes it replaces: everything of a send between
     * its admission and its delivery.
     */
    private Written write(String userId, CodeType type, CodeFormat format, DeliveryMethod method, String maskedTarget,
                          int length, Optional<String> context, ClientContext client, Duration ttl,
                          Optional<String> smsRange) {
        Instant createdAt = Instants.toMillis(clock.instant());
        // ttl keeps whole seconds: the code is valid until the start of that second, and the caller is told so.
        Instant expiresAt = Instants.wholeSecond(createdAt.plus(ttl));
        for (int attempt = 0; attempt < MAX_INSERT_ATTEMPTS; attempt++) {
            String plaintext = format == CodeFormat.NUMERIC ? tokens.numericCode(length) : tokens.randomToken();
            String digest = CodeDigests.storedDigest(keys, format, userId, type, plaintext, context);
            VerificationCode candidate = new VerificationCode(digest, userId, type, format, method, maskedTarget,
                    false, createdAt, expiresAt,
                    context.map(text -> keys.currentDigest(CodeDigests.contextInput(text))), smsRange);
            // The issue id lets the store tell a retry of this very write (answer lost) from a key collision;
            // a retry must not make this request generate and deliver a second code.
            if (codes.placeCode(candidate, tokens.attemptId()) instanceof CodePlacement.Placed placed) {
                return new Written(candidate, plaintext, keepOnlyNewest(candidate, placed.deleted(), client));
            }
        }
        throw new StoreException("no free code key after " + MAX_INSERT_ATTEMPTS + " attempts");
    }

    /** Says whether a code is valid now, without using it up. A failure counts like a failed verification. */
    public VerificationResult check(VerifyRequest request) {
        return evaluate(request, Operation.CHECK);
    }

    /** Uses up a valid code: of any number of concurrent verifications of one code, exactly one succeeds. */
    public VerificationResult verify(VerifyRequest request) {
        return evaluate(request, Operation.VERIFY);
    }

    /** The code types' send limits ({@code SEND_<codeType>}), as support sees and lifts them. */
    public List<UserLimit> sendLimits() {
        List<UserLimit> limits = new ArrayList<>();
        for (CodeType type : CodeType.values()) {
            limits.add(new UserLimit(sendAction(type), userId -> rateLimiter.current(userId, sendAction(type),
                    policy.sendLimit())));
        }
        return limits;
    }

    /** The user's live codes of every type, newest first: what support staff may see (never a digest). */
    public List<LiveCode> liveCodes(String userId) {
        Inputs.userId(userId);
        Instant now = clock.instant();
        List<LiveCode> live = new ArrayList<>();
        for (CodeType type : CodeType.values()) {
            codes.findCodes(userId, type).stream().filter(code -> code.isActiveAt(now))
                    .map(code -> new LiveCode(code.codeType(), code.format(), code.deliveryMethod(), code.maskedTarget(),
                            code.createdAt(), code.expiresAt()))
                    .forEach(live::add);
        }
        live.sort(Comparator.comparing(LiveCode::createdAt).reversed());
        return live;
    }

    /**
     * Deletes the user's codes of every type; audits CODES_INVALIDATED per type that had a live one, with
     * {@code context} (for example the operator's key id) among its details.
     */
    public int invalidateAll(String userId, String reason, Map<String, String> context, ClientContext client) {
        Inputs.userId(userId);
        Instant now = clock.instant();
        // Every type's deletion and entry: one unit of work (on the embedded store one transaction).
        return units.run("invalidate a user's codes", () -> {
            int total = 0;
            for (CodeType type : CodeType.values()) {
                int active = activeAmong(codes.deleteCodes(userId, type), now);
                auditInvalidated(userId, type, active, reason, context, client);
                total += active;
            }
            return total;
        });
    }

    /** Deletes the user's codes of a type; audits CODES_INVALIDATED when any was still active. */
    public int invalidate(String userId, CodeType type, String reason, ClientContext client) {
        Inputs.userId(userId);
        Instant now = clock.instant();
        return units.run("invalidate codes", () -> {
            int active = activeAmong(codes.deleteCodes(userId, type), now);
            auditInvalidated(userId, type, active, reason, Map.of(), client);
            return active;
        });
    }

    private static int activeAmong(List<VerificationCode> deleted, Instant now) {
        return (int) deleted.stream().filter(code -> code.isActiveAt(now)).count();
    }

    /** CODES_INVALIDATED, when any of the deleted codes was still active. */
    private void auditInvalidated(String userId, CodeType type, int active, String reason, Map<String, String> context,
                                  ClientContext client) {
        invalidated(userId, type, active, reason, context, client).ifPresent(audit::record);
    }

    /** The CODES_INVALIDATED entry, built now and not written, when any of the deleted codes was still active. */
    private Optional<AuditEntry> invalidated(String userId, CodeType type, int active, String reason,
                                             Map<String, String> context, ClientContext client) {
        if (active == 0) {
            return Optional.empty();
        }
        Map<String, String> details = new LinkedHashMap<>();
        details.put("codeType", type.name());
        details.put("count", Integer.toString(active));
        details.put("reason", reason);
        details.putAll(context);
        return Optional.of(audit.newEntry(userId, AuditEventType.CODES_INVALIDATED, true, Optional.empty(), details,
                client));
    }

    /**
     * The lock-out of guessing deletes the user's NUMERIC codes of the type, the ones guessing threatens. A LINK
     * code (256 random bits) is left alone: otherwise anyone able to send five wrong numeric guesses could kill
     * a person's password-reset link. The store clears the current code on the table itself, so a code sent a
     * moment before is caught even where the user index does not show it yet.
     */
    private void invalidateNumeric(String userId, CodeType type, ClientContext client) {
        List<VerificationCode> numeric = codes.deleteCodes(userId, type, Optional.of(CodeFormat.NUMERIC));
        auditInvalidated(userId, type, activeAmong(numeric, clock.instant()), FailureReason.TOO_MANY_ATTEMPTS.name(),
                Map.of(), client);
    }

    /**
     * Only the newest code of a user and type may be used ({@link VerificationCode#mayReplace}). The store
     * records which one that is on the table itself ({@link CodeRepository#placeCode}), so the rule holds
     * whatever the user index shows: two requests at once, or one right after the other while the index lags,
     * leave exactly one usable code. {@code deleted} is what the placement made unusable: its entries, built now,
     * go to the store with the one that follows the delivery, a round trip fewer. A superseded request's message
     * still goes out, with a code that no longer works.
     */
    private List<AuditEntry> keepOnlyNewest(VerificationCode written, List<VerificationCode> deleted,
                                            ClientContext client) {
        String userId = written.userId();
        CodeType type = written.codeType();
        List<VerificationCode> replaced = deleted.stream().filter(code -> !code.digest().equals(written.digest()))
                .toList();
        Instant now = clock.instant();
        List<AuditEntry> entries = new ArrayList<>();
        invalidated(userId, type, activeAmong(replaced, now), "NEW_CODE_REQUESTED", Map.of(), client)
                .ifPresent(entries::add);
        if (deleted.stream().anyMatch(code -> code.digest().equals(written.digest()))) {
            invalidated(userId, type, activeAmong(List.of(written), now), "CONCURRENT_REQUEST", Map.of(), client)
                    .ifPresent(entries::add);
        }
        return entries;
    }

    /**
     * What the SMS signals said, on the CODE_SENT entry: {@code humanVerified} when the caller's word let it through
     * an open breaker, {@code smsBreaker=monitored} when monitor-only mode let it, {@code signalUnavailable} when
     * the signals could not be read. Nothing for a range in good standing.
     */
    private static void smsDetails(SmsSignals.Verdict verdict, Map<String, String> details) {
        if (verdict instanceof SmsSignals.Bypassed bypassed) {
            details.put("humanVerified", "true");
            details.put("smsRange", bypassed.range().prefix());
            details.put("scope", bypassed.scope().detail());
        } else if (verdict instanceof SmsSignals.Monitored monitored) {
            details.put("smsBreaker", "monitored");
            details.put("smsRange", monitored.range().prefix());
            details.put("scope", monitored.scope().detail());
        } else if (verdict instanceof SmsSignals.Unavailable) {
            details.put("signalUnavailable", "true");
        }
    }

    /** A breaker refused the SMS: a RATE_LIMITED entry naming it (range or country), and when to try again. */
    private IssueResult rangeBlocked(String userId, SmsSignals.Blocked blocked, ClientContext client) {
        Map<String, String> details = new LinkedHashMap<>();
        details.put("action", SmsSignals.BREAKER_ACTION);
        details.put("smsRange", blocked.range().prefix());
        details.put("scope", blocked.scope().detail());
        details.put("country", blocked.range().country());
        details.put("resetsAt", Instants.iso(blocked.until()));
        audit.recordFailure(userId, AuditEventType.RATE_LIMITED, "SMS_RANGE_BLOCKED", details, client);
        long retryAfter = Math.max(1, Duration.between(clock.instant(), blocked.until()).toSeconds());
        return new IssueResult.RangeBlocked(blocked.range().prefix(), blocked.until(), retryAfter, blocked.scope(),
                blocked.range().country());
    }

    private IssueResult rateLimited(String userId, RateLimitDecision decision, ClientContext client) {
        Map<String, String> details = new LinkedHashMap<>();
        details.put("action", decision.action());
        details.put("limit", Integer.toString(decision.limit()));
        details.put("resetsAt", Instants.iso(decision.resetsAt()));
        audit.recordFailure(userId, AuditEventType.RATE_LIMITED, "RATE_LIMITED", details, client);
        return new IssueResult.RateLimited(decision.action(), decision.resetsAt(),
                decision.retryAfterSeconds(clock.instant()));
    }

    /** What is asked of a presented code: only to say whether it is valid, or to use it up. */
    private enum Operation {
        CHECK, VERIFY;

        /** As the audit entry's {@code operation} detail names it. */
        String detail() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    /**
     * One presented code as {@link #evaluate} has read it: the request, what is asked of it, its format and
     * what the caller claims about it (userId, codeType), which the store's condition enforces.
     */
    private record Presented(VerifyRequest request, Operation operation, CodeFormat format, CodeExpectation expectation) {

        String code() {
            return request.code();
        }

        ClientContext client() {
            return request.client();
        }

        /** The user and type to file a failure under: the claimed ones, else the stored code's. */
        Optional<Subject> subject(Optional<VerificationCode> stored) {
            Optional<String> userId = expectation.userId().or(() -> stored.map(VerificationCode::userId));
            Optional<CodeType> type = expectation.codeType().or(() -> stored.map(VerificationCode::codeType));
            return userId.isPresent() && type.isPresent()
                    ? Optional.of(new Subject(userId.get(), type.get())) : Optional.empty();
        }
    }

    /** Whose codes of which type an outcome is audited and counted under. */
    private record Subject(String userId, CodeType type) {
    }

    /**
     * The form of a context, checked here for issue and verify alike, so that no embedding application skips it
     * and a malformed one is refused before it counts as an attempt: at most {@value #MAX_CONTEXT_LENGTH}
     * printable characters, no hidden format characters (a bidi override could make the message read otherwise).
     */
    private static Optional<String> context(Optional<String> context) {
        return Inputs.optionalText("context", context.orElse(null), MAX_CONTEXT_LENGTH);
    }

    private VerificationResult evaluate(VerifyRequest request, Operation operation) {
        String code = Inputs.required("code", request.code());
        context(request.context());
        CodeFormat format = CodeDigests.formatOf(code).orElseThrow(() -> new InvalidInputException("code",
                "must be a numeric code of " + CodeFormat.MIN_NUMERIC_LENGTH + " to " + CodeFormat.MAX_NUMERIC_LENGTH
                        + " digits or a " + SecureTokens.RANDOM_TOKEN_LENGTH + "-character link code"));
        Optional<String> userId = request.userId().map(Inputs::userId);
        Presented attempt = new Presented(request, operation, format, new CodeExpectation(userId, request.codeType()));
        String what = operation.detail() + " a code";
        if (format == CodeFormat.LINK) {
            // 256 random bits protect a link code; it is tested at once, in one conditional write.
            return counted(units.run(what, () -> test(attempt, Optional.empty())));
        }
        // A short code is only ever tested against one user's code of one type.
        Subject subject = new Subject(
                userId.orElseThrow(() -> new InvalidInputException("userId", "is required to verify a numeric code")),
                request.codeType().orElseThrow(() -> new InvalidInputException("codeType",
                        "is required to verify a numeric code")));
        CountedFactor factor = factors.get(subject.type());
        if (factor.knownLockOut(subject.userId()).isPresent()) {
            // A lock-out this instance saw the store refuse moments ago: no store call, no unit, no audit entry.
            return invalid(attempt, FailureReason.TOO_MANY_ATTEMPTS);
        }
        // The count, the look-back, the test and its outcome (the consume, or the failure's audit entry and a
        // lock-out's invalidation) are one unit of work: on the embedded store one transaction.
        return counted(units.run(what, () -> {
            // A counted attempt (CountedAttempts): counted over the windows a live code may span, so no code ever
            // has more than the limit of wrong guesses tested against it, however the fixed windows fall.
            if (!(factor.begin(subject.userId()) instanceof Admission.Admitted admitted)) {
                // Past a limit: the code is not tested, and the codes were invalidated when the limit was reached.
                return new Tested(failed(attempt, subject, FailureReason.TOO_MANY_ATTEMPTS, false), Optional.empty());
            }
            return test(attempt, Optional.of(admitted.attempt()));
        }));
    }

    /** A test's result, and the code it used up (its digest, and the code where a read found it on the way). */
    private record Tested(VerificationResult result, Optional<Probe.Consumed> consumed) {
    }

    /**
     * The result, once a used-up code that may have gone by SMS is counted in its range's verifications: after the
     * unit, so the verification never waits on it inside, and failing open (a fault costs the count, never the
     * verification). A NUMERIC code is read back for its range, since the consume's write returns nothing.
     */
    private VerificationResult counted(Tested tested) {
        Optional<Probe.Consumed> consumed = tested.consumed();
        if (consumed.isEmpty() || !signals.enabled() || !consumed.get().type().allows(DeliveryMethod.SMS)) {
            return tested.result();
        }
        Probe.Consumed used = consumed.get();
        try {
            used.code().or(() -> codes.findCurrentCode(used.userId(), used.type(), used.digest()))
                    .flatMap(VerificationCode::smsRange)
                    .ifPresent(signals::verifiedIn);
        } catch (StoreException fault) {
            signals.unavailable(Optional.empty());
            LOG.warn("A verified SMS code of user {} was not counted in its range: {}", used.userId(),
                    fault.getClass().getSimpleName());
        }
        return tested.result();
    }

    /** What the store said of a presented code: used up by this attempt, or what it holds under that digest. */
    private sealed interface Probe {

        /** {@code code}: the code as a read found it before its consume (a LINK code), else empty. */
        record Consumed(String userId, CodeType type, String digest, Optional<VerificationCode> code) implements Probe {
        }

        record Found(Optional<VerificationCode> code) implements Probe {
        }
    }

    /**
     * Tests the code and settles the outcome. {@code counted} is the attempt's counted place (NUMERIC codes only):
     * given back when the code is valid or the user's own used code, kept for a wrong guess.
     */
    private Tested test(Presented attempt, Optional<Attempt> counted) {
        Instant now = clock.instant();
        Probe probe = counted.isPresent() ? counted.get().tested(() -> probe(attempt, counted.get().place(), now))
                : probe(attempt, Optional.empty(), now);
        if (probe instanceof Probe.Consumed consumed) {
            // A verification is a success of the user's: it resets their wrong answers in a row.
            counted.ifPresentOrElse(place -> place.succeeded(true), () -> attempts.succeeded(consumed.userId()));
            return new Tested(new VerificationResult.Valid(consumed.userId(), consumed.type(), Optional.empty()),
                    Optional.of(consumed));
        }
        return new Tested(untested(attempt, counted, probe, now), Optional.empty());
    }

    /** The outcome of a test that used nothing up: valid for a check, else why not, audited. */
    private VerificationResult untested(Presented attempt, Optional<Attempt> counted, Probe probe, Instant now) {
        CodeExpectation expectation = attempt.expectation();
        Optional<VerificationCode> found = ((Probe.Found) probe).code();

        Optional<VerificationCode> matching = found.filter(expectation::matches);
        if (attempt.operation() == Operation.CHECK && matching.isPresent() && matching.get().isActiveAt(now)) {
            VerificationCode valid = matching.get();
            // No wrong guess; but a check uses nothing up, so it is no success that resets the counts in a row.
            counted.ifPresent(Attempt::noWrongGuess);
            return new VerificationResult.Valid(valid.userId(), valid.codeType(), Optional.of(valid.expiresAt()));
        }
        FailureReason reason = matching.map(stored -> stored.used() ? FailureReason.USED
                        : stored.isExpiredAt(now) ? FailureReason.EXPIRED
                        // The condition failed although the item looked valid: it was used up concurrently.
                        : FailureReason.USED)
                .orElse(FailureReason.NOT_FOUND);
        Optional<Subject> subject = attempt.subject(matching);
        if (subject.isEmpty()) {
            // A link code nobody issued: there is no user to audit.
            return new VerificationResult.Invalid(reason, attempt.request().userId(), attempt.request().codeType());
        }
        if (reason == FailureReason.USED) {
            // The presented code is one of this user's own codes, already used (its digest holds the user, the
            // type and the code): no wrong guess, and it never starts a lock-out.
            counted.ifPresent(Attempt::noWrongGuess);
            return failed(attempt, subject.get(), reason, false);
        }
        // The wrong guess that reaches a limit starts the lock-out.
        boolean limitReached = counted.map(Attempt::wrongGuess).orElse(false);
        return failed(attempt, subject.get(), limitReached ? FailureReason.TOO_MANY_ATTEMPTS : reason, limitReached);
    }

    /**
     * Tests the code under each key of the ring, current key first; {@code place}, the attempt's window place, goes
     * back in the consume's own write.
     */
    private Probe probe(Presented attempt, Optional<Place> place, Instant now) {
        CodeExpectation expectation = attempt.expectation();
        Optional<String> context = attempt.request().context();
        List<String> digests = keys.candidateDigests(CodeDigests.input(attempt.format(),
                expectation.userId().orElse(""), expectation.codeType().orElse(null), attempt.code(), context));
        // The context's HMAC under each key of the ring, in the same order as the code's digests.
        List<Optional<String>> contextDigests = context
                .map(text -> keys.candidateDigests(CodeDigests.contextInput(text)).stream().map(Optional::of).toList())
                .orElseGet(() -> digests.stream().map(ignored -> Optional.<String>empty()).toList());

        Optional<VerificationCode> found = Optional.empty();
        for (int index = 0; index < digests.size(); index++) {
            String digest = digests.get(index);
            Optional<String> contextDigest = contextDigests.get(index);
            if (attempt.operation() == Operation.VERIFY && attempt.format() == CodeFormat.NUMERIC) {
                // userId and codeType are known, so the audit entry's partition is too: one atomic write, no read.
                String userId = expectation.userId().orElseThrow();
                CodeType type = expectation.codeType().orElseThrow();
                ConsumeOutcome outcome = consume(digest, userId, type, attempt, place, now, contextDigest);
                if (outcome instanceof ConsumeOutcome.Consumed) {
                    return new Probe.Consumed(userId, type, digest, Optional.empty());
                }
                found = ((ConsumeOutcome.Rejected) outcome).current();
            } else {
                // Found by its key; the stored digest is compared as well (in constant time), so an item whose
                // key and code attribute disagree, however it came about, is never taken as this code.
                found = (attempt.format() == CodeFormat.NUMERIC
                        ? codes.findCurrentCode(expectation.userId().orElseThrow(), expectation.codeType().orElseThrow(),
                                digest)
                        : codes.findCode(digest))
                        .filter(stored -> SecureTokens.constantTimeEquals(stored.digest(), digest))
                        // A code sent for another context (or none) is not this code, as a NUMERIC digest says too.
                        .filter(stored -> sameContext(stored.contextDigest(), contextDigest));
                if (attempt.operation() == Operation.VERIFY && found.isPresent()) {
                    // A LINK code names no user: the read says whose it is, so that its CODE_VERIFIED entry can be
                    // written in the same atomic step as the consume. The condition re-checks everything.
                    VerificationCode stored = found.get();
                    if (expectation.matches(stored) && stored.isActiveAt(now)) {
                        ConsumeOutcome outcome = consume(digest, stored.userId(), stored.codeType(), attempt, place, now,
                                contextDigest);
                        if (outcome instanceof ConsumeOutcome.Consumed) {
                            return new Probe.Consumed(stored.userId(), stored.codeType(), digest, Optional.of(stored));
                        }
                        found = ((ConsumeOutcome.Rejected) outcome).current();
                    }
                }
            }
            if (found.isPresent()) {
                break;
            }
        }
        return new Probe.Found(found);
    }

    /** The one atomic write of a successful verification: code used, CODE_VERIFIED written, place given back. */
    private ConsumeOutcome consume(String digest, String userId, CodeType type, Presented attempt,
                                   Optional<Place> place, Instant now, Optional<String> contextDigest) {
        AuditEntry verified = audit.newEntry(userId, AuditEventType.CODE_VERIFIED, true, Optional.empty(),
                details(type, attempt.format()), attempt.client());
        return codes.consumeCode(new CodeConsumption(digest, userId, type, attempt.format(), now, tokens.attemptId(),
                verified, place, contextDigest));
    }

    /** Both absent, or equal (compared in constant time): a context is bound to the code it was sent with. */
    private static boolean sameContext(Optional<String> stored, Optional<String> presented) {
        if (stored.isEmpty() || presented.isEmpty()) {
            return stored.isEmpty() && presented.isEmpty();
        }
        return SecureTokens.constantTimeEquals(stored.get(), presented.get());
    }

    private VerificationResult failed(Presented attempt, Subject subject, FailureReason reason, boolean startsLockOut) {
        Map<String, String> details = details(subject.type(), attempt.format());
        details.put("operation", attempt.operation().detail());
        audit.recordFailure(subject.userId(), AuditEventType.CODE_VERIFICATION_FAILED, reason.name(), details,
                attempt.client());
        if (startsLockOut) {
            invalidateNumeric(subject.userId(), subject.type(), attempt.client());
        }
        return invalid(attempt, reason);
    }

    private static VerificationResult invalid(Presented attempt, FailureReason reason) {
        return new VerificationResult.Invalid(reason, attempt.request().userId(), attempt.request().codeType());
    }

    private static Map<String, String> details(CodeType type, CodeFormat format) {
        Map<String, String> details = new LinkedHashMap<>();
        details.put("codeType", type.name());
        details.put("format", format.name());
        return details;
    }
}
