package dev.verificationservice.bench;

import java.util.List;

/** The API operations the suite measures, by the names its table prints. */
final class Operations {

    static final String NOOP = "no-op (GET /actuator/health/liveness)";
    static final String SEND = "send code (POST /v1/codes)";
    static final String CHECK = "check (POST /v1/codes/check)";
    static final String VERIFY_NUMERIC = "verify NUMERIC (POST /v1/codes/verify)";
    static final String VERIFY_LINK = "verify LINK (POST /v1/codes/verify)";
    static final String DEVICE_REGISTER = "device register (POST /v1/devices)";
    static final String DEVICE_VERIFY = "device verify (POST /v1/devices/verify)";
    static final String RATE_LIMITS = "rate-limit state (GET .../rate-limits)";
    static final String AUDIT_PAGE = "audit page of 50 (GET .../audit)";

    /** Not an API call: what the relay asks of the store for one event and one endpoint (fan-out, claim, outcome). */
    static final String EVENT_RELAY = "event to 1 endpoint (webhook relay)";
    /** Not an API call: one audit entry written alone, its outbox index entry included. */
    static final String AUDIT_ENTRY = "audit entry = event (outbox index entry included)";

    static final List<String> API = List.of(SEND, CHECK, VERIFY_NUMERIC, VERIFY_LINK, DEVICE_REGISTER, DEVICE_VERIFY,
            RATE_LIMITS, AUDIT_PAGE);

    // Authenticator apps and recovery codes: measured by the cost probe through the core; the load run
    // leaves them out until the server has their endpoints.
    static final String TOTP_ENROL = "TOTP enrol (POST .../totp)";
    static final String TOTP_CONFIRM = "TOTP confirm (POST .../totp/{factorId}/confirm)";
    static final String TOTP_VERIFY = "TOTP verify (POST .../totp/verify)";
    static final String RECOVERY_VERIFY = "recovery code verify (POST .../recovery-codes/verify)";

    private Operations() {
    }
}
