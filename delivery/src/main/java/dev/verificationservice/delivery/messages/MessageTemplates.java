package dev.verificationservice.delivery.messages;

import dev.verificationservice.codes.CodeFormat;
import dev.verificationservice.codes.CodeType;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IllformedLocaleException;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The message texts, per code type, format and language: the shipped ones ({@code messages/<tag>.properties} in
 * the jar, UTF-8, one file per language) and the operator's overrides.
 *
 * <p><b>Keys.</b> {@code <CODE_TYPE>.subject} (email subject), {@code <CODE_TYPE>.<FORMAT>.sms} (the SMS),
 * {@code <CODE_TYPE>.<FORMAT>.intro} (the email's first sentence), {@code <CODE_TYPE>.LINK.button} (the email's
 * button), {@code <FORMAT>.expiry}, {@code <FORMAT>.context}, {@code linkHint} and {@code ignore} (the email's other
 * lines), and {@code <CODE_TYPE>.<FORMAT>.body}: a whole plain-text email, which no language ships (the email is
 * laid out from the lines above) and which, when overridden, replaces the email's text (and its HTML shows the same
 * text). Placeholders: {@code {code}}, {@code {link}}, {@code {minutes}}, {@code {context}}; a line holding
 * {@code {context}} is left out when the code approves nothing.
 *
 * <p><b>Lookup.</b> For a locale, its RFC 4647 lookup chain ({@code pt-BR → pt}, {@code zh-Hant-TW → zh-Hant → zh})
 * is tried in this order: the overrides of each tag of the chain ({@code verification.templates.pt-BR.<key>}, then
 * {@code verification.templates.pt.<key>}); the override without a locale ({@code verification.templates.<key>},
 * which therefore applies to every language without an override of its own, as it did when every message was
 * English); the shipped texts of each tag of the chain; the shipped English text.
 */
public final class MessageTemplates {

    /** The default language: the last link of every chain. */
    public static final Locale DEFAULT = Locale.ENGLISH;

    /** The languages shipped in the jar, one file each under {@code messages/}. */
    public static final List<String> SHIPPED = List.of("en", "es", "pt", "pt-BR", "fr", "de", "it", "nl", "pl", "tr",
            "ja");

    /** Every key a template may have. */
    public static final Set<String> KEYS = keys();

    private static final String NO_LOCALE = "";

    /** Shipped texts by canonical language tag. */
    private final Map<String, Map<String, String>> shipped;
    /** Overrides by canonical language tag ({@value #NO_LOCALE} for every language). */
    private final Map<String, Map<String, String>> overrides;

    private MessageTemplates(Map<String, Map<String, String>> shipped, Map<String, Map<String, String>> overrides) {
        this.shipped = shipped;
        this.overrides = overrides;
    }

    /** The shipped texts and no override. */
    public static MessageTemplates shipped() {
        return withOverrides(Map.of());
    }

    /**
     * The shipped texts and these overrides ({@code verification.templates.*}, keys without the prefix).
     *
     * @throws IllegalArgumentException naming the first property that is not {@code [<locale>.]<key>}
     */
    public static MessageTemplates withOverrides(Map<String, String> properties) {
        Map<String, Map<String, String>> shipped = new LinkedHashMap<>();
        for (String tag : SHIPPED) {
            shipped.put(tag, load(tag));
        }
        Map<String, Map<String, String>> overrides = new TreeMap<>();
        for (Map.Entry<String, String> property : (properties == null ? Map.<String, String>of() : properties).entrySet()) {
            String name = property.getKey();
            String locale = NO_LOCALE;
            String key = name;
            if (!KEYS.contains(name)) {
                int dot = name.indexOf('.');
                key = dot < 0 ? name : name.substring(dot + 1);
                Optional<String> tag = dot < 0 ? Optional.empty() : canonicalTag(name.substring(0, dot));
                if (tag.isEmpty() || !KEYS.contains(key)) {
                    throw new IllegalArgumentException("verification.templates." + name + " is not a template: write "
                            + "verification.templates.<key> or verification.templates.<locale>.<key>, where <locale> is "
                            + "a language tag such as pt-BR and <key> one of " + new TreeSet<>(KEYS));
                }
                locale = tag.get();
            }
            overrides.computeIfAbsent(locale, ignored -> new LinkedHashMap<>()).put(key, property.getValue());
        }
        return new MessageTemplates(Collections.unmodifiableMap(shipped), overrides);
    }

    /** The text of {@code key} in {@code locale}, along the lookup order above. */
    public String get(Locale locale, String key) {
        return overridden(locale, key).orElseGet(() -> shippedText(locale, key));
    }

