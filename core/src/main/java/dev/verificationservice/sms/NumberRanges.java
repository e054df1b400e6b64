package dev.verificationservice.sms;

import com.google.i18n.phonenumbers.NumberParseException;
import com.google.i18n.phonenumbers.PhoneNumberUtil;
import com.google.i18n.phonenumbers.Phonenumber.PhoneNumber;
import dev.verificationservice.validation.InvalidInputException;
import java.util.Map;
import java.util.Optional;

/**
 * Which range a number belongs to: its calling code and the first digits of its national number, as many as the
 * calling code's setting says (a default for the others).
 *
 * @param defaultDigits       leading national digits of a range where the calling code has no setting of its own
 * @param digitsByCallingCode the calling codes whose ranges are longer or shorter (NANP +1: area code and exchange)
 */
public record NumberRanges(int defaultDigits, Map<Integer, Integer> digitsByCallingCode) {

    private static final PhoneNumberUtil NUMBERS = PhoneNumberUtil.getInstance();

    /** Four national digits, six for +1 (area code and exchange: what a North American carrier is given). */
    public static final NumberRanges DEFAULTS = new NumberRanges(4, Map.of(1, 6));

    public NumberRanges {
        if (defaultDigits < 1 || digitsByCallingCode.values().stream().anyMatch(digits -> digits < 1)) {
            throw new IllegalArgumentException("a range has at least one national digit");
        }
        digitsByCallingCode = Map.copyOf(digitsByCallingCode);
    }

    /**
     * The range an operator writes as {@code +447700} ({@link SmsRange#prefix}): the calling code libphonenumber
     * knows, then the national digits; the country is the region the range lies in ({@link #regionOfRange}). Empty
     * for anything else.
     */
    public static Optional<SmsRange> rangeOfPrefix(String prefix) {
        if (prefix == null || !prefix.matches("\\+[1-9][0-9]{1,14}")) {
            return Optional.empty();
        }
        for (int length = 1; length <= 3 && length < prefix.length() - 1; length++) {
            int callingCode = Integer.parseInt(prefix.substring(1, 1 + length));
            String region = NUMBERS.getRegionCodeForCountryCode(callingCode);
            if (!"ZZ".equals(region)) {
                return Optional.of(new SmsRange(callingCode, prefix.substring(1 + length),
                        regionOfRange(callingCode, prefix.substring(1 + length))));
            }
        }
        return Optional.empty();
    }

    /** The range of a number in E.164; empty when it is no number libphonenumber can parse. */
    public Optional<SmsRange> rangeOf(String e164) {
        PhoneNumber parsed;
        try {
            parsed = NUMBERS.parse(e164, "ZZ");
        } catch (NumberParseException e) {
            return Optional.empty();
        }
        String national = NUMBERS.getNationalSignificantNumber(parsed);
        int digits = Math.min(national.length(), digitsByCallingCode.getOrDefault(parsed.getCountryCode(), defaultDigits));
        String prefix = national.substring(0, digits);
        return Optional.of(new SmsRange(parsed.getCountryCode(), prefix, regionOfRange(parsed.getCountryCode(), prefix)));
    }

    /** Whether {@code country} is an ISO region libphonenumber knows, or {@code 001} (international networks). */
    public static boolean isRegion(String country) {
        return country != null && (NUMBERS.getSupportedRegions().contains(country) || "001".equals(country));
    }

    /** {@code country} when it is a region ({@link #isRegion}); else a bad input naming {@code field}. */
    public static String region(String field, String country) {
        if (!isRegion(country)) {
            throw new InvalidInputException(field, "must be an ISO 3166 region in capitals, such as GB, or 001");
        }
        return country;
    }

    /** National numbers a range's prefix is completed with to find a valid number of it (any one will do). */
    private static final String[] FILLS = {"0000000000000", "1234567890123", "5555555555555", "9999999999999"};

    /**
     * The ISO region a range lies in, from its prefix alone (+1416555: CA, +1876555: JM, +447781: GG), so that a
     * send (which knows the number) and a verification (whose code keeps only the prefix) count in the same
     * country: the region of the first valid number the prefix completes to, else the calling code's main region.
     */
    static String regionOfRange(int callingCode, String nationalPrefix) {
        for (String fill : FILLS) {
            for (int length = Math.max(1, nationalPrefix.length()); length <= 13; length++) {
                PhoneNumber candidate = new PhoneNumber().setCountryCode(callingCode).setNationalNumber(
                        Long.parseLong((nationalPrefix + fill).substring(0, length)));
                if (NUMBERS.isValidNumber(candidate)) {
                    return NUMBERS.getRegionCodeForNumber(candidate);
                }
            }
        }
        return NUMBERS.getRegionCodeForCountryCode(callingCode);
    }
}
