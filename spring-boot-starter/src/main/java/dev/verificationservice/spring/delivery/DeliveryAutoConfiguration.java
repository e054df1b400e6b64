package dev.verificationservice.spring.delivery;

import dev.verificationservice.codes.CodeSender;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.DevelopmentOutbox;
import dev.verificationservice.codes.MessageLocales;
import dev.verificationservice.delivery.DeliveryChannels;
import dev.verificationservice.delivery.RoutingCodeSender;
import dev.verificationservice.delivery.email.SmtpCodeSender;
import dev.verificationservice.delivery.email.SmtpSettings;
import dev.verificationservice.delivery.email.SmtpSettingsException;
import dev.verificationservice.delivery.messages.MessageRenderer;
import dev.verificationservice.delivery.messages.MessageTemplates;
import dev.verificationservice.delivery.messages.SmsBudget;
import dev.verificationservice.delivery.messages.SmsSegments;
import dev.verificationservice.delivery.messages.TemplateLocales;
import dev.verificationservice.delivery.sms.SnsSmsSender;
import dev.verificationservice.delivery.sms.WebhookSmsSender;
import dev.verificationservice.spring.StartupException;
import dev.verificationservice.spring.StartupProblems;
import dev.verificationservice.spring.VerificationProperties;
import dev.verificationservice.spring.metrics.VerificationMetrics;
import dev.verificationservice.spring.security.LoginProperties;
import java.net.URI;
import java.time.Clock;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.sns.SnsClient;

/**
 * The delivery channels: SMTP for EMAIL when {@code VERIFICATION_SMTP_HOST} is set; Amazon SNS or a signed
 * webhook for SMS when {@code VERIFICATION_SMS_PROVIDER} says so. With no channel at all, and only then,
 * the development outbox takes every code and the service says loudly that it is in development mode; on the
 * dynamodb store only with {@code VERIFICATION_DEV_OUTBOX=true}, and otherwise the service refuses to start.
 *
 * <p>An application that delivers codes itself declares its own {@link CodeSender} bean: then none of the
 * built-in channels is configured (and none of their settings is checked). The message texts
 * ({@link MessageRenderer}) remain available to it.
 */
@AutoConfiguration
@EnableConfigurationProperties(VerificationProperties.class)
public class DeliveryAutoConfiguration {

    private static final Logger LOG = LoggerFactory.getLogger(DeliveryAutoConfiguration.class);

    /** A host name: dot-separated labels of letters, digits and inner hyphens, at most 253 characters. */
    private static final Pattern HOST_NAME = Pattern.compile(
            "(?=.{1,253}$)([a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)(\\.[a-z0-9]([a-z0-9-]{0,61}[a-z0-9])?)*");

    /** The shipped message texts and the operator's overrides ({@code verification.templates.*}). */
    @Bean
    @ConditionalOnMissingBean
    public MessageTemplates verificationMessageTemplates(VerificationProperties properties) {
        return templates(properties);
    }

    /** {@code verification.templates.*} over the shipped texts; a key that is no template is a refused start. */
    public static MessageTemplates templates(VerificationProperties properties) {
        try {
            return MessageTemplates.withOverrides(properties.templates());
        } catch (IllegalArgumentException e) {
            throw new StartupException(e.getMessage() + ".", "Fix or remove that property (README, Messages).", e);
        }
    }

    /** Chooses each message's language before it is sent (the core asks it, and reports the answer). */
    @Bean
    @ConditionalOnMissingBean
    public MessageLocales verificationMessageLocales(MessageTemplates templates) {
        return new TemplateLocales(templates);
    }

