package dev.verificationservice.client;

/** The outcome of {@code POST /v1/codes/verify}: a valid code is used up by this call, exactly once. */
public sealed interface VerifyResult permits VerifyResult.Valid, VerifyResult.Invalid {

    boolean valid();

    /** The code was valid and is now used: whose it was and for what. */
    record Valid(String userId, CodeType codeType) implements VerifyResult {
        @Override
        public boolean valid() {
            return true;
        }
    }

    record Invalid(InvalidCodeReason reason) implements VerifyResult {
        @Override
        public boolean valid() {
            return false;
        }
    }
}
