package dev.verificationservice.delivery.messages;

import dev.verificationservice.codes.CodeFormat;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.OutgoingCode;
import dev.verificationservice.security.SecureTokens;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every SMS the templates can produce, rendered with the longest code (10 digits; a 43-character link code in the
 * configured link URL) and no context: what must fit one segment. The service logs a warning at start for any that
 * does not (an override, a long link URL or WebOTP domain), and a test holds every shipped template to it.
 */
public final class SmsBudget {

    private static final Logger LOG = LoggerFactory.getLogger(SmsBudget.class);

    /** The longest NUMERIC code. */
    public static final String LONGEST_NUMERIC_CODE = "9".repeat(CodeFormat.MAX_NUMERIC_LENGTH);
    /** A LINK code: always this long (base64url of 32 random bytes). */
    public static final String LINK_CODE = "Ab3_-".repeat(9).substring(0, SecureTokens.RANDOM_TOKEN_LENGTH);

    /** One SMS template of one language, rendered. */
    public record Case(Locale locale, CodeType codeType, CodeFormat format, MessageRenderer.RenderedSms sms) {
        @Override
        public String toString() {
            return locale.toLanguageTag() + " " + codeType + "." + format + ": " + sms.segments();
        }
    }

    private SmsBudget() {
    }

    /** Every language × every code type sent by SMS × every format, rendered with the longest code. */
    public static List<Case> cases(MessageRenderer renderer, Clock clock, Duration codeTtl) {
        Instant expiresAt = clock.instant().plus(codeTtl);
        List<Case> cases = new ArrayList<>();
        for (Locale locale : renderer.templates().locales()) {
            for (CodeType type : CodeType.values()) {
                if (!type.allows(DeliveryMethod.SMS)) {
                    continue;
                }
                for (CodeFormat format : CodeFormat.values()) {
                    String code = format == CodeFormat.NUMERIC ? LONGEST_NUMERIC_CODE : LINK_CODE;
                    OutgoingCode message = new OutgoingCode("budget", type, format, DeliveryMethod.SMS, "+447700123456",
                            "+44******3456", code, expiresAt, locale, Optional.empty());
                    cases.add(new Case(locale, type, format, renderer.renderSms(message)));
                }
            }
        }
        return cases;
    }

    /** Logs a warning for every SMS that needs more than one segment with this configuration. */
    public static void warnAboutLongTemplates(MessageRenderer renderer, Clock clock, Duration codeTtl) {
        for (Case over : cases(renderer, clock, codeTtl).stream().filter(c -> c.sms().segments().segments() > 1).toList()) {
            LOG.warn("The {} SMS for {} {} codes needs {} segments ({} {} characters) with the longest code: shorten "
                            + "the template (verification.templates.{}.{}.{}.sms), VERIFICATION_LINK_URL or "
                            + "VERIFICATION_SMS_WEBOTP_DOMAIN.", over.locale().toLanguageTag(), over.codeType(),
                    over.format(), over.sms().segments().segments(), over.sms().segments().units(),
                    over.sms().segments().encoding(), over.locale().toLanguageTag(), over.codeType(), over.format());
        }
    }
}
