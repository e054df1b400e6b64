package dev.verificationservice.store.memory;

import dev.verificationservice.codes.CodeConsumption;
import dev.verificationservice.codes.CodeFormat;
import dev.verificationservice.codes.CodePlacement;
import dev.verificationservice.codes.CodeRepository;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.ConsumeOutcome;
import dev.verificationservice.codes.VerificationCode;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Verification codes in memory, by digest.
 *
 * <p><b>Algorithm.</b>
 * <ol>
 *   <li>Place: a free digest takes the code, stamped with the request's issue id; a digest taken by this very
 *   request is a retry (stored); by another code, a collision (the caller generates another). Then, keep only the
 *   newest: the user's codes of the type that the new code replaces ({@link VerificationCode#replacedBy}) are
 *   deleted at once. Nothing lags here, so a code no longer stored is the whole rule "no other code was made
 *   current, nor were the codes invalidated" that the code slot keeps on a store with a lagging index.</li>
 *   <li>Consume ({@link MemoryAttempts}): the condition is that the code is stored, unused, unexpired at
 *   {@code now} (its ttl second), of the expected user and type, with the same context digest or none on both
 *   sides; the change marks it used by this attempt, with its {@code CODE_VERIFIED} entry and the place given back.
 *   A code used by this very attempt is its own earlier success.</li>
 * *   <li>Find and delete a user's codes of a type: every stored code of that user and type, by creation time.</li>
 * </ol>
 */
final class MemoryCodes implements CodeRepository {

    /** A code as the store keeps it: with the request that wrote it and the attempt that used it, if one did. */
    record StoredCode(VerificationCode code, String issuedBy, Optional<String> consumedBy) {
    }

    private final Object lock;
    private final MemoryAttempts attempts;
    private final Map<String, StoredCode> codes = new LinkedHashMap<>();

    MemoryCodes(Object lock, MemoryAttempts attempts) {
        this.lock = lock;
        this.attempts = attempts;
    }

    @Override
    public CodePlacement placeCode(VerificationCode code, String issueId) {
        synchronized (lock) {
            StoredCode stored = codes.putIfAbsent(code.digest(), new StoredCode(code, issueId, Optional.empty()));
            if (stored != null && !stored.issuedBy().equals(issueId)) {
                return new CodePlacement.KeyTaken();
            }
            return new CodePlacement.Placed(delete(VerificationCode.replacedBy(code,
                    findCodes(code.userId(), code.codeType()))));
        }
    }

    @Override
    public Optional<VerificationCode> findCode(String digest) {
        synchronized (lock) {
            return Optional.ofNullable(codes.get(digest)).map(StoredCode::code);
        }
    }

    @Override
    public Optional<VerificationCode> findCurrentCode(String userId, CodeType codeType, String digest) {
        // Nothing lags here: a code still stored is its user's current code of its type.
        return findCode(digest).filter(code -> code.userId().equals(userId) && code.codeType() == codeType);
    }

    @Override
    public ConsumeOutcome consumeCode(CodeConsumption consumption) {
        synchronized (lock) {
            StoredCode stored = codes.get(consumption.digest());
            Optional<VerificationCode> current = Optional.ofNullable(stored).map(StoredCode::code);
            boolean holds = current.filter(code -> !code.used() && !code.isExpiredAt(consumption.now())
                    && code.userId().equals(consumption.userId()) && code.codeType() == consumption.codeType()
                    && code.contextDigest().equals(consumption.contextDigest())).isPresent();
            boolean wonBefore = stored != null && stored.consumedBy().equals(Optional.of(consumption.attemptId()));
            boolean won = attempts.write(holds, wonBefore, consumption.verified(), consumption.placeToGiveBack(),
                    "code verification", () -> codes.put(consumption.digest(), new StoredCode(used(stored.code()),
                            stored.issuedBy(), Optional.of(consumption.attemptId()))));
            return won ? new ConsumeOutcome.Consumed() : new ConsumeOutcome.Rejected(current);
        }
    }

    private static VerificationCode used(VerificationCode code) {
        return new VerificationCode(code.digest(), code.userId(), code.codeType(), code.format(), code.deliveryMethod(),
                code.maskedTarget(), true, code.createdAt(), code.expiresAt(), code.contextDigest(), code.smsRange());
    }

    @Override
    public List<VerificationCode> deleteCodes(String userId, CodeType codeType, Optional<CodeFormat> format) {
        synchronized (lock) {
            return delete(findCodes(userId, codeType).stream()
                    .filter(code -> format.map(code.format()::equals).orElse(true)).toList());
        }
    }

    private List<VerificationCode> delete(List<VerificationCode> doomed) {
        doomed.forEach(code -> codes.remove(code.digest()));
        return doomed;
    }

    @Override
    public List<VerificationCode> findCodes(String userId, CodeType codeType) {
        synchronized (lock) {
            return codes.values().stream().map(StoredCode::code)
                    .filter(code -> code.userId().equals(userId) && code.codeType() == codeType)
                    .sorted(Comparator.comparing(VerificationCode::createdAt)).toList();
        }
    }

    @Override
    public void deleteCode(VerificationCode code) {
        synchronized (lock) {
            codes.remove(code.digest());
        }
    }

    /** Every stored code, for the raw view of the tests. */
    List<StoredCode> stored() {
        synchronized (lock) {
            return List.copyOf(codes.values());
        }
    }
}
