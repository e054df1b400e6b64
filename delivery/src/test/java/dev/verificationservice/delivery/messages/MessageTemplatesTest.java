package dev.verificationservice.delivery.messages;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.verificationservice.codes.CodeFormat;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryMethod;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

/** The shipped languages, the fallback chain, the overrides, and the language chosen for a message. */
class MessageTemplatesTest {

    private final MessageTemplates shipped = MessageTemplates.shipped();

    /** The keys a message can reach: email for the types sent by email, SMS for the types sent by SMS. */
    static List<String> reachableKeys() {
        List<String> keys = new ArrayList<>(List.of("linkHint", "ignore", "NUMERIC.expiry", "LINK.expiry",
                "NUMERIC.context", "LINK.context"));
        for (CodeType type : CodeType.values()) {
            if (type.allows(DeliveryMethod.EMAIL)) {
                keys.add(type + ".subject");
                keys.add(type + ".LINK.button");
                for (CodeFormat format : CodeFormat.values()) {
                    keys.add(type + "." + format + ".intro");
                }
            }
            if (type.allows(DeliveryMethod.SMS)) {
                for (CodeFormat format : CodeFormat.values()) {
                    keys.add(type + "." + format + ".sms");
                }
            }
        }
        return keys;
    }

    @Test
    void everyShippedLanguageHasEveryTextAMessageCanReach() {
        assertThat(MessageTemplates.SHIPPED).hasSizeGreaterThanOrEqualTo(10);
        for (String tag : MessageTemplates.SHIPPED) {
            Locale locale = Locale.forLanguageTag(tag);
            for (String key : reachableKeys()) {
                boolean exempt = tag.equals("ja") && key.endsWith(".LINK.sms");
                assertThat(shipped.shippedIn(locale, key)).as(tag + " " + key).matches(text -> exempt == text.isEmpty());
            }
        }
    }

    @Test
    void everyTemplateHasItsPlaceholdersAndOnlyKnownOnes() {
        Set<String> known = Set.of("{code}", "{link}", "{minutes}", "{context}");
        for (String tag : MessageTemplates.SHIPPED) {
            Locale locale = Locale.forLanguageTag(tag);
            for (String key : reachableKeys()) {
                Optional<String> text = shipped.shippedIn(locale, key);
                if (text.isEmpty()) {
                    continue;
                }
                java.util.regex.Matcher placeholder = java.util.regex.Pattern.compile("\\{[^}]*}").matcher(text.get());
                while (placeholder.find()) {
                    assertThat(known).as(tag + " " + key).contains(placeholder.group());
                }
                if (key.endsWith(".NUMERIC.sms")) {
                    assertThat(text.get()).as(tag + " " + key).contains("{code}", "{minutes}", "{context}");
                }
                if (key.endsWith(".LINK.sms")) {
                    assertThat(text.get()).as(tag + " " + key).contains("{link}", "{minutes}", "{context}");
                }
                if (key.endsWith(".expiry")) {
                    assertThat(text.get()).as(tag + " " + key).contains("{minutes}");
                }
                if (key.endsWith(".context")) {
                    assertThat(text.get()).as(tag + " " + key).contains("{context}");
                }
            }
        }
    }

    @Test
    void filesAreReadAsUtf8() {
        assertThat(shipped.get(Locale.JAPANESE, "PASSWORD_RESET.subject")).isEqualTo("パスワードの再設定");
        assertThat(shipped.get(Locale.forLanguageTag("pl"), "PASSWORD_RESET.subject")).isEqualTo("Resetowanie hasła");
        assertThat(shipped.get(Locale.FRENCH, "NUMERIC.context")).isEqualTo("Ce code autorise\u00a0: {context}");
    }

    @Test
    void theChainDropsSubtagsFromTheEnd() {
        assertThat(MessageTemplates.chain(Locale.forLanguageTag("pt-BR"))).containsExactly("pt-BR", "pt");
        assertThat(MessageTemplates.chain(Locale.forLanguageTag("zh-Hant-TW"))).containsExactly("zh-Hant-TW", "zh-Hant", "zh");
        assertThat(MessageTemplates.chain(Locale.forLanguageTag("de-AT-u-ca-buddhist"))).containsExactly("de-AT", "de");
    }

    @Test
    void aLocaleResolvesToTheNearestLanguageWithTexts() {
        assertThat(shipped.resolve(Locale.forLanguageTag("pt-BR"))).isEqualTo(Locale.forLanguageTag("pt-BR"));
        assertThat(shipped.resolve(Locale.forLanguageTag("pt-AO"))).isEqualTo(Locale.forLanguageTag("pt"));
        assertThat(shipped.resolve(Locale.forLanguageTag("de-AT"))).isEqualTo(Locale.GERMAN);
        assertThat(shipped.resolve(Locale.forLanguageTag("en-GB"))).isEqualTo(Locale.ENGLISH);
        assertThat(shipped.resolve(Locale.forLanguageTag("sw-KE"))).isEqualTo(Locale.ENGLISH);
        // A missing text falls back along the chain, then to English.
        assertThat(shipped.get(Locale.forLanguageTag("pt-BR"), "PASSWORD_RESET.subject")).isEqualTo("Redefina sua senha");
        assertThat(shipped.get(Locale.forLanguageTag("pt-AO"), "PASSWORD_RESET.subject")).isEqualTo("Reponha a sua palavra-passe");
        assertThat(shipped.get(Locale.JAPANESE, "PASSWORD_RESET.LINK.sms")).startsWith("Reset your password: {link}");
    }

