package dev.verificationservice.spring.core;

import dev.verificationservice.Verification;
import dev.verificationservice.VerificationSettings;
import dev.verificationservice.attempts.CountedAttempts;
import dev.verificationservice.codes.CodeSender;
import dev.verificationservice.codes.MessageLocales;
import dev.verificationservice.codes.DeliveryTargets;
import dev.verificationservice.codes.Mailboxes;
import dev.verificationservice.codes.PhoneNumbers;
import dev.verificationservice.ratelimit.RateLimitPolicy;
import dev.verificationservice.security.EncryptionKeyRing;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.spring.StartupException;
import dev.verificationservice.spring.StartupProblems;
import dev.verificationservice.spring.VerificationProperties;
import dev.verificationservice.spring.keys.EncryptionKeys;
import dev.verificationservice.spring.keys.SecretKeys;
import dev.verificationservice.spring.metrics.VerificationMetrics;
import dev.verificationservice.VerificationStore;
import com.google.i18n.phonenumbers.PhoneNumberUtil.PhoneNumberType;
import dev.verificationservice.sms.NumberRanges;
import dev.verificationservice.sms.SmsCountryTallies;
import dev.verificationservice.sms.SmsSignalPolicy;
import dev.verificationservice.sms.SmsSignals;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeSet;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.context.annotation.Bean;

/**
 * The {@link Verification} of a Spring Boot application: the core library wired to the store
 * ({@code StoreAutoConfiguration}), the delivery channels ({@code DeliveryAutoConfiguration}), the HMAC keys, the
 * encryption keys (TOTP secrets) and the clock, all from {@code verification.*}. Every bean here backs off when the
 * application declares its own: a {@code Clock} (tests move one), a {@code SecretKeyRing} or {@code EncryptionKeyRing}
 * (keys from a secret manager), the
 * {@code VerificationSettings} or the {@code Verification} itself.
 */
