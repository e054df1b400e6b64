package dev.verificationservice.codes;

/**
 * Delivers a code to a person (SMTP, SMS, webhook, or the development outbox). A sender must not log the
 * code. When it throws, the code is invalidated and the failure audited.
 */
public interface CodeSender {

    void send(OutgoingCode message) throws DeliveryException;
}