    @Bean
    @ConditionalOnMissingBean
    public MessageRenderer verificationMessageRenderer(VerificationProperties properties, MessageTemplates templates, Clock clock,
                                                       ObjectProvider<LoginProperties> login) {
        // Login links (Spring Security's one-time-token login, when it is on) open the application's login page.
        String loginLinkUrl = Optional.ofNullable(login.getIfAvailable()).map(LoginProperties::linkUrl)
                .orElse(LoginProperties.DEFAULT_LINK_URL);
        MessageRenderer renderer = new MessageRenderer(templates, properties.linkUrl(),
                webOtpDomain(properties.sms().webotpDomain()), clock).withLinkUrl(CodeType.LOGIN, loginLinkUrl);
        SmsBudget.warnAboutLongTemplates(renderer, clock, properties.codeTtl());
        return renderer;
    }

    /** {@code VERIFICATION_SMS_WEBOTP_DOMAIN}: a host name, lower-cased; empty when not set. */
    public static Optional<String> webOtpDomain(String value) {
        if (value == null || value.isBlank()) {
            return Optional.empty();
        }
        String domain = value.trim().toLowerCase(Locale.ROOT);
        if (!HOST_NAME.matcher(domain).matches()) {
            throw new StartupException("VERIFICATION_SMS_WEBOTP_DOMAIN '" + value + "' is not a host name.",
                    "Give the host name of the site that reads the code (WebOTP), without scheme, port or path, "
                            + "for example app.example.com.");
        }
        return Optional.of(domain);
    }

    @Bean(destroyMethod = "close")
    @ConditionalOnMissingBean(CodeSender.class)
    public DeliveryChannels verificationDeliveryChannels(VerificationProperties properties, MessageRenderer renderer, Clock clock,
                                             VerificationMetrics metrics) {
        Consumer<SmsSegments> smsSent = segments -> metrics.smsSegments(segments.encoding().name(), segments.segments());
        StartupProblems problems = new StartupProblems();
        checkChannels(properties, problems);
        problems.throwIfAny();
        if (properties.outboxAllowed()) {
            DevelopmentOutbox outbox = new DevelopmentOutbox(clock, properties.outboxSize(),
                    message -> renderer.render(message).body());
            // The server shows the outbox at GET /dev/outbox; an application that embeds the starter has no such
            // endpoint, so the warning also says how it reads the codes.
            LOG.warn("DEVELOPMENT MODE: no delivery channel is configured, so codes are NOT sent. They are kept in "
                    + "memory, in the development outbox: the service shows them at GET /dev/outbox; an application "
                    + "embedding the starter reads them from the DeliveryChannels bean "
                    + "(outbox().get().messages(Optional.of(userId), Optional.empty())). Configure "
                    + "VERIFICATION_SMTP_HOST and/or VERIFICATION_SMS_PROVIDER before real use.");
            return new DeliveryChannels(new RoutingCodeSender(Map.of(DeliveryMethod.EMAIL, outbox,
                    DeliveryMethod.SMS, outbox)), Optional.of(outbox), List.of());
        }
        Map<DeliveryMethod, CodeSender> channels = new EnumMap<>(DeliveryMethod.class);
        List<AutoCloseable> resources = new ArrayList<>();
        if (properties.smtp().enabled()) {
            channels.put(DeliveryMethod.EMAIL, new SmtpCodeSender(properties.smtp().settings(), renderer, clock));
        }
        VerificationProperties.Sms sms = properties.sms();
        switch (sms.provider()) {
            case SNS -> {
                SnsClient sns = snsClient();
                resources.add(sns);
                channels.put(DeliveryMethod.SMS, new SnsSmsSender(sns, renderer, sms.snsSenderId(), smsSent));
            }
            case WEBHOOK -> channels.put(DeliveryMethod.SMS, new WebhookSmsSender(webhookUrl(sms), sms.webhookSecret(),
                    sms.webhookTimeout(), renderer, clock, smsSent));
            case NONE -> { }
        }
        LOG.info("Delivery channels: {}", channels.keySet());
        return new DeliveryChannels(new RoutingCodeSender(channels), Optional.empty(), List.copyOf(resources));
    }

