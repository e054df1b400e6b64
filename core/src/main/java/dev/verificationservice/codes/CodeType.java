package dev.verificationservice.codes;

import java.util.EnumSet;
import java.util.Set;

/**
 * The purpose of a code: it decides which delivery methods are allowed, the default format, and whether the public
 * HTTP API may send and verify it. Each type has its own pending code, send and verify limits and messages, so a
 * code of one type never replaces, spends the limits of, or is used up as one of another.
 */
public enum CodeType {
    EMAIL_VERIFICATION(EnumSet.of(DeliveryMethod.EMAIL), CodeFormat.NUMERIC, true),
    PHONE_VERIFICATION(EnumSet.of(DeliveryMethod.SMS), CodeFormat.NUMERIC, true),
    PASSWORD_RESET(EnumSet.of(DeliveryMethod.EMAIL, DeliveryMethod.SMS), CodeFormat.LINK, true),
    /**
     * A login link (the Spring Boot starter's one-time-token login). Only the application it logs in to issues and
     * uses it: an HTTP caller names both the user and the address, so a LOGIN code it could send would sign whoever
     * holds that address in as that user, wherever an application shares the store.
     */
    LOGIN(EnumSet.of(DeliveryMethod.EMAIL), CodeFormat.LINK, false);

    private final Set<DeliveryMethod> deliveryMethods;
    private final CodeFormat defaultFormat;
    private final boolean publicApi;

    CodeType(Set<DeliveryMethod> deliveryMethods, CodeFormat defaultFormat, boolean publicApi) {
        this.deliveryMethods = deliveryMethods;
        this.defaultFormat = defaultFormat;
        this.publicApi = publicApi;
    }

    /** Whether the public HTTP API may send, check and verify codes of this type (LOGIN: the embedding app only). */
    public boolean publicApi() {
        return publicApi;
    }

    public boolean allows(DeliveryMethod method) {
        return deliveryMethods.contains(method);
    }

    public Set<DeliveryMethod> deliveryMethods() {
        return EnumSet.copyOf(deliveryMethods);
    }

    public CodeFormat defaultFormat() {
        return defaultFormat;
    }
}
