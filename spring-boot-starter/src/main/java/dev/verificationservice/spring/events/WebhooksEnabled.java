package dev.verificationservice.spring.events;

import java.util.Locale;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * {@code verification.webhooks.enabled}: {@code true}, {@code false}, or {@code auto} (the default), which is on
 * with the embedded store and on DynamoDB only once {@code VERIFICATION_ENCRYPTION_KEYS} is set, so an existing
 * DynamoDB deployment starts unchanged after an upgrade. While off, audit entries are written without entering the
 * outbox (the store is told at start: {@link dev.verificationservice.VerificationStore#eventsOff}), so they cost no
 * outbox write and are never delivered.
 */
public final class WebhooksEnabled implements Condition {

    @Override
    public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
        return on(context.getEnvironment());
    }

    /** Whether webhooks are on in this environment: the relay runs, and subscribed audit entries enter the outbox. */
    public static boolean on(Environment environment) {
        String enabled = environment.getProperty("verification.webhooks.enabled", "auto").trim().toLowerCase(Locale.ROOT);
        if (!enabled.equals("auto")) {
            return Boolean.parseBoolean(enabled);
        }
        boolean dynamodb = environment.getProperty("verification.store", "embedded").trim()
                .equalsIgnoreCase("dynamodb");
        String keys = environment.getProperty(WebhookAutoConfiguration.ENCRYPTION_KEYS);
        return !dynamodb || (keys != null && !keys.isBlank());
    }
}