    /** The operator's override of {@code key} that applies to {@code locale}, if any. */
    public Optional<String> overridden(Locale locale, String key) {
        for (String tag : chain(locale)) {
            String text = overrides.getOrDefault(tag, Map.of()).get(key);
            if (text != null) {
                return Optional.of(text);
            }
        }
        return Optional.ofNullable(overrides.getOrDefault(NO_LOCALE, Map.of()).get(key));
    }

    /** The shipped text of {@code key} in {@code locale} or the nearest language of its chain, else English. */
    public String shippedText(Locale locale, String key) {
        return shippedIn(locale, key).orElseGet(() -> shipped.get(DEFAULT.toLanguageTag()).getOrDefault(key, ""));
    }

    /** The shipped text of {@code key} in a language of the chain of {@code locale}, without the English fallback. */
    public Optional<String> shippedIn(Locale locale, String key) {
        for (String tag : chain(locale)) {
            String text = shipped.getOrDefault(tag, Map.of()).get(key);
            if (text != null) {
                return Optional.of(text);
            }
        }
        return Optional.empty();
    }

    /**
     * The language a message in {@code requested} is written in: the first tag of its chain that has texts
     * (shipped or overridden), else the default. {@code de-AT} gives {@code de}, {@code pt-BR} itself, {@code sw}
     * English.
     */
    public Locale resolve(Locale requested) {
        for (String tag : chain(requested)) {
            if (shipped.containsKey(tag) || overrides.containsKey(tag)) {
                return Locale.forLanguageTag(tag);
            }
        }
        return DEFAULT;
    }

    /** Whether there are texts (shipped or overridden) for exactly this tag. */
    public boolean has(String tag) {
        return canonicalTag(tag).map(canonical -> shipped.containsKey(canonical) || overrides.containsKey(canonical))
                .orElse(false);
    }

    /** Every language with texts: the shipped ones and those the overrides add. */
    public Set<Locale> locales() {
        Set<Locale> locales = new LinkedHashSet<>();
        shipped.keySet().forEach(tag -> locales.add(Locale.forLanguageTag(tag)));
        overrides.keySet().stream().filter(tag -> !tag.equals(NO_LOCALE))
                .forEach(tag -> locales.add(Locale.forLanguageTag(tag)));
        return locales;
    }

    /**
     * The RFC 4647 lookup chain of a locale, most specific first, without extensions or private use:
     * {@code pt-BR → [pt-BR, pt]}, {@code zh-Hant-TW → [zh-Hant-TW, zh-Hant, zh]}.
     */
    public static List<String> chain(Locale locale) {
        List<String> tags = new ArrayList<>();
        Locale base = locale.stripExtensions();
        String tag = new Locale.Builder().setLanguage(base.getLanguage()).setScript(base.getScript())
                .setRegion(base.getCountry()).build().toLanguageTag();
        while (!tag.isEmpty() && !tag.equals("und")) {
            tags.add(tag);
            int dash = tag.lastIndexOf('-');
            tag = dash < 0 ? "" : tag.substring(0, dash);
        }
        return tags;
    }

    /** The canonical form of a well-formed language tag with a language ({@code PT-br → pt-BR}); empty otherwise. */
    public static Optional<String> canonicalTag(String tag) {
        try {
            Locale locale = new Locale.Builder().setLanguageTag(tag).build();
            return locale.getLanguage().isEmpty() ? Optional.empty() : Optional.of(locale.toLanguageTag());
        } catch (IllformedLocaleException e) {
            return Optional.empty();
        }
    }

    /** The shipped file of a language, read as UTF-8. */
    private static Map<String, String> load(String tag) {
        String resource = "messages/" + tag + ".properties";
        try (InputStream in = MessageTemplates.class.getClassLoader().getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalStateException(resource + " is missing from the jar");
            }
            Properties properties = new Properties();
            try (Reader reader = new InputStreamReader(in, StandardCharsets.UTF_8)) {
                properties.load(reader);
            }
            Map<String, String> texts = new TreeMap<>();
            for (String key : properties.stringPropertyNames()) {
                if (!KEYS.contains(key)) {
                    throw new IllegalStateException(resource + " has the unknown key " + key);
                }
                texts.put(key, properties.getProperty(key));
            }
            return Collections.unmodifiableMap(texts);
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read " + resource, e);
        }
    }

    private static Set<String> keys() {
        Set<String> keys = new TreeSet<>(Set.of("linkHint", "ignore"));
        for (CodeFormat format : CodeFormat.values()) {
            keys.add(format + ".expiry");
            keys.add(format + ".context");
        }
        for (CodeType type : CodeType.values()) {
            keys.add(type + ".subject");
            keys.add(type + ".LINK.button");
            for (CodeFormat format : CodeFormat.values()) {
                keys.add(type + "." + format + ".body");
                keys.add(type + "." + format + ".sms");
                keys.add(type + "." + format + ".intro");
            }
        }
        return Collections.unmodifiableSet(keys);
    }
}
