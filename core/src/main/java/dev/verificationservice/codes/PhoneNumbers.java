package dev.verificationservice.codes;

import com.google.i18n.phonenumbers.NumberParseException;
import com.google.i18n.phonenumbers.PhoneNumberUtil;
import com.google.i18n.phonenumbers.PhoneNumberUtil.PhoneNumberType;
import com.google.i18n.phonenumbers.Phonenumber.PhoneNumber;
import dev.verificationservice.sms.SmsSignalPolicy;
import dev.verificationservice.validation.InvalidInputException;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;

/**
 * Phone numbers for SMS, checked with Google's libphonenumber metadata rather than a pattern: the number must
 * be a real number of its region, of a kind that receives SMS, in a region SMS may go to. The answer is the
 * number in E.164, the one form in which it is counted, stored (masked) and sent.
 */
public final class PhoneNumbers {

    private static final PhoneNumberUtil NUMBERS = PhoneNumberUtil.getInstance();

    private PhoneNumbers() {
    }

    /**
     * The region code libphonenumber gives a number of no country: the international networks and global
     * services of the country calling codes +800, +808, +870, +878, +881, +882, +883, +888 and +979.
     */
    private static final String NON_GEOGRAPHIC = "001";

    /**
     * The setting that opts in to numbers of the international networks, named in the refusal so that whoever
     * reads it knows what would allow the number.
     */
    public static final String NON_GEOGRAPHIC_SETTING = "VERIFICATION_LIMITS_SMS_NON_GEOGRAPHIC";

    /**
     * The number in E.164, or an {@link InvalidInputException} naming {@code deliveryTarget} and saying why.
     *
     * @param allowedRegions  ISO 3166 alpha-2 regions SMS may go to; empty allows every region
     * @param allowedNetworks country calling codes of international networks SMS may go to (for example 870,
     *                        Inmarsat); empty allows none. Such a number belongs to no region, so the regions
     *                        do not decide it
     */
    public static String normalize(String number, Set<String> allowedRegions, Set<Integer> allowedNetworks) {
        return normalize(number, allowedRegions, allowedNetworks, SmsSignalPolicy.DEFAULT_REFUSED_NUMBER_TYPES);
    }

    /**
     * As {@link #normalize(String, Set, Set)}, refusing the kinds of number in {@code refusedTypes}
     * ({@link SmsSignalPolicy#refusedNumberTypes}: by default every kind but a mobile one).
     */
    public static String normalize(String number, Set<String> allowedRegions, Set<Integer> allowedNetworks,
                                   Set<PhoneNumberType> refusedTypes) {
        if (number == null || !number.startsWith("+")) {
            throw new InvalidInputException("deliveryTarget",
                    "must be a phone number in international form, starting with '+' and the country code");
        }
        PhoneNumber parsed;
        try {
            parsed = NUMBERS.parse(number, "ZZ");
        } catch (NumberParseException e) {
            throw new InvalidInputException("deliveryTarget", "is not a phone number: " + reason(e));
        }
        String region = NUMBERS.getRegionCodeForNumber(parsed);
        if (region == null || !NUMBERS.isValidNumber(parsed)) {
            throw new InvalidInputException("deliveryTarget", "is not a valid phone number"
                    + (region == null ? " of any country" : " for " + region) + " (+" + parsed.getCountryCode() + ")");
        }
        if (region.equals(NON_GEOGRAPHIC)) {
            // Satellite phones (Inmarsat +870, Iridium +8816/+8817, Thuraya +88216), international mobile networks
            // (+882, +883) and global services: a text to them costs many times a national one and they are a
            // favourite of SMS pumping, so, like a provider's geographic permissions, they need an opt-in.
            if (!allowedNetworks.contains(parsed.getCountryCode())) {
                throw new InvalidInputException("deliveryTarget", "is a number of the international network +"
                        + parsed.getCountryCode() + " (satellite phones and global networks belong to no country), "
                        + "which this service does not send SMS to; the operator can allow it with "
                        + NON_GEOGRAPHIC_SETTING + "=" + parsed.getCountryCode());
            }
        } else if (!allowedRegions.isEmpty() && !allowedRegions.contains(region)) {
            throw new InvalidInputException("deliveryTarget", "is a number of " + region + ", and this service sends "
                    + "SMS only to " + new TreeSet<>(allowedRegions));
        }
        PhoneNumberType type = NUMBERS.getNumberType(parsed);
        if (refusedTypes.contains(type)) {
            throw new InvalidInputException("deliveryTarget", "is a " + type.name().toLowerCase(Locale.ROOT).replace('_', ' ')
                    + " number of " + region + ", which does not receive verification SMS; give a mobile number");
        }
        return NUMBERS.format(parsed, PhoneNumberUtil.PhoneNumberFormat.E164);
    }

    /**
     * The ISO 3166 region of a number, for example {@code BR} for {@code +5511912345678}; empty when the number
     * cannot be parsed or belongs to no single region (such as a global +800 number).
     */
    public static Optional<String> regionOf(String number) {
        try {
            String region = NUMBERS.getRegionCodeForNumber(NUMBERS.parse(number, "ZZ"));
            return region == null || region.equals("ZZ") || region.equals("001") ? Optional.empty()
                    : Optional.of(region);
        } catch (NumberParseException e) {
            return Optional.empty();
        }
    }

    /**
     * Whether {@code callingCode} is the country calling code of an international network or global service
     * the metadata knows (870, 881, 882, ...), for checking configuration.
     */
    public static boolean isNonGeographicCallingCode(int callingCode) {
        return NUMBERS.getSupportedGlobalNetworkCallingCodes().contains(callingCode);
    }

    /** Whether {@code region} is a region code the metadata knows (for checking configuration). */
    public static boolean isKnownRegion(String region) {
        return NUMBERS.getSupportedRegions().contains(region);
    }

    private static String reason(NumberParseException e) {
        return switch (e.getErrorType()) {
            case INVALID_COUNTRY_CODE -> "the country code is unknown";
            case TOO_SHORT_NSN, TOO_SHORT_AFTER_IDD -> "it is too short";
            case TOO_LONG -> "it is too long";
            case NOT_A_NUMBER -> "it holds characters that are not part of a phone number";
        };
    }
}
