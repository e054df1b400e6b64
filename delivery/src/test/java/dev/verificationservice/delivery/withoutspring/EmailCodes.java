package dev.verificationservice.delivery.withoutspring;

import dev.verificationservice.Verification;
import dev.verificationservice.codes.CodeSender;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.delivery.RoutingCodeSender;
import dev.verificationservice.delivery.email.SmtpCodeSender;
import dev.verificationservice.delivery.email.SmtpSecurity;
import dev.verificationservice.delivery.email.SmtpSettings;
import dev.verificationservice.delivery.messages.MessageRenderer;
import dev.verificationservice.delivery.messages.MessageTemplates;
import dev.verificationservice.delivery.messages.TemplateLocales;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.VerificationStore;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.Optional;

/** Verification codes by email in an application without Spring: the shipped texts, one override, SMTP. */
public final class EmailCodes {

    private EmailCodes() {
    }

    /** An SMTP server that wants STARTTLS and a login on port 587; each delivery may take 10 seconds. */
    public static SmtpSettings smtp(String host, String username, String password) {
        return new SmtpSettings(host, 587, SmtpSecurity.STARTTLS, username, password,
                "ACME <no-reply@acme.example>", Duration.ofSeconds(10));
    }

    /**
     * The library on {@code store} (SqliteVerificationStore.open(dir, clock), say), sending EMAIL codes through
     * {@code smtp} in the reader's language; a LINK code's message links to the application's page.
     */
    public static Verification verification(VerificationStore store, SecretKeyRing keys, SmtpSettings smtp,
                                            Clock clock) {
        MessageTemplates templates = MessageTemplates.withOverrides(
                Map.of("EMAIL_VERIFICATION.subject", "ACME: confirm your email address"));
        MessageRenderer renderer = new MessageRenderer(templates, "https://acme.example/verify?code={code}",
                Optional.empty(), clock);
        CodeSender email = new SmtpCodeSender(smtp, renderer, clock);
        return Verification.builder()
                .store(store)
                .keys(keys)
                .sender(new RoutingCodeSender(Map.of(DeliveryMethod.EMAIL, email)))
                .locales(new TemplateLocales(templates))
                .clock(clock)
                .build();
    }
}