    @Bean
    @ConditionalOnMissingBean
    @ConditionalOnBean(DeliveryChannels.class)
    public CodeSender verificationCodeSender(DeliveryChannels channels) {
        return channels.sender();
    }

    /**
     * What the channels need of the settings, every problem reported to {@code problems}: a channel at all (or the
     * outbox where it may run), SMTP settings {@link SmtpSettings} accepts (a sender address among them), a complete
     * SMS webhook. The bean's rule, and the settings check's.
     */
    public static void checkChannels(VerificationProperties properties, StartupProblems problems) {
        if (!properties.anyDeliveryChannel() && !properties.outboxAllowed()) {
            problems.add(new StartupException("No delivery channel is configured, and the development outbox does not "
                    + "run on the dynamodb store unless asked for.", "Set VERIFICATION_SMTP_HOST (the SMTP server, for "
                    + "example email-smtp.eu-west-1.amazonaws.com, with VERIFICATION_SMTP_USERNAME, "
                    + "VERIFICATION_SMTP_PASSWORD and VERIFICATION_SMTP_FROM) and/or VERIFICATION_SMS_PROVIDER (sns or "
                    + "webhook). For a test deployment that should keep codes in memory instead, set "
                    + "VERIFICATION_DEV_OUTBOX=true."));
        }
        if (properties.smtp().enabled()) {
            problems.value(() -> smtpSettings(properties.smtp()));
        }
        if (properties.sms().provider() == VerificationProperties.SmsProvider.WEBHOOK) {
            problems.value(() -> webhookUrl(properties.sms()));
            problems.run(() -> webhookSecret(properties.sms()));
        }
    }

    /** The SMTP settings; {@link SmtpSettings} refuses clear text to another host or with a login. */
    private static SmtpSettings smtpSettings(VerificationProperties.Smtp smtp) {
        try {
            SmtpSettings settings = smtp.settings();
            settings.fromAddress();
            return settings;
        } catch (SmtpSettingsException e) {
            throw new StartupException(e.getMessage(), e.action(), e);
        }
    }

    private static URI webhookUrl(VerificationProperties.Sms sms) {
        if (sms.webhookUrl() == null || sms.webhookUrl().isBlank()) {
            throw new StartupException("VERIFICATION_SMS_PROVIDER is webhook but VERIFICATION_SMS_WEBHOOK_URL is not set.",
                    "Set VERIFICATION_SMS_WEBHOOK_URL to the https URL that receives SMS requests.");
        }
        URI url;
        try {
            url = URI.create(sms.webhookUrl().trim());
        } catch (IllegalArgumentException e) {
            throw new StartupException("VERIFICATION_SMS_WEBHOOK_URL '" + sms.webhookUrl() + "' is not a URL.",
                    "Give the https URL that receives SMS requests, for example https://sms.example.com/send.", e);
        }
        if (!"https".equals(url.getScheme()) && !isLoopback(url)) {
            throw new StartupException("VERIFICATION_SMS_WEBHOOK_URL must use https (plain http only to localhost).",
                    "Give an https:// URL.");
        }
        return url;
    }

    private static void webhookSecret(VerificationProperties.Sms sms) {
        if (sms.webhookSecret() == null || sms.webhookSecret().length() < 32) {
            throw new StartupException("VERIFICATION_SMS_WEBHOOK_SECRET is missing or shorter than 32 characters.",
                    "Set a random secret of at least 32 characters, shared with the webhook (openssl rand -hex 32).");
        }
    }

    private static SnsClient snsClient() {
        try {
            return SnsClient.create();
        } catch (SdkException e) {
            throw new StartupException("Amazon SNS cannot be configured: " + e.getMessage(),
                    "Set AWS_REGION and make AWS credentials available, or choose another VERIFICATION_SMS_PROVIDER.", e);
        }
    }

    private static boolean isLoopback(URI url) {
        String host = url.getHost();
        return "localhost".equals(host) || "127.0.0.1".equals(host) || "[::1]".equals(host) || "::1".equals(host);
    }
}
