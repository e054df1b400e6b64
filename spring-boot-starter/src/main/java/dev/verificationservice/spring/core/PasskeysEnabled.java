package dev.verificationservice.spring.core;

import dev.verificationservice.spring.StartupException;
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
        VerificationProperties properties = Binder.get(context.getEnvironment())
                .bindOrCreate("verification", VerificationProperties.class);
        try {
            return PasskeySettings.policy(properties).isPresent();
        } catch (StartupException wrong) {
            // A wrong passkey setting is reported by the Verification bean's start-up check, naming the setting.
            return true;
        }
    }
}
