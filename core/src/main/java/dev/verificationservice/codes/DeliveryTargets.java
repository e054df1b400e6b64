package dev.verificationservice.codes;

import com.google.i18n.phonenumbers.PhoneNumberUtil.PhoneNumberType;
import dev.verificationservice.sms.SmsSignalPolicy;
import dev.verificationservice.validation.InvalidInputException;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/** Checks and masks delivery targets: email addresses and E.164 phone numbers. */
public final class DeliveryTargets {

    /** A practical subset of RFC 5321 addresses: dot-atom local part, a domain of at least two labels. */
    private static final String DOMAIN =
            "([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?\\.)+[A-Za-z]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?";
    private static final Pattern EMAIL = Pattern.compile(
            "[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@" + DOMAIN);
    private static final Pattern DOMAIN_NAME = Pattern.compile(DOMAIN);
    /** E.164: a plus sign and 8 to 15 digits, the first not zero. */
    private static final Pattern E164 = Pattern.compile("\\+[1-9][0-9]{7,14}");
    private static final int MAX_EMAIL_LENGTH = 254;
    private static final int MAX_LOCAL_PART_LENGTH = 64;

    private DeliveryTargets() {
    }

    /** Whether {@code value} is a domain as an email address may have it (two labels at least). */
    public static boolean isDomain(String value) {
        return value != null && DOMAIN_NAME.matcher(value).matches();
    }

    /** Returns the target normalised if it suits the method, or names {@code deliveryTarget} in the error. */
    public static String validate(DeliveryMethod method, String target) {
        return normalize(method, target, Set.of(), Set.of());
    }

    /**
     * The target in the one form it is sent, stored (masked) and counted in: an email address with its domain in
     * lower case (the local part as given: providers differ, and no provider's rules are guessed); a phone
     * number in E.164, checked as a real SMS-capable number of an allowed region ({@link PhoneNumbers}).
     *
     * @param allowedSmsRegions  regions SMS may go to; empty allows every region
     * @param allowedSmsNetworks calling codes of the international networks SMS may go to; empty allows none
     */
    public static String normalize(DeliveryMethod method, String target, Set<String> allowedSmsRegions,
                                   Set<Integer> allowedSmsNetworks) {
        return normalize(method, target, allowedSmsRegions, allowedSmsNetworks,
                SmsSignalPolicy.DEFAULT_REFUSED_NUMBER_TYPES);
    }

    /** As {@link #normalize(DeliveryMethod, String, Set, Set)}, refusing an SMS to the kinds of number given. */
    public static String normalize(DeliveryMethod method, String target, Set<String> allowedSmsRegions,
                                   Set<Integer> allowedSmsNetworks, Set<PhoneNumberType> refusedNumberTypes) {
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
                return PhoneNumbers.normalize(target, allowedSmsRegions, allowedSmsNetworks, refusedNumberTypes);
            }
        }
        int at = target.lastIndexOf('@');
        return target.substring(0, at + 1) + target.substring(at + 1).toLowerCase(Locale.ROOT);
    }

    /**
     * The key a target is counted under (before it is digested): a phone number as normalised, an email address as
     * the mailbox it reaches, in lower case as a whole ({@link Mailboxes#key}), so that {@code Jane@x.io},
     * {@code jane+1@x.io} and {@code j.a.n.e@gmail.com}'s siblings share one count (stricter, never laxer, than
     * the provider). Only the limit's key: the message goes to the address as given.
     */
    public static String countingKey(DeliveryMethod method, String normalized, Mailboxes mailboxes) {
        return method.name() + "|" + (method == DeliveryMethod.EMAIL ? mailboxes.key(normalized) : normalized);
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
