package dev.verificationservice.codes;

import dev.verificationservice.sms.SmsSignals;
import java.time.Instant;
import java.util.Locale;

/** Every outcome of a request to send a code. None of them holds the code. */
public sealed interface IssueResult {

    /** The code was stored and handed to the sender, in the message language {@code locale}. */
    record Issued(CodeType codeType, DeliveryMethod deliveryMethod, CodeFormat format, String maskedTarget,
                  Instant expiresAt, Locale locale) implements IssueResult {
    }

    /**
     * Refused: the user asked for too many codes of this type, or is locked out of verifying this type,
     * until {@code resetsAt}.
     */
    record RateLimited(String action, Instant resetsAt, long retryAfterSeconds) implements IssueResult {
    }

    /**
     * Refused: the breaker of the number's range ({@code smsRange}, such as {@code +447700}), or of its whole
     * {@code country} ({@code scope}), is open until {@code until}, since many codes went there and few were
     * verified (SMS pumping). Another number's range or country, an email code, or a caller that checked a human
     * itself ({@code humanVerified}) still gets through.
     */
    record RangeBlocked(String smsRange, Instant until, long retryAfterSeconds, SmsSignals.Scope scope,
                        String country) implements IssueResult {

        public RangeBlocked(String smsRange, Instant until, long retryAfterSeconds) {
            this(smsRange, until, retryAfterSeconds, SmsSignals.Scope.RANGE, "");
        }
    }

    /** The channel failed; the code was invalidated. Only the masked target is kept, never the channel's error. */
    record DeliveryFailed(DeliveryMethod deliveryMethod, String maskedTarget) implements IssueResult {
    }
}
