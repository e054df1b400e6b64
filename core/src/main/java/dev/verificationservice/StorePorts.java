package dev.verificationservice;

import dev.verificationservice.audit.AuditRepository;
import dev.verificationservice.codes.CodeRepository;
import dev.verificationservice.devices.DeviceRepository;
import dev.verificationservice.events.WebhookRepository;
import dev.verificationservice.idempotency.IdempotencyRepository;
import dev.verificationservice.passkeys.PasskeyRepository;
import dev.verificationservice.ratelimit.RateLimitRepository;
import dev.verificationservice.recovery.RecoveryCodeRepository;
import dev.verificationservice.sms.SmsRangeRepository;
import dev.verificationservice.totp.TotpRepository;
import java.util.Objects;

/**
 * The ports of one store, one per concept, as {@link VerificationStore#ports()} hands them out: a store builds this
 * once from its classes of each concept, and a decorator (the starter's timing) builds one of its wrappers.
 */
public record StorePorts(CodeRepository codes, DeviceRepository devices, AuditRepository audit,
                         RateLimitRepository counters, IdempotencyRepository idempotency, TotpRepository totp,
                         RecoveryCodeRepository recoveryCodes, WebhookRepository webhooks,
                         PasskeyRepository passkeys, SmsRangeRepository smsRanges) {

    public StorePorts {
        Objects.requireNonNull(codes, "codes");
        Objects.requireNonNull(devices, "devices");
        Objects.requireNonNull(audit, "audit");
        Objects.requireNonNull(counters, "counters");
        Objects.requireNonNull(idempotency, "idempotency");
        Objects.requireNonNull(totp, "totp");
        Objects.requireNonNull(recoveryCodes, "recoveryCodes");
        Objects.requireNonNull(webhooks, "webhooks");
        Objects.requireNonNull(passkeys, "passkeys");
        Objects.requireNonNull(smsRanges, "smsRanges");
    }
}
