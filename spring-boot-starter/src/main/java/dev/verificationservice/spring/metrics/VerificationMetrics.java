package dev.verificationservice.spring.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The service's business counters, exported to Prometheus under {@code verification_*}. No tag ever holds a
 * user id, target or code: only types, methods, reasons and actions. A bean of the starter
 * ({@code VerificationAutoConfiguration}); the server's controllers count each outcome with it, and a host
 * application may too.
 */
public class VerificationMetrics {

    private final MeterRegistry registry;

    public VerificationMetrics(MeterRegistry registry) {
        this.registry = registry;
    }

    public void codeSent(String codeType, String deliveryMethod) {
        counter("verification.codes.sent", "Codes handed to a delivery channel", "codeType", codeType,
                "deliveryMethod", deliveryMethod).increment();
    }

    public void deliveryFailed(String codeType, String deliveryMethod) {
        counter("verification.codes.delivery.failed", "Codes whose delivery failed", "codeType", codeType,
                "deliveryMethod", deliveryMethod).increment();
    }

    public void codeVerified(String codeType) {
        counter("verification.codes.verified", "Codes verified and used up", "codeType", codeType).increment();
    }

    public void codeFailed(String reason) {
        counter("verification.codes.failed", "Failed checks and verifications, by reason", "reason", reason).increment();
    }

    public void rateLimited(String action) {
        counter("verification.ratelimited", "Requests refused by a rate limit", "action", action).increment();
    }

    /** SMS segments handed to an SMS channel, by encoding ({@code GSM_7} or {@code UCS_2}): what SMS cost. */
    public void smsSegments(String encoding, int segments) {
        counter("verification.sms.segments", "SMS segments sent, by encoding", "encoding", encoding).increment(segments);
    }

    public void devicesAdded() {
        counter("verification.devices.added", "Devices registered").increment();
    }

    public void devicesRevoked(int count) {
        counter("verification.devices.revoked", "Device tokens revoked").increment(count);
    }

    private Counter counter(String name, String description, String... tags) {
        return Counter.builder(name).description(description).tags(tags).register(registry);
    }
}
