package dev.verificationservice.spring.store;

import dev.verificationservice.codes.CodeConsumption;
import dev.verificationservice.codes.CodeFormat;
import dev.verificationservice.codes.CodePlacement;
import dev.verificationservice.codes.CodeRepository;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.ConsumeOutcome;
import dev.verificationservice.codes.VerificationCode;
import java.util.List;
import java.util.Optional;

/** The store's codes, each call timed. */
record MeteredCodes(CodeRepository codes, StoreTimers.Port timer) implements CodeRepository {

    @Override
    public CodePlacement placeCode(VerificationCode code, String issueId) {
        return timer.time("placeCode", () -> codes.placeCode(code, issueId));
    }

    @Override
    public Optional<VerificationCode> findCode(String digest) {
        return timer.time("findCode", () -> codes.findCode(digest));
    }

    @Override
    public Optional<VerificationCode> findCurrentCode(String userId, CodeType codeType, String digest) {
        return timer.time("findCurrentCode", () -> codes.findCurrentCode(userId, codeType, digest));
    }

    @Override
    public ConsumeOutcome consumeCode(CodeConsumption consumption) {
        return timer.time("consumeCode", () -> codes.consumeCode(consumption));
    }

    @Override
    public List<VerificationCode> deleteCodes(String userId, CodeType codeType) {
        return timer.time("deleteCodes", () -> codes.deleteCodes(userId, codeType));
    }

    @Override
    public List<VerificationCode> deleteCodes(String userId, CodeType codeType, Optional<CodeFormat> format) {
        return timer.time("deleteCodes", () -> codes.deleteCodes(userId, codeType, format));
    }

    @Override
    public List<VerificationCode> findCodes(String userId, CodeType codeType) {
        return timer.time("findCodes", () -> codes.findCodes(userId, codeType));
    }

    @Override
    public void deleteCode(VerificationCode code) {
        timer.run("deleteCode", () -> codes.deleteCode(code));
    }
}