    @Test
    void overridesWithAndWithoutALocale() {
        MessageTemplates templates = MessageTemplates.withOverrides(Map.of(
                "PASSWORD_RESET.subject", "ACME: reset your password",
                "pt.PASSWORD_RESET.subject", "ACME: reponha a palavra-passe",
                "PT-br.PASSWORD_RESET.LINK.sms", "ACME: {link}",
                "sw.PASSWORD_RESET.subject", "Weka upya nenosiri lako"));

        // A locale's own override first, along the chain (pt-BR → pt), then the override for every language.
        assertThat(templates.get(Locale.forLanguageTag("pt-BR"), "PASSWORD_RESET.subject")).isEqualTo("ACME: reponha a palavra-passe");
        assertThat(templates.get(Locale.forLanguageTag("pt-BR"), "PASSWORD_RESET.LINK.sms")).isEqualTo("ACME: {link}");
        assertThat(templates.get(Locale.GERMAN, "PASSWORD_RESET.subject")).isEqualTo("ACME: reset your password");
        assertThat(templates.get(Locale.GERMAN, "EMAIL_VERIFICATION.subject")).isEqualTo("Ihr Bestätigungscode");
        // A language that only overrides add is one the service writes in.
        assertThat(templates.resolve(Locale.forLanguageTag("sw-TZ"))).isEqualTo(Locale.forLanguageTag("sw"));
        assertThat(templates.get(Locale.forLanguageTag("sw"), "PASSWORD_RESET.subject")).isEqualTo("Weka upya nenosiri lako");
        assertThat(templates.get(Locale.forLanguageTag("sw"), "ignore")).isEqualTo(shipped.get(Locale.ENGLISH, "ignore"));
    }

    @Test
    void aPropertyThatIsNoTemplateIsRefusedByName() {
        assertThatThrownBy(() -> MessageTemplates.withOverrides(Map.of("PASSWORD_RESET.LNK.body", "x")))
                .hasMessageContaining("verification.templates.PASSWORD_RESET.LNK.body is not a template");
        assertThatThrownBy(() -> MessageTemplates.withOverrides(Map.of("not a tag.PASSWORD_RESET.subject", "x")))
                .hasMessageContaining("is not a template");
    }

    @Test
    void anSmsTakesTheLanguageOfItsNumbersCountryAndAnEmailEnglish() {
        TemplateLocales locales = new TemplateLocales(shipped);
        assertThat(locales.choose(Optional.empty(), DeliveryMethod.SMS, "+5511912345678")).isEqualTo(Locale.forLanguageTag("pt-BR"));
        assertThat(locales.choose(Optional.empty(), DeliveryMethod.SMS, "+351912345678")).isEqualTo(Locale.forLanguageTag("pt"));
        assertThat(locales.choose(Optional.empty(), DeliveryMethod.SMS, "+4915123456789")).isEqualTo(Locale.GERMAN);
        assertThat(locales.choose(Optional.empty(), DeliveryMethod.SMS, "+48512345678")).isEqualTo(Locale.forLanguageTag("pl"));
        assertThat(locales.choose(Optional.empty(), DeliveryMethod.SMS, "+819012345678")).isEqualTo(Locale.JAPANESE);
        assertThat(locales.choose(Optional.empty(), DeliveryMethod.SMS, "+5215512345678")).isEqualTo(Locale.forLanguageTag("es"));
        assertThat(locales.choose(Optional.empty(), DeliveryMethod.SMS, "+447700123456")).isEqualTo(Locale.ENGLISH);
        // Belgium has no one language: English unless the request says.
        assertThat(locales.choose(Optional.empty(), DeliveryMethod.SMS, "+32470123456")).isEqualTo(Locale.ENGLISH);
        assertThat(locales.choose(Optional.of(Locale.FRENCH), DeliveryMethod.SMS, "+32470123456")).isEqualTo(Locale.FRENCH);
        assertThat(locales.choose(Optional.empty(), DeliveryMethod.EMAIL, "jane@example.de")).isEqualTo(Locale.ENGLISH);
        assertThat(locales.choose(Optional.of(Locale.forLanguageTag("it-CH")), DeliveryMethod.EMAIL, "x@y.ch"))
                .isEqualTo(Locale.ITALIAN);
        // The table names shipped languages only.
        assertThat(TemplateLocales.REGION_LANGUAGES.values()).allSatisfy(tag -> assertThat(MessageTemplates.SHIPPED).contains(tag));
    }
}
