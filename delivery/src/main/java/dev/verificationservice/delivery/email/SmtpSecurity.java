package dev.verificationservice.delivery.email;

/**
 * How the SMTP connection is protected: {@code STARTTLS} (required, not opportunistic; usually port 587),
 * {@code SMTPS} (TLS from the first byte; usually port 465) or {@code NONE} (clear text: only to a relay on this
 * machine, and never with a login).
 */
public enum SmtpSecurity { STARTTLS, SMTPS, NONE }
