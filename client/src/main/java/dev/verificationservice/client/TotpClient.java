package dev.verificationservice.client;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import tools.jackson.databind.JsonNode;

/**
 * Authenticator apps (TOTP) and recovery codes: {@code /v1/users/{userId}/totp} and
 * {@code /v1/users/{userId}/recovery-codes}. From {@link VerificationClient#totp()}.
 */
public final class TotpClient {

    /** The problem code of a new set that a simultaneous one came before. */
    static final String CONFLICT = "RECOVERY_CODES_CONFLICT";

    private final Transport transport;

    TotpClient(Transport transport) {
        this.transport = transport;
    }

    /**
     * {@code POST /v1/users/{userId}/totp}: a new pending factor, to show the person as a QR code (or its secret
     * to type); it verifies nothing until {@link #confirm confirmed}, and lapses after 15 minutes. The secret is
     * in this answer and nowhere else. Empty label or issuer: the userId, the service's issuer.
     */
    public TotpEnrolment enrol(String userId, Optional<String> label, Optional<String> issuer) {
        Objects.requireNonNull(label, "label");
        Objects.requireNonNull(issuer, "issuer");
        Map<String, Object> body = new LinkedHashMap<>();
        label.ifPresent(value -> body.put("label", value));
        issuer.ifPresent(value -> body.put("issuer", value));
        Fields answer = transport.post(Operation.ENROL_TOTP, totpPath(userId), body).json();
        return new TotpEnrolment(answer.text("factorId"), answer.text("secret"), answer.text("otpauthUri"),
                answer.text("qrCode"), answer.instant("expiresAt"));
    }

    /**
     * {@code POST /v1/users/{userId}/totp/{factorId}/confirm} with the app's current code: when confirmed, the
     * user's new recovery codes (shown this once; the earlier set is void).
     */
    public TotpConfirmResult confirm(String userId, String factorId, String code) {
        Objects.requireNonNull(factorId, "factorId");
        Fields answer = transport.post(Operation.CONFIRM_TOTP, totpPath(userId) + "/" + Transport.segment(factorId)
                + "/confirm", codeBody(code, ClientContext.none())).json();
        if (!answer.bool("confirmed")) {
            return new TotpConfirmResult.NotConfirmed(Fields.knownOrUnknown(TotpConfirmResult.Reason.class,
                    answer.text("reason")));
        }
        return new TotpConfirmResult.Confirmed(answer.has("recoveryCodes") ? answer.texts("recoveryCodes") : List.of());
    }

    /** {@code POST /v1/users/{userId}/totp/verify} without client context. */
    public TotpVerifyResult verify(String userId, String code) {
        return verify(userId, code, ClientContext.none());
    }

    /**
     * {@code POST /v1/users/{userId}/totp/verify}: whether the code is one of the user's confirmed factors' for
     * now; each 30-second step is accepted once ({@code REPLAYED} after). {@code client} goes to the audit log.
     */
    public TotpVerifyResult verify(String userId, String code, ClientContext client) {
        Fields answer = transport.post(Operation.VERIFY_TOTP, totpPath(userId) + "/verify", codeBody(code, client))
                .json();
        if (!answer.bool("valid")) {
            return new TotpVerifyResult.Invalid(Fields.knownOrUnknown(TotpVerifyResult.Reason.class,
                    answer.text("reason")));
        }
        return new TotpVerifyResult.Valid(answer.text("factorId"));
    }

    /** {@code GET /v1/users/{userId}/totp}: the user's factors, confirmed or pending, oldest first; no secret. */
    public List<TotpFactor> list(String userId) {
        Fields answer = transport.get(Operation.LIST_TOTP, totpPath(userId)).json();
        return answer.objects("factors").stream()
                .map(factor -> new TotpFactor(factor.text("factorId"), factor.text("label"), factor.bool("confirmed"),
                        factor.instant("createdAt"), factor.optionalInstant("lastUsedAt")))
                .toList();
    }

    /**
     * {@code DELETE /v1/users/{userId}/totp/{factorId}}: whether the factor existed. Removing the last confirmed
     * factor removes the recovery codes too.
     */
    public boolean remove(String userId, String factorId) {
        Objects.requireNonNull(factorId, "factorId");
        return transport.delete(Operation.REMOVE_TOTP, totpPath(userId) + "/" + Transport.segment(factorId)).json()
                .integer("removed") > 0;
    }

    /**
     * {@code POST /v1/users/{userId}/recovery-codes}: a new set, shown this once (the earlier set is void), or a
     * conflict with a simultaneous request for one. A user without a confirmed factor has none: a
     * {@link ProblemException} of code {@code NO_FACTOR}.
     */
    public RecoveryCodeIssue issueRecoveryCodes(String userId) {
        Transport.Answer answer = transport.post(Operation.ISSUE_RECOVERY_CODES, recoveryPath(userId), Map.of());
        if (answer.status() == 409) {
            Optional<JsonNode> problem = answer.problemJson();
            if (problem.isPresent() && CONFLICT.equals(Transport.text(problem.get(), "code").orElse(""))) {
                return new RecoveryCodeIssue.Conflict(Transport.text(problem.get(), "detail").orElse(""));
            }
        }
        return new RecoveryCodeIssue.Issued(answer.json().texts("recoveryCodes"));
    }

    /** {@code POST /v1/users/{userId}/recovery-codes/verify}: each code works once ({@code USED} after). */
    public RecoveryCodeResult verifyRecoveryCode(String userId, String code) {
        Fields answer = transport.post(Operation.VERIFY_RECOVERY_CODE, recoveryPath(userId) + "/verify",
                codeBody(code, ClientContext.none())).json();
        Optional<RecoveryCodeResult.Reason> reason = answer.optionalText("reason")
                .map(name -> Fields.knownOrUnknown(RecoveryCodeResult.Reason.class, name));
        return new RecoveryCodeResult(answer.bool("valid"), reason, answer.integer("remaining"));
    }

    private static Map<String, Object> codeBody(String code, ClientContext client) {
        Objects.requireNonNull(code, "code");
        Objects.requireNonNull(client, "client");
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("code", code);
        client.ipAddress().ifPresent(ip -> body.put("ipAddress", ip));
        client.userAgent().ifPresent(agent -> body.put("userAgent", agent));
        return body;
    }

    private static String totpPath(String userId) {
        Objects.requireNonNull(userId, "userId");
        return "/v1/users/" + Transport.segment(userId) + "/totp";
    }

    private static String recoveryPath(String userId) {
        Objects.requireNonNull(userId, "userId");
        return "/v1/users/" + Transport.segment(userId) + "/recovery-codes";
    }
}
