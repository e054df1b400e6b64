package dev.verificationservice.sms;

/**
 * A number range: the country calling code and the leading digits of the national number, the unit whose sends
 * and verifications the pumping signals count (the range a carrier sells, where a toll-fraud run sends).
 *
 * @param callingCode    the country calling code, for example 44
 * @param nationalPrefix the leading digits of the national number, for example {@code 7700}
 * @param country        the number's ISO 3166 region, or {@code 001} for an international network
 */
public record SmsRange(int callingCode, String nationalPrefix, String country) {

    /** As an operator writes it: {@code +447700}. */
    public String prefix() {
        return "+" + callingCode + nationalPrefix;
    }

    /** The counters' subject of the range: shared by every user sending to it, never a number in full. */
    String subject() {
        return subjectOf(prefix());
    }

    /** The counters' subject of the range written {@code prefix} ({@link #prefix}). */
    static String subjectOf(String prefix) {
        return "smsrange:" + prefix;
    }

    /** The counters' subject of the range's country (split over shards, {@link SmsSignalPolicy#countryShards}). */
    String countrySubject(int shard) {
        return countrySubjectOf(country, shard);
    }

    /** The counters' subject of a country's shard; shard 0 is also the subject of the country's breaker. */
    static String countrySubjectOf(String country, int shard) {
        return "smscountry:" + country + (shard == 0 ? "" : "#" + shard);
    }
}
