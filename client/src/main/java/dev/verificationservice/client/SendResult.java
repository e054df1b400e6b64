package dev.verificationservice.client;

import java.time.Duration;
import java.time.Instant;
import java.util.Optional;

/**
 * The outcome of {@code POST /v1/codes}: {@link Sent} (202), {@link RateLimited} (429, with when to try again)
 * or {@link DeliveryFailed} (502, the code was invalidated). Anything else is an exception.
 */
public sealed interface SendResult permits SendResult.Sent, SendResult.RateLimited, SendResult.DeliveryFailed {

    /** Whether the code went out. */
    default boolean sent() {
        return this instanceof Sent;
    }

    /**
     * The code went out. The answer never holds the code.
     *
     * @param maskedTarget the target as it may be shown, e.g. {@code j***@example.com}
     * @param expiresAt    when the code stops being valid
     */
    record Sent(CodeType codeType, DeliveryMethod deliveryMethod, CodeFormat format, String maskedTarget,
                Instant expiresAt) implements SendResult {
    }

    /**
     * Refused by a limit: nothing was sent and nothing was counted. Not retried by the client: tell the person
     * when to try again.
     *
     * @param action     the limit: {@code SEND_<codeType>} (per user), {@code SEND_TO_TARGET},
     *                   {@code SEND_FROM_IP}, {@code RESEND_<codeType>} (the 30-second cooldown),
     *                   {@code VERIFY_<codeType>} (locked out by failed attempts), {@code SMS_BUDGET} or
     *                   {@code SMS_BREAKER} (the number's range is paused: {@link #smsRangeBlocked})
     * @param retryAfter the answer's {@code Retry-After}
     * @param resetsAt   when the limit lets a request through again, if the service said
     * @param detail     the service's explanation, for logs
     */
    record RateLimited(String action, Duration retryAfter, Optional<Instant> resetsAt, String detail)
            implements SendResult {

        /** The service's global SMS budget is spent ({@code SMS_BUDGET_EXHAUSTED}); email still works. */
        public boolean smsBudgetExhausted() {
            return "SMS_BUDGET".equals(action);
        }

        /**
         * SMS to the number's range are paused ({@code SMS_RANGE_BLOCKED}): its codes are seldom verified. Offer
         * email, or check a human and send again with {@link SendCodeRequest#humanVerified}.
         */
        public boolean smsRangeBlocked() {
            return "SMS_BREAKER".equals(action);
        }
    }

    /**
     * The channel failed (502 {@code DELIVERY_FAILED}); the code was invalidated. Check the target, then ask
     * for a new code.
     */
    record DeliveryFailed(DeliveryMethod deliveryMethod, String maskedTarget, String detail) implements SendResult {
    }
}
