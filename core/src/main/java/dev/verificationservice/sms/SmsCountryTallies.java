package dev.verificationservice.sms;

import com.google.i18n.phonenumbers.PhoneNumberUtil;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.Consumer;

/**
 * This instance's SMS sent, refused by a breaker and verified, per country: for metrics tagged with the country.
 * Only ISO regions libphonenumber knows (and {@code 001}, the international networks) are tallied by name, anything
 * else as {@code ZZ}, so the tags stay a few hundred at most.
 */
public final class SmsCountryTallies {

    /** What is tallied of a country's SMS. */
    public enum Kind {
        SENT, REFUSED, VERIFIED
    }

    private static final Set<String> REGIONS = PhoneNumberUtil.getInstance().getSupportedRegions();
    private static final String UNKNOWN = "ZZ";

    private final Map<String, LongAdder[]> tallies = new ConcurrentHashMap<>();
    private final List<Consumer<String>> listeners = new CopyOnWriteArrayList<>();

    /**
     * Calls {@code listener} with every country tallied so far and each one tallied for the first time from now on
     * (a metrics binder registers its counters there).
     */
    public void onEachCountry(Consumer<String> listener) {
        listeners.add(listener);
        tallies.keySet().forEach(listener);
    }

    /** The countries tallied so far. */
    public Set<String> countries() {
        return Set.copyOf(tallies.keySet());
    }

    /** How many SMS of {@code country} this instance tallied as {@code kind}. */
    public long count(String country, Kind kind) {
        LongAdder[] found = tallies.get(country);
        return found == null ? 0 : found[kind.ordinal()].sum();
    }

    void sent(String country) {
        add(country, Kind.SENT);
    }

    void refused(String country) {
        add(country, Kind.REFUSED);
    }

    void verified(String country) {
        add(country, Kind.VERIFIED);
    }

    private void add(String country, Kind kind) {
        String tag = REGIONS.contains(country) || "001".equals(country) ? country : UNKNOWN;
        boolean[] created = {false};
        LongAdder[] adders = tallies.computeIfAbsent(tag, key -> {
            created[0] = true;
            LongAdder[] fresh = new LongAdder[Kind.values().length];
            for (int index = 0; index < fresh.length; index++) {
                fresh[index] = new LongAdder();
            }
            return fresh;
        });
        adders[kind.ordinal()].increment();
        if (created[0]) {
            listeners.forEach(listener -> listener.accept(tag));
        }
    }
}
