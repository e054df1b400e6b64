package dev.verificationservice.spring.hostapp;

import dev.verificationservice.Verification;
import dev.verificationservice.codes.CodeRequest;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.IssueResult;
import dev.verificationservice.codes.VerificationResult;
import dev.verificationservice.codes.VerifyRequest;
import org.springframework.stereotype.Service;

/** Confirms a person's email address with a 6-digit code, on the store and channel the starter configured. */
@Service
public class EmailConfirmation {

    private final Verification verification;   // from the starter, on the store verification.store names

    public EmailConfirmation(Verification verification) {
        this.verification = verification;
    }

    /** Sends a 6-digit code to the address; false when a limit refused it (try again later) or delivery failed. */
    public boolean sendCode(String userId, String email) {
        IssueResult result = verification.codes().issue(
                CodeRequest.of(userId, CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL, email));
        return result instanceof IssueResult.Issued;
    }

    /** True once, for the right code within 15 minutes; a second use, a wrong or an old code is false. */
    public boolean confirm(String userId, String code) {
        VerificationResult result = verification.codes().verify(
                VerifyRequest.numeric(code, userId, CodeType.EMAIL_VERIFICATION));
        return result.valid();
    }
}
