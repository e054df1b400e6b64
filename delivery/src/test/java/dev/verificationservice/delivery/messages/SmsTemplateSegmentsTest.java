package dev.verificationservice.delivery.messages;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.codes.CodeFormat;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

/**
 * Every shipped SMS template, in every language, rendered with the longest code (10 digits; a 43-character link
 * code in the default link URL) and no context, fits one SMS segment: 160 GSM-7 characters (extension characters
 * counting two) or 70 UCS-2 characters. With the WebOTP line too, for a domain of typical length.
 */
class SmsTemplateSegmentsTest {

    /** The default VERIFICATION_LINK_URL. */
    static final String DEFAULT_LINK_URL = "http://localhost:8080/reset-password?code={code}";
    /** A typical WebOTP domain: 20 characters. */
    static final String TYPICAL_DOMAIN = "accounts.example.com";
    /** The longest WebOTP domain every shipped template is documented to fit with (README, Messages). */
    static final int DOCUMENTED_DOMAIN_LIMIT = 22;
    static final Clock CLOCK = Clock.fixed(Instant.parse("2026-11-30T10:00:00Z"), ZoneOffset.UTC);
    static final Duration TTL = Duration.ofMinutes(15);

    @Test
    void everyShippedSmsTemplateFitsOneSegmentWithTheLongestCode() {
        List<SmsBudget.Case> cases = SmsBudget.cases(renderer(Optional.empty()), CLOCK, TTL);
        report("without the WebOTP line", cases);

        assertThat(cases).hasSize(MessageTemplates.SHIPPED.size() * 4);
        assertThat(cases).allSatisfy(c -> assertThat(c.sms().segments().segments())
                .as("%s:%n%s", c, c.sms().body()).isEqualTo(1));
        assertThat(cases).filteredOn(c -> c.format() == CodeFormat.LINK)
                .allSatisfy(c -> assertThat(c.sms().body()).contains("http://localhost:8080/reset-password?code="
                        + SmsBudget.LINK_CODE));
        assertThat(cases).filteredOn(c -> c.format() == CodeFormat.NUMERIC)
                .allSatisfy(c -> assertThat(c.sms().body()).contains(SmsBudget.LONGEST_NUMERIC_CODE));
    }

    @Test
    void withTheWebOtpLineOfATypicalDomainTooAndTheLineIsLast() {
        List<SmsBudget.Case> cases = SmsBudget.cases(renderer(Optional.of(TYPICAL_DOMAIN)), CLOCK, TTL);
        report("with the WebOTP line for " + TYPICAL_DOMAIN, cases);

        assertThat(cases).allSatisfy(c -> assertThat(c.sms().segments().segments())
                .as("%s:%n%s", c, c.sms().body()).isEqualTo(1));
        assertThat(cases).filteredOn(c -> c.format() == CodeFormat.NUMERIC).allSatisfy(c -> {
            List<String> lines = c.sms().body().lines().toList();
            assertThat(lines.get(lines.size() - 1)).isEqualTo("@" + TYPICAL_DOMAIN + " #" + SmsBudget.LONGEST_NUMERIC_CODE);
        });
        assertThat(cases).filteredOn(c -> c.format() == CodeFormat.LINK)
                .allSatisfy(c -> assertThat(c.sms().body()).doesNotContain("@" + TYPICAL_DOMAIN));
    }

    /** The longest domain with which every shipped template still fits, printed for the documentation. */
    @Test
    void theLongestWebOtpDomainThatFitsIsAtLeastTheDocumentedOne() {
        int longest = 0;
        for (int length = 4; length <= 120; length++) {
            String domain = "a".repeat(length - 4) + ".com";
            boolean fits = SmsBudget.cases(renderer(Optional.of(domain)), CLOCK, TTL).stream()
                    .allMatch(c -> c.sms().segments().segments() == 1);
            if (!fits) {
                break;
            }
            longest = length;
        }
        System.out.println("Every shipped SMS fits one segment with a WebOTP domain of up to " + longest + " characters");
        assertThat(longest).isGreaterThanOrEqualTo(DOCUMENTED_DOMAIN_LIMIT);
    }

    static MessageRenderer renderer(Optional<String> domain) {
        return new MessageRenderer(MessageTemplates.shipped(), DEFAULT_LINK_URL, domain, CLOCK);
    }

    /** The longest SMS of each language and format, with its encoding, for the build log. */
    private static void report(String title, List<SmsBudget.Case> cases) {
        Map<String, SmsBudget.Case> longest = cases.stream().collect(Collectors.toMap(
                c -> c.locale().toLanguageTag() + " " + c.format(), c -> c,
                (a, b) -> a.sms().segments().units() >= b.sms().segments().units() ? a : b, TreeMap::new));
        MessageTemplates templates = MessageTemplates.shipped();
        StringBuilder out = new StringBuilder("Longest SMS per language and format, " + title + ":\n");
        longest.values().forEach(c -> {
            String key = c.codeType() + "." + c.format() + ".sms";
            Optional<String> own = templates.shippedIn(c.locale(), key);
            String note = own.isEmpty() ? " (no template of its own: English)"
                    : SmsSegments.isGsm7(c.sms().body()) && !SmsSegments.isGsm7(own.get()) ? " (accents taken off)" : "";
            out.append(String.format(Locale.ROOT, "  %-6s %-30s %3d %s of %d%s%n", c.locale().toLanguageTag(),
                    c.codeType() + "." + c.format(), c.sms().segments().units(), c.sms().segments().encoding(),
                    c.sms().segments().encoding().singleSegment(), note));
        });
        System.out.print(out);
    }
}
