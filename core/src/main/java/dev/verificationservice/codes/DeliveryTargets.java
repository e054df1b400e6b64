package dev.verificationservice.codes;

import dev.verificationservice.validation.InvalidInputException;
import java.util.regex.Pattern;

/** Checks and masks delivery targets: email addresses and E.164 phone numbers. */
public final class DeliveryTargets {

    /** A practical subset of RFC 5321 addresses: dot-atom local part, a domain of at least two labels. */
    private static final Pattern EMAIL = Pattern.compile(
            "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*"
                    + "@([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?");
    /** E.164: a plus sign and 8 to 15 digits, the first not zero. */
    private static final Pattern E164 = Pattern.compile("\\+[1-9][0-9]{7,14}");
    private static final int MAX_EMAIL_LENGTH = 254;
    private static final int MAX_LOCAL_PART_LENGTH = 64;

    private DeliveryTargets() {
    }

    /** Returns the target if it suits the method, or names {@code deliveryTarget} in the error. */
    public static String validate(DeliveryMethod method, String target) {
        if (target == null || target.isEmpty()) {
            throw new InvalidInputException("deliveryTarget", "is required");
        }
        switch (method) {
            case EMAIL -> {
                int at = target.lastIndexOf('@');
                if (target.length() > MAX_EMAIL_LENGTH || at > MAX_LOCAL_PART_LENGTH || !EMAIL.matcher(target).matches()) {
                    throw new InvalidInputException("deliveryTarget", "must be a valid email address for EMAIL delivery");
                }
            }
            case SMS -> {
                if (!E164.matcher(target).matches()) {
                    throw new InvalidInputException("deliveryTarget",
                            "must be an E.164 phone number ('+' and 8 to 15 digits) for SMS delivery");
                }
            }
        }
        return target;
    }

    /** {@code jane@example.com} becomes {@code j***@example.com}; {@code +441234561234} becomes {@code +44******1234}. */
    public static String mask(DeliveryMethod method, String target) {
        return switch (method) {
            case EMAIL -> {
                int at = target.lastIndexOf('@');
                yield target.charAt(0) + "***" + target.substring(at);
            }
            case SMS -> {
                // At least half the digits stay hidden: the last four show only on numbers of 12 digits or more.
                String digits = target.substring(1);
                int shownAtEnd = digits.length() >= 12 ? 4 : 2;
                int hidden = digits.length() - 2 - shownAtEnd;
                yield "+" + digits.substring(0, 2) + "*".repeat(hidden) + digits.substring(2 + hidden);
            }
        };
    }
}
