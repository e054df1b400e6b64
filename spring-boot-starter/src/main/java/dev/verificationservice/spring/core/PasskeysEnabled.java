package dev.verificationservice.spring.core;

import dev.verificationservice.spring.VerificationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Condition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

/**
 * Passkeys are on ({@code VerificationSettings.passkeys} present), by the same rule that builds the settings: for a
 * bean that exists only with passkeys, such as the starter's Spring Security passkeys support.
 */
public final class PasskeysEnabled implements Condition {

    @Override
    public boolean matches(ConditionContext context, AnnotatedTypeMetadata metadata) {
        try {
            VerificationProperties properties = Binder.get(context.getEnvironment())
                    .bindOrCreate("verification", VerificationProperties.class);
            return PasskeySettings.policy(properties).isPresent();
        } catch (RuntimeException wrong) {
            // A setting that does not bind, or a wrong passkey setting, is reported by the start-up check of the
            // Verification bean, naming the setting; failing here would hide that behind a condition's error.
            return true;
        }
    }
}
