package dev.verificationservice.delivery.messages;

import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.MessageLocales;
import dev.verificationservice.codes.PhoneNumbers;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The language of a message, chosen before it is sent: the requested locale resolved to the nearest language
 * with texts ({@code de-AT → de}, {@code pt-BR} itself, {@code sw → en}); with none requested, an SMS takes the
 * language of its number's country ({@link #REGION_LANGUAGES}, only to languages that have texts) and an email,
 * whose address says nothing about its reader's language, the default (English).
 */
public final class TemplateLocales implements MessageLocales {

    /**
     * Regions whose people read one of the shipped languages, by ISO 3166 code. Countries with several official
     * languages and no clear majority for text messages (Belgium, Switzerland, Canada, Luxembourg, Cyprus) are left
     * out on purpose: their SMS go out in English unless the request names a locale.
     */
    public static final Map<String, String> REGION_LANGUAGES = regionLanguages();

    private final MessageTemplates templates;

    public TemplateLocales(MessageTemplates templates) {
        this.templates = templates;
    }

    @Override
    public Locale choose(Optional<Locale> requested, DeliveryMethod method, String normalizedTarget) {
        if (requested.isPresent()) {
            return templates.resolve(requested.get());
        }
        if (method == DeliveryMethod.SMS) {
            return PhoneNumbers.regionOf(normalizedTarget).map(REGION_LANGUAGES::get).filter(templates::has)
                    .map(Locale::forLanguageTag).orElse(MessageTemplates.DEFAULT);
        }
        return MessageTemplates.DEFAULT;
    }

    private static Map<String, String> regionLanguages() {
        Map<String, String> regions = new TreeMap<>();
        put(regions, "es", "ES", "MX", "AR", "CO", "CL", "PE", "VE", "EC", "GT", "CU", "BO", "DO", "HN", "PY", "SV",
                "NI", "CR", "PA", "UY", "PR", "GQ", "EA", "IC");
        put(regions, "pt-BR", "BR");
        put(regions, "pt", "PT", "AO", "MZ", "CV", "GW", "ST");
        put(regions, "fr", "FR", "MC", "GP", "MQ", "GF", "RE", "YT", "PM", "BL", "MF", "NC", "PF", "WF", "SN", "CI",
                "ML", "BF", "NE", "TG", "BJ", "GA", "CG", "CD", "GN", "DJ", "KM", "TD", "CF", "HT");
        put(regions, "de", "DE", "AT", "LI");
        put(regions, "it", "IT", "SM", "VA");
        put(regions, "nl", "NL", "SR", "AW", "CW", "SX", "BQ");
        put(regions, "pl", "PL");
        put(regions, "tr", "TR");
        put(regions, "ja", "JP");
        return Collections.unmodifiableMap(regions);
    }

    private static void put(Map<String, String> regions, String language, String... codes) {
        for (String code : codes) {
            regions.put(code, language);
        }
    }
}
