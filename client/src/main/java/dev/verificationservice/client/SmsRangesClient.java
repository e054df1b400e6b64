package dev.verificationservice.client;

import java.util.Objects;

/**
 * SMS number ranges over the operator API ({@code /v1/admin/sms/ranges}): from {@link VerificationClient#smsRanges()}
 * of a client built with an <b>admin key</b>; an application key gets a {@link ProblemException} with code
 * {@code FORBIDDEN}. A prefix that is no range (not {@code +}, a calling code and digits) is an
 * {@link InvalidInputException} naming {@code prefix}.
 */
public final class SmsRangesClient {

    private static final String PATH = "/v1/admin/sms/ranges";

    private final Transport transport;

    SmsRangesClient(Transport transport) {
        this.transport = transport;
    }

    /** {@code GET /v1/admin/sms/ranges}: the open breakers, the worst ranges and the allowed ranges. */
    public SmsRanges list() {
        Fields answer = transport.get(Operation.SMS_RANGES, PATH).json();
        return new SmsRanges(answer.objects("openBreakers").stream().map(SmsRangesClient::range).toList(),
                answer.objects("worst").stream().map(SmsRangesClient::range).toList(),
                answer.objects("allowed").stream().map(allowed -> new SmsRanges.Allowed(allowed.text("range"),
                        allowed.text("country"), allowed.instant("allowedAt"), allowed.text("operatorKeyId"))).toList());
    }

    /** {@code PUT .../{prefix}/allowed}: its breaker refuses none of its SMS; whether it was allowed already. */
    public boolean allow(String prefix) {
        return transport.put(Operation.ALLOW_SMS_RANGE, path(prefix) + "/allowed").json().bool("wasAllowed");
    }

    /** {@code DELETE .../{prefix}/allowed}: its breaker judges it again; whether it was allowed. */
    public boolean disallow(String prefix) {
        return transport.delete(Operation.ALLOW_SMS_RANGE, path(prefix) + "/allowed").json().bool("wasAllowed");
    }

    /** {@code DELETE .../{prefix}/breaker}: its breaker lifted and its figures forgotten; whether it was open. */
    public boolean liftBreaker(String prefix) {
        return transport.delete(Operation.LIFT_SMS_BREAKER, path(prefix) + "/breaker").json().bool("wasOpen");
    }

    private static String path(String prefix) {
        Objects.requireNonNull(prefix, "prefix");
        return PATH + "/" + Transport.segment(prefix);
    }

    private static SmsRange range(Fields range) {
        return new SmsRange(range.text("range"), range.text("country"), range.number("sent"), range.number("verified"),
                range.optionalInstant("openUntil"), range.bool("allowed"));
    }
}
