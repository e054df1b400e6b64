package dev.verificationservice.codes;

import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * Which spellings of an email address reach one mailbox, so that the per-target limit ({@code SEND_TO_TARGET})
 * counts the mailbox and not the spelling: {@code victim+1@gmail.com}, {@code v.i.c.t.i.m@googlemail.com} and
 * {@code VICTIM@gmail.com} are one inbox, and cycling spellings must not buy more sends to it. The key is only
 * ever counted under (digested); the message still goes to the address as the caller gave it.
 *
 * <p>The big providers' own rules are built in (Gmail, Outlook/Hotmail/Live/MSN, iCloud, Fastmail, Proton,
 * Yahoo). For every other domain, sub-addressing ({@code local+tag}, RFC 5233) is near universal, so {@code +tag} is dropped for every domain by default
 * ({@code everyDomain}); an operator whose users have real {@code +} in their addresses on some domain can turn
 * that off and name the domains that do sub-address instead. A key that joins two real mailboxes only makes the
 * limit stricter for them, never laxer, which is the safe side for a limit.
 *
 * @param everyDomain drop {@code +tag} on every domain ({@code VERIFICATION_LIMITS_SUBADDRESS_DOMAINS=*})
 * @param domains     further domains (lower case) whose {@code +tag} is dropped when not {@code everyDomain}
 */
public record Mailboxes(boolean everyDomain, Set<String> domains) {

    /** The default: {@code +tag} dropped on every domain, besides the providers' own rules. */
    public static final Mailboxes EVERY_DOMAIN = new Mailboxes(true, Set.of());

    /** How a provider spells one mailbox many ways. */
    private record Provider(String domain, String ignored, String tagSeparators) {
    }

    // Gmail ignores dots; googlemail.com is gmail.com.
    private static final Provider GMAIL = new Provider("gmail.com", ".", "+");
    private static final Provider MICROSOFT = new Provider(null, "", "+");
    // An Apple ID's me.com and mac.com addresses are aliases of its icloud.com one.
    private static final Provider APPLE = new Provider("icloud.com", "", "+");
    private static final Provider FASTMAIL = new Provider(null, "", "+");
    // Proton ignores '.', '-' and '_' in user names; proton.me, protonmail.com/.ch and pm.me are one account.
    private static final Provider PROTON = new Provider("proton.me", "._-", "+");
    // Yahoo's disposable addresses are "<base>-<keyword>"; a Yahoo ID itself has no '-'.
    private static final Provider YAHOO = new Provider(null, "", "+-");

    /** The providers whose rules are known, by domain; a null canonical domain keeps the domain as given. */
    private static final Map<String, Provider> PROVIDERS = Map.ofEntries(
            Map.entry("gmail.com", GMAIL), Map.entry("googlemail.com", GMAIL),
            Map.entry("outlook.com", MICROSOFT), Map.entry("hotmail.com", MICROSOFT),
            Map.entry("live.com", MICROSOFT), Map.entry("msn.com", MICROSOFT),
            Map.entry("hotmail.co.uk", MICROSOFT), Map.entry("outlook.de", MICROSOFT),
            Map.entry("hotmail.fr", MICROSOFT), Map.entry("live.co.uk", MICROSOFT),
            Map.entry("icloud.com", APPLE), Map.entry("me.com", APPLE), Map.entry("mac.com", APPLE),
            Map.entry("fastmail.com", FASTMAIL), Map.entry("fastmail.fm", FASTMAIL),
            Map.entry("proton.me", PROTON), Map.entry("protonmail.com", PROTON),
            Map.entry("protonmail.ch", PROTON), Map.entry("pm.me", PROTON),
            Map.entry("yahoo.com", YAHOO), Map.entry("ymail.com", YAHOO), Map.entry("yahoo.co.uk", YAHOO),
            Map.entry("yahoo.fr", YAHOO), Map.entry("yahoo.de", YAHOO));

    public Mailboxes {
        domains = Set.copyOf(domains);
    }

    /**
     * The mailbox a (validated, normalised) address reaches, in lower case: the local part without the provider's
     * insignificant characters and its sub-address tag, at the provider's canonical domain.
     */
    public String key(String address) {
        String lower = address.toLowerCase(Locale.ROOT);
        int at = lower.lastIndexOf('@');
        String local = lower.substring(0, at);
        String domain = lower.substring(at + 1);
        Provider provider = PROVIDERS.get(domain);
        String separators = provider != null ? provider.tagSeparators()
                : everyDomain || domains.contains(domain) ? "+" : "";
        local = beforeTag(local, separators);
        if (provider != null) {
            for (char ignored : provider.ignored().toCharArray()) {
                local = local.replace(String.valueOf(ignored), "");
            }
        }
        String mailboxDomain = provider != null && provider.domain() != null ? provider.domain() : domain;
        // An address that is all tag ("+x@gmail.com") keeps its spelling: there is no mailbox name to fold to.
        return local.isEmpty() ? lower : local + "@" + mailboxDomain;
    }

    private static String beforeTag(String local, String separators) {
        int end = local.length();
        for (char separator : separators.toCharArray()) {
            int index = local.indexOf(separator);
            if (index >= 0) {
                end = Math.min(end, index);
            }
        }
        return local.substring(0, end);
    }
}
