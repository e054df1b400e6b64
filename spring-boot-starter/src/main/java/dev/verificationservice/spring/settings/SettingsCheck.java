package dev.verificationservice.spring.settings;

import dev.verificationservice.spring.StartupProblems;
import dev.verificationservice.spring.VerificationProperties;
import dev.verificationservice.spring.core.VerificationAutoConfiguration;
import dev.verificationservice.spring.delivery.DeliveryAutoConfiguration;
import dev.verificationservice.spring.events.WebhookProperties;
import dev.verificationservice.spring.keys.EncryptionKeys;
import dev.verificationservice.spring.keys.SecretKeys;
import org.springframework.beans.factory.config.BeanFactoryPostProcessor;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.EnvironmentAware;
import org.springframework.core.env.Environment;

/**
 * Every setting of the verification checked at once, before any bean is built (and so before a web server is
 * made, a key file written or a store opened): a start with several things missing or wrong is refused with one
 * {@code StartupException} that lists them all, each with what to set, instead of one per restart behind the
 * errors of whatever bean met it first.
 *
 * <p>The rules are those the beans apply when they are built, called here with one {@link StartupProblems} for all:
 * each lives once, beside the bean it guards, and runs here only when the context is going to build that bean
 * ({@link Settings#builds}), so an application that declares its own keys or its own {@code CodeSender} is not
 * asked for the settings it does not use. Rules of other parts (the server's keys) come as {@link SettingsRules}
 * beans. What needs the network (the table's shape, SNS, the AWS region) is checked by its bean, as before.
 */
public final class SettingsCheck implements BeanFactoryPostProcessor, EnvironmentAware {

    private Environment environment;

    @Override
    public void setEnvironment(Environment environment) {
        this.environment = environment;
    }

    @Override
    public void postProcessBeanFactory(ConfigurableListableBeanFactory beans) {
        StartupProblems problems = new StartupProblems();
        Settings settings = new Settings(Binder.get(environment), beans, problems);
        check(settings);
        beans.getBeansOfType(SettingsRules.class, false, false).values().forEach(rules -> rules.check(settings));
        problems.throwIfAny();
    }

    /** The starter's own rules, each where its bean would apply it. */
    static void check(Settings settings) {
        VerificationProperties verification = settings.verification();
        StartupProblems problems = settings.problems();
        if (settings.builds("verificationSecretKeys")) {
            SecretKeys.check(verification, problems);
        }
        if (settings.builds("verificationEncryptionKeys")) {
            EncryptionKeys.check(verification, problems);
        }
        if (settings.builds("verificationSettings")) {
            VerificationAutoConfiguration.settings(verification, problems);
        }
        if (settings.builds("verificationMessageTemplates")) {
            problems.value(() -> DeliveryAutoConfiguration.templates(verification));
        }
        if (settings.builds("verificationMessageRenderer")) {
            problems.value(() -> DeliveryAutoConfiguration.webOtpDomain(verification.sms().webotpDomain()));
        }
        if (settings.builds("verificationDeliveryChannels")) {
            DeliveryAutoConfiguration.checkChannels(verification, problems);
        }
        if (settings.builds("webhookRelay")) {
            WebhookProperties webhooks = settings.bind("verification.webhooks", WebhookProperties.class);
            problems.value(webhooks::settings);
        }
    }
}