@AutoConfiguration
@EnableConfigurationProperties(VerificationProperties.class)
public class VerificationAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    public Clock verificationClock() {
        return Clock.systemUTC();
    }

    /** {@code verification.secret-keys}, or on the embedded store a key generated in the data directory. */
    @Bean
    @ConditionalOnMissingBean
    public SecretKeyRing verificationSecretKeys(VerificationProperties properties) {
        return SecretKeys.resolve(properties, new SecureRandom());
    }

    /**
     * {@code verification.encryption-keys}, for TOTP secrets, or on the embedded store a key generated in the data
     * directory.
     */
    @Bean
    @ConditionalOnMissingBean
    public EncryptionKeyRing verificationEncryptionKeys(VerificationProperties properties) {
        return EncryptionKeys.resolve(properties, new SecureRandom());
    }

    /** The business counters, in the application's {@code MeterRegistry} (Spring Boot makes one). */
    @Bean
    @ConditionalOnMissingBean
    public VerificationMetrics verificationMetrics(ObjectProvider<MeterRegistry> registries) {
        return new VerificationMetrics(registries.getIfAvailable(SimpleMeterRegistry::new));
    }

    @Bean
    @ConditionalOnMissingBean
    public VerificationSettings verificationSettings(VerificationProperties properties) {
        StartupProblems problems = new StartupProblems();
        Optional<VerificationSettings> settings = settings(properties, problems);
        problems.throwIfAny();
        return settings.orElseThrow();
    }

    /**
     * The domain's settings from {@code verification.*}, every setting that is not usable reported to
     * {@code problems} (and then empty): what the bean is built from, and the settings check's rule.
     */
    public static Optional<VerificationSettings> settings(VerificationProperties properties, StartupProblems problems) {
        VerificationProperties.Limits limits = properties.limits();
        int before = problems.size();
        VerificationSettings.Builder builder = VerificationSettings.builder()
                .codeTtl(properties.codeTtl())
                .deviceTtl(properties.deviceTtl())
                .resendCooldown(limits.resendCooldown())
                .deviceMaxLife(limits.deviceMaxLife());
        problems.value(() -> auditRetention(properties.auditRetention())).ifPresent(builder::auditRetention);
        problems.value(() -> limit("VERIFICATION_LIMITS_SEND", limits.send())).ifPresent(builder::sendLimit);
        problems.value(() -> limit("VERIFICATION_LIMITS_VERIFY", limits.verify())).ifPresent(builder::verifyLimit);
        problems.value(() -> limit("VERIFICATION_LIMITS_TARGET", limits.target())).ifPresent(builder::targetLimit);
        problems.value(() -> limit("VERIFICATION_LIMITS_IP", limits.ip())).ifPresent(builder::ipLimit);
        problems.value(() -> smsBudget(limits)).ifPresent(builder::smsBudget);
        problems.value(() -> smsRegions(limits.smsCountries())).ifPresent(builder::smsRegions);
        problems.value(() -> smsNetworks(limits.smsNonGeographic())).ifPresent(builder::smsNetworks);
        problems.value(() -> mailboxes(limits.subaddressDomains())).ifPresent(builder::mailboxes);
        problems.value(() -> PasskeySettings.policy(properties).orElse(null)).ifPresent(builder::passkeys);
        VerificationProperties.SmsSignalSettings signals = properties.smsSignals();
        Optional<Map<Integer, Integer>> rangeDigits = problems.value(() -> rangeDigits(signals));
        Optional<Set<PhoneNumberType>> refused = problems.value(() -> refusedNumberTypes(signals));
        if (rangeDigits.isPresent() && refused.isPresent()) {
            problems.value(() -> smsSignals(signals, rangeDigits.get(), refused.get())).ifPresent(builder::smsSignals);
        }
        if (problems.size() > before) {
            return Optional.empty(); // the settings' own rules below would judge defaults, not what was set
        }
        return problems.value(() -> {
            try {
                return builder.build();
            } catch (IllegalArgumentException e) {
                throw new StartupException("A limit setting is not usable: " + e.getMessage() + ".",
                        "Fix the VERIFICATION_LIMITS_* or VERIFICATION_*_TTL variable it names.", e);
            }
        });
    }

    /** {@code VERIFICATION_SMS_SIGNALS_RANGE_DIGITS_BY_CALLING_CODE}: {@code <calling code>=<digits>} each. */
    private static Map<Integer, Integer> rangeDigits(VerificationProperties.SmsSignalSettings settings) {
        Map<Integer, Integer> digits = new LinkedHashMap<>();
        for (String entry : settings.rangeDigitsByCallingCode() == null ? List.<String>of()
                : settings.rangeDigitsByCallingCode()) {
            String[] parts = entry.trim().split("=", -1);
            try {
                digits.put(Integer.parseInt(parts[0].trim()), Integer.parseInt(parts[1].trim()));
            } catch (RuntimeException e) {
                throw new StartupException("VERIFICATION_SMS_SIGNALS_RANGE_DIGITS_BY_CALLING_CODE '" + entry
                        + "' is not <calling code>=<digits>.", "Write it like 1=6,44=4.");
            }
        }
        return digits;
    }

    /** {@code VERIFICATION_SMS_SIGNALS_REFUSED_NUMBER_TYPES}: libphonenumber's kinds of number. */
    private static Set<PhoneNumberType> refusedNumberTypes(VerificationProperties.SmsSignalSettings settings) {
        EnumSet<PhoneNumberType> refused = EnumSet.noneOf(PhoneNumberType.class);
        for (String type : settings.refusedNumberTypes() == null ? List.<String>of() : settings.refusedNumberTypes()) {
            try {
                refused.add(PhoneNumberType.valueOf(type.trim().toUpperCase(Locale.ROOT)));
            } catch (IllegalArgumentException e) {
                throw new StartupException("VERIFICATION_SMS_SIGNALS_REFUSED_NUMBER_TYPES names '" + type
                        + "', which is no kind of number.", "Use some of " + List.of(PhoneNumberType.values()) + ".");
            }
        }
        return refused;
    }

    /** {@code VERIFICATION_SMS_SIGNALS_*}: the range breaker's policy, its numbers checked by the policy itself. */
    private static SmsSignalPolicy smsSignals(VerificationProperties.SmsSignalSettings settings,
                                              Map<Integer, Integer> digits, Set<PhoneNumberType> refused) {
        try {
            return new SmsSignalPolicy(settings.enabled(), settings.monitorOnly(), settings.window(),
                    settings.minSends(), settings.minConversion(), settings.coolOff(), settings.countryShards(),
                    new NumberRanges(settings.rangeDigits(), digits), refused,
                    new SmsSignalPolicy.CountryBreaker(settings.countryMinSends(), settings.countryMinConversion(),
                            settings.countryRefresh()));
        } catch (IllegalArgumentException | NullPointerException e) {
            throw new StartupException("A VERIFICATION_SMS_SIGNALS_* setting is not usable: " + e.getMessage() + ".",
                    "Give positive windows, sends, shards and digits, and a share between 0 and 1.", e);
        }
    }

    /** {@code VERIFICATION_LIMITS_SMS_BUDGET}: {@code off}, or a budget split over its shards. */
    private static Optional<RateLimitPolicy> smsBudget(VerificationProperties.Limits limits) {
        return limits.smsBudget().trim().equalsIgnoreCase("off") ? Optional.empty()
                : Optional.of(smsBudget(limits.smsBudget(), limits.smsBudgetShards()));
    }

    /** {@code <count>/<ISO-8601 window>}, for example {@code 5/PT15M}. */
    static RateLimitPolicy limit(String variable, String value) {
        RateLimitPolicy parsed = parsedLimit(variable, value);
        if (parsed.limit() > RateLimitPolicy.MAX_PER_COUNTER) {
            throw new StartupException(variable + " '" + value + "' allows more than " + RateLimitPolicy.MAX_PER_COUNTER
                    + " per window, the most one counter item holds (DynamoDB items hold at most 400 KB).",
                    "Lower the count to " + RateLimitPolicy.MAX_PER_COUNTER + " or less.");
        }
        return parsed;
    }

    /**
     * The SMS budget, split over {@code shards} counter items (no more than the budget itself, so a budget of 5 has
     * 5 shards of one): each within {@link RateLimitPolicy#MAX_PER_COUNTER}.
     */
    static RateLimitPolicy smsBudget(String value, int requested) {
        RateLimitPolicy parsed = parsedLimit("VERIFICATION_LIMITS_SMS_BUDGET", value);
        int fewest = RateLimitPolicy.fewestShards(parsed.limit());
        int shards = Math.min(requested, parsed.limit());
        if (shards < fewest || shards < 1) {
            throw new StartupException("VERIFICATION_LIMITS_SMS_BUDGET_SHARDS is " + shards + ": a budget of "
                    + parsed.limit() + " per window is split over " + fewest + " to " + parsed.limit()
                    + " counter items (one holds at most " + RateLimitPolicy.MAX_PER_COUNTER + ").",
                    "Set VERIFICATION_LIMITS_SMS_BUDGET_SHARDS between " + fewest + " and " + parsed.limit() + ".");
        }
        return new RateLimitPolicy(parsed.limit(), parsed.window(), shards);
    }

    /**
     * The count and window as written, in as few shards as keep each counter within the cap: only their syntax and
     * sign are checked here, what the count may be is the caller's rule.
     */
    private static RateLimitPolicy parsedLimit(String variable, String value) {
        String[] parts = value == null ? new String[0] : value.trim().split("/", 2);
        try {
            if (parts.length == 2) {
                int count = Integer.parseInt(parts[0].trim());
                Duration window = Duration.parse(parts[1].trim());
                return new RateLimitPolicy(count, window, Math.max(1, RateLimitPolicy.fewestShards(count)));
            }
        } catch (RuntimeException e) {
            throw new StartupException(variable + " '" + value + "' is not a limit: " + e.getMessage(),
                    limitAction(variable), e);
        }
        throw new StartupException(variable + " '" + value + "' is not a limit.", limitAction(variable));
    }

    private static String limitAction(String variable) {
        return "Set " + variable + " to a count and an ISO-8601 window, for example 5/PT15M (5 per 15 minutes).";
    }

    static Set<String> smsRegions(List<String> values) {
        Set<String> regions = new TreeSet<>();
        for (String value : values == null ? List.<String>of() : values) {
            String region = value.trim().toUpperCase(Locale.ROOT);
            if (region.isEmpty()) {
                continue;
            }
            if (!PhoneNumbers.isKnownRegion(region)) {
                throw new StartupException("VERIFICATION_LIMITS_SMS_COUNTRIES names '" + value + "', which is not a region.",
                        "Give ISO 3166 alpha-2 region codes, comma-separated, for example GB,IE,DE.");
            }
            regions.add(region);
        }
        return regions;
    }

    /** Country calling codes of international networks ({@code 870,881}); each must be one the metadata knows. */
    static Set<Integer> smsNetworks(List<String> values) {
        Set<Integer> networks = new TreeSet<>();
        for (String value : values == null ? List.<String>of() : values) {
            String code = value.trim();
            if (code.startsWith("+")) {
                code = code.substring(1);
            }
            if (code.isEmpty()) {
                continue;
            }
            if (!code.matches("[0-9]{3}") || !PhoneNumbers.isNonGeographicCallingCode(Integer.parseInt(code))) {
                throw new StartupException(PhoneNumbers.NON_GEOGRAPHIC_SETTING + " names '" + value
                        + "', which is not the calling code of an international network.",
                        "Give calling codes of networks that belong to no country, comma-separated, for example 870,881"
                                + " (Inmarsat, Iridium); leave it empty to send SMS to none of them.");
            }
            networks.add(Integer.parseInt(code));
        }
        return networks;
    }

    /** {@code *}: {@code +tag} dropped on every domain; {@code none}: the providers' rules only; else those domains. */
    static Mailboxes mailboxes(List<String> values) {
        Set<String> domains = new TreeSet<>();
        for (String value : values == null ? List.<String>of() : values) {
            String domain = value.trim().toLowerCase(Locale.ROOT);
            if (domain.equals("*")) {
                return Mailboxes.EVERY_DOMAIN;
            }
            if (domain.isEmpty() || domain.equals("none")) {
                continue;
            }
            if (!DeliveryTargets.isDomain(domain)) {
                throw new StartupException("VERIFICATION_LIMITS_SUBADDRESS_DOMAINS names '" + value
                        + "', which is not a domain.", "Give *, none, or domains, comma-separated, for example "
                        + "example.com,example.org.");
            }
            domains.add(domain);
        }
        return new Mailboxes(false, domains);
    }

    @Bean
    @ConditionalOnMissingBean
    public Verification verification(VerificationStore store, SecretKeyRing keys, EncryptionKeyRing encryption,
                                     CodeSender sender, Clock clock, VerificationSettings settings,
                                     MessageLocales locales) {
        return Verification.builder().store(store).keys(keys).encryption(encryption).sender(sender).clock(clock)
                .settings(settings).locales(locales).build();
    }

    /**
     * {@code verification.attempts.remembered.refusals}: guesses at a locked-out factor refused from this instance's
     * memory of the lock-out. They are not audited one by one, so this is where such a flood shows.
     */
    @Bean
    public MeterBinder verificationAttemptMetrics(Verification verification) {
        return registry -> FunctionCounter.builder("verification.attempts.remembered.refusals",
                        verification.attempts(), CountedAttempts::refusedFromMemory)
                .description("Guesses at a locked-out factor refused from memory, with no store call and no audit entry")
                .register(registry);
    }

    /**
     * {@code verification.sms.country.sent}, {@code .refused} (by a range's or the country's breaker) and
     * {@code .verified}, tagged {@code country} with the ISO region (a few hundred at most): this instance's SMS,
     * registered as each country is first counted.
     */
    @Bean
    public MeterBinder verificationSmsCountryMetrics(Verification verification) {
        SmsCountryTallies tallies = verification.smsSignals().tallies();
        return registry -> tallies.onEachCountry(country -> {
            for (SmsCountryTallies.Kind kind : SmsCountryTallies.Kind.values()) {
                String name = kind.name().toLowerCase(Locale.ROOT);
                FunctionCounter.builder("verification.sms.country." + name, tallies,
                                found -> found.count(country, kind))
                        .tag("country", country)
                        .description("SMS " + name + " per country on this instance")
                        .register(registry);
            }
        });
    }

    /**
     * {@code verification.sms.signal.unavailable}: SMS that went unjudged or uncounted because their range's signals
     * could not be read or written (a store fault; the SMS went, failing open).
     */
    @Bean
    public MeterBinder verificationSmsSignalMetrics(Verification verification) {
        return registry -> FunctionCounter.builder("verification.sms.signal.unavailable",
                        verification.smsSignals(), SmsSignals::unavailableReads)
                .description("SMS whose range signals could not be read or counted (store fault): sent unjudged")
                .register(registry);
    }

    /** {@code forever} keeps audit entries without a ttl; anything else is a duration ({@code P90D}, {@code 90d}). */
    static Optional<Duration> auditRetention(String value) {
        if (value == null || value.isBlank()) {
            return Optional.of(VerificationSettings.DEFAULT_AUDIT_RETENTION);
        }
        if (value.trim().equalsIgnoreCase("forever")) {
            return Optional.empty();
        }
        try {
            return Optional.of(DurationStyle.detectAndParse(value.trim()));
        } catch (IllegalArgumentException e) {
            throw new StartupException("VERIFICATION_AUDIT_RETENTION '" + value + "' is neither a duration nor 'forever'.",
                    "Give an ISO-8601 duration such as P90D, or 'forever'.", e);
        }
    }
}
