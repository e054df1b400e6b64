package dev.verificationservice.codes;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Locale;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Every spelling of one mailbox is one key, and different mailboxes are different keys: the per-target limit
 * counts inboxes, not spellings.
 */
class MailboxesProperties {

    private static final Mailboxes RULES = Mailboxes.EVERY_DOMAIN;

    /** Gmail user names: letters and digits (dots are spelled in below), short enough for any spelling to be valid. */
    @Provide
    Arbitrary<String> gmailNames() {
        return Arbitraries.strings().withCharRange('a', 'z').withCharRange('0', '9').ofMinLength(1).ofMaxLength(20);
    }

    @Provide
    Arbitrary<String> tags() {
        return Arbitraries.strings().withCharRange('a', 'z').withCharRange('0', '9').withChars('-', '_', '+')
                .ofMinLength(0).ofMaxLength(10);
    }

    /** One spelling of {@code name@gmail.com}: dots anywhere inside, any case, any +tag, either Google domain. */
    private static String gmailSpelling(String name, long dots, long upper, String tag, boolean googlemail) {
        StringBuilder local = new StringBuilder();
        for (int i = 0; i < name.length(); i++) {
            char c = name.charAt(i);
            local.append((upper >> (i % 63) & 1) == 1 ? Character.toUpperCase(c) : c);
            if (i < name.length() - 1 && (dots >> (i % 63) & 1) == 1) {
                local.append('.');
            }
        }
        if (!tag.isEmpty()) {
            local.append('+').append(tag);
        }
        String domain = googlemail ? "googlemail.com" : "gmail.com";
        return local + "@" + ((upper & 1) == 1 ? domain.toUpperCase(Locale.ROOT) : domain);
    }

    @Provide
    Arbitrary<String> spellingsOfOneGmailMailbox() {
        return Combinators.combine(Arbitraries.longs(), Arbitraries.longs(), tags(), Arbitraries.of(true, false))
                .as((dots, upper, tag, googlemail) -> gmailSpelling("victim7", dots, upper, tag, googlemail));
    }

    @Property
    void everyGmailSpellingOfOneMailboxIsOneKey(@ForAll("spellingsOfOneGmailMailbox") String spelling) {
        String normalized = DeliveryTargets.validate(DeliveryMethod.EMAIL, spelling);
        assertThat(RULES.key(normalized)).isEqualTo("victim7@gmail.com");
    }

    @Property
    void differentGmailMailboxesAreDifferentKeysWhateverTheSpelling(
            @ForAll("gmailNames") String one, @ForAll("gmailNames") String other,
            @ForAll long dots, @ForAll long upper, @ForAll("tags") String tag, @ForAll boolean googlemail) {
        String a = DeliveryTargets.validate(DeliveryMethod.EMAIL, gmailSpelling(one, dots, upper, tag, googlemail));
        String b = DeliveryTargets.validate(DeliveryMethod.EMAIL, gmailSpelling(other, ~dots, ~upper, "", !googlemail));
        assertThat(RULES.key(a).equals(RULES.key(b))).isEqualTo(one.equals(other));
    }

    @Property
    void aPlusTagIsDroppedOnEveryDomainByDefaultAndOnlyOnTheNamedDomainsWhenTurnedOff(
            @ForAll("gmailNames") String name, @ForAll("tags") String tag, @ForAll @IntRange(min = 0, max = 2) int which) {
        String domain = new String[] {"example.com", "mail.example.org", "corp.example"}[which];
        String tagged = name + "+" + tag + "@" + domain;
        assertThat(RULES.key(tagged)).isEqualTo(name + "@" + domain);

        Mailboxes namedOnly = new Mailboxes(false, Set.of("example.com"));
        assertThat(namedOnly.key(tagged)).isEqualTo(domain.equals("example.com") ? name + "@" + domain : tagged);
    }

    @Property
    void theOtherBigProvidersDropTheirTagsAndShareTheirAliasDomains(
            @ForAll("gmailNames") String name, @ForAll("tags") String tag) {
        Mailboxes none = new Mailboxes(false, Set.of());
        for (String domain : new String[] {"outlook.com", "hotmail.com", "live.com", "msn.com", "fastmail.com"}) {
            assertThat(none.key(name + "+" + tag + "@" + domain)).isEqualTo(name + "@" + domain);
        }
        for (String domain : new String[] {"icloud.com", "me.com", "mac.com"}) {
            assertThat(none.key(name + "+" + tag + "@" + domain)).isEqualTo(name + "@icloud.com");
        }
        for (String domain : new String[] {"proton.me", "protonmail.com", "protonmail.ch", "pm.me"}) {
            assertThat(none.key(name + "+" + tag + "@" + domain)).isEqualTo(name + "@proton.me");
        }
        // Yahoo's disposable addresses: <base>-<keyword>.
        assertThat(none.key(name + "-" + tag + "@yahoo.com")).isEqualTo(name + "@yahoo.com");
    }
}
