package dev.verificationservice.store;

import dev.verificationservice.codes.CodeConsumption;
import dev.verificationservice.codes.CodeFormat;
import dev.verificationservice.codes.CodeRepository;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.ConsumeOutcome;
import dev.verificationservice.codes.VerificationCode;
import java.util.List;
import java.util.Optional;

/**
 * A store's codes with calls that fail on purpose (by name: {@code insertCode}, {@code findCode},
 * {@code findCodes}), and the read of a user's codes held at a {@link CallGate}.
 */
public record FaultyCodes(CodeRepository store, Faults faults, CallGate gate) implements CodeRepository {

    @Override
    public boolean insertCode(VerificationCode code, String issueId) {
        return faults.call("insertCode", () -> store.insertCode(code, issueId));
    }

    @Override
    public Optional<VerificationCode> findCode(String digest) {
        return faults.call("findCode", () -> store.findCode(digest));
    }

    @Override
    public ConsumeOutcome consumeCode(CodeConsumption consumption) {
        return store.consumeCode(consumption);
    }

    @Override
    public List<VerificationCode> makeCurrent(VerificationCode code) {
        return store.makeCurrent(code);
    }

    @Override
    public List<VerificationCode> deleteCodes(String userId, CodeType codeType, Optional<CodeFormat> format) {
        return store.deleteCodes(userId, codeType, format);
    }

    @Override
    public List<VerificationCode> findCodes(String userId, CodeType codeType) {
        gate.pass();
        return faults.call("findCodes", () -> store.findCodes(userId, codeType));
    }

    @Override
    public void deleteCode(String digest) {
        store.deleteCode(digest);
    }
}
