package dev.verificationservice.codes;

import java.util.EnumSet;
import java.util.Set;

/** The purpose of a code: it decides which delivery methods are allowed and the default format. */
public enum CodeType {
    EMAIL_VERIFICATION(EnumSet.of(DeliveryMethod.EMAIL), CodeFormat.NUMERIC),
    PHONE_VERIFICATION(EnumSet.of(DeliveryMethod.SMS), CodeFormat.NUMERIC),
    PASSWORD_RESET(EnumSet.of(DeliveryMethod.EMAIL, DeliveryMethod.SMS), CodeFormat.LINK);

    private final Set<DeliveryMethod> deliveryMethods;
    private final CodeFormat defaultFormat;

    CodeType(Set<DeliveryMethod> deliveryMethods, CodeFormat defaultFormat) {
        this.deliveryMethods = deliveryMethods;
        this.defaultFormat = defaultFormat;
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
