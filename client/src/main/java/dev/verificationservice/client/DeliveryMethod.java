package dev.verificationservice.client;

/** How a code reaches the person. */
public enum DeliveryMethod {
    EMAIL,
    SMS
}
