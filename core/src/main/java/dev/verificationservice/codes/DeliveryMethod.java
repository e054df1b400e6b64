package dev.verificationservice.codes;

/** How a code reaches the person: an email message or a text message to an E.164 phone number. */
public enum DeliveryMethod {
    EMAIL,
    SMS
}
