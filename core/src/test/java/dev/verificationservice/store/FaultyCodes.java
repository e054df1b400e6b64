package dev.verificationservice.store;

import dev.verificationservice.codes.CodeConsumption;
import dev.verificationservice.codes.CodeFormat;
import dev.verificationservice.codes.CodePlacement;
import dev.verificationservice.codes.CodeRepository;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.ConsumeOutcome;
import dev.verificationservice.codes.VerificationCode;
import java.util.List;
import java.util.Optional;

/**
 * A store's codes with calls that fail on purpose (by name: {@code placeCode}, {@code findCode},
 * {@code findCodes}).
 */
public record FaultyCodes(CodeRepository store, Faults faults) implements CodeRepository {

    @Override
    public CodePlacement placeCode(VerificationCode code, String issueId) {
        return faults.call("placeCode", () -> store.placeCode(code, issueId));
    }

    @Override
    public Optional<VerificationCode> findCode(String digest) {
        return faults.call("findCode", () -> store.findCode(digest));
    }

    @Override
    public Optional<VerificationCode> findCurrentCode(String userId, CodeType codeType, String digest) {
        return faults.call("findCode", () -> store.findCurrentCode(userId, codeType, digest));
    }

    @Override
    public ConsumeOutcome consumeCode(CodeConsumption consumption) {
        return store.consumeCode(consumption);
    }

    @Override
    public List<VerificationCode> deleteCodes(String userId, CodeType codeType, Optional<CodeFormat> format) {
        return store.deleteCodes(userId, codeType, format);
    }

    @Override
    public List<VerificationCode> findCodes(String userId, CodeType codeType) {
        return faults.call("findCodes", () -> store.findCodes(userId, codeType));
    }

    @Override
    public void deleteCode(VerificationCode code) {
        store.deleteCode(code);
    }
}
