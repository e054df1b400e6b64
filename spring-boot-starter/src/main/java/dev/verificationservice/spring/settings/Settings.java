package dev.verificationservice.spring.settings;

import dev.verificationservice.spring.StartupException;
import dev.verificationservice.spring.StartupProblems;
import dev.verificationservice.spring.VerificationProperties;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.stream.Collectors;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.context.properties.bind.AbstractBindHandler;
import org.springframework.boot.context.properties.bind.BindContext;
import org.springframework.boot.context.properties.bind.Bindable;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.boot.context.properties.source.ConfigurationPropertyName;

/**
 * What the {@link SettingsCheck}'s rules see: the settings bound as the beans will bind them, which beans of the
 * verification the context is going to build, and the problems found so far.
 */
public final class Settings {

    private final Binder binder;
    private final ConfigurableListableBeanFactory beans;
    private final StartupProblems problems;
    private final List<ConfigurationPropertyName> failed = new ArrayList<>();
    private VerificationProperties verification;

    Settings(Binder binder, ConfigurableListableBeanFactory beans, StartupProblems problems) {
        this.binder = binder;
        this.beans = beans;
        this.problems = problems;
    }

    public StartupProblems problems() {
        return problems;
    }

    /** {@code verification.*} as {@link VerificationProperties}, bound once. */
    public VerificationProperties verification() {
        if (verification == null) {
            verification = bind("verification", VerificationProperties.class);
        }
        return verification;
    }

    /**
     * The settings under {@code prefix} as {@code type}. A value that does not convert, or that a record's own
     * constructor refuses, is a problem, and its default stands in for it, so that the rules on the other settings
     * still run.
     */
    public <T> T bind(String prefix, Class<T> type) {
        return binder.bindOrCreate(prefix, Bindable.of(type), new Collecting());
    }

    /**
     * True when the context defines the bean {@code name}: a rule applies only when the bean it guards is going
     * to be built (an application that declares its own {@code CodeSender} has no delivery settings to check).
     */
    public boolean builds(String name) {
        return beans.containsBeanDefinition(name);
    }

    /** The environment variable of a property: {@code verification.limits.send} is {@code VERIFICATION_LIMITS_SEND}. */
    static String variableOf(ConfigurationPropertyName name) {
        StringBuilder variable = new StringBuilder();
        for (int i = 0; i < name.getNumberOfElements(); i++) {
            if (name.isNumericIndex(i)) {
                continue;
            }
            if (!variable.isEmpty()) {
                variable.append('_');
            }
            variable.append(name.getElement(i, ConfigurationPropertyName.Form.DASHED).replace('-', '_')
                    .toUpperCase(Locale.ROOT));
        }
        return variable.toString();
    }

    /** What a valid value of {@code type} looks like, for the message. */
    static String validValues(Class<?> type) {
        if (type == java.time.Duration.class) {
            return "an ISO-8601 duration, for example PT15M (15 minutes), PT1H or P30D, or 15m, 1h, 30d";
        }
        if (type == int.class || type == Integer.class || type == long.class || type == Long.class) {
            return "a whole number, for example 5";
        }
        if (type == boolean.class || type == Boolean.class) {
            return "true or false";
        }
        if (type.isEnum()) {
            return "one of " + Arrays.stream(type.getEnumConstants())
                    .map(constant -> ((Enum<?>) constant).name().toLowerCase(Locale.ROOT).replace('_', '-'))
                    .collect(Collectors.joining(", "));
        }
        return "a " + type.getSimpleName();
    }

    /** Turns every failure to bind into a problem and binds the default instead. */
    private final class Collecting extends AbstractBindHandler {

        @Override
        public Object onFailure(ConfigurationPropertyName name, Bindable<?> target, BindContext context, Exception error) {
            // A record whose part failed and took its default may fail in turn: that part is the problem to name.
            boolean partFailed = failed.stream().anyMatch(name::isAncestorOf);
            failed.add(name);
            if (!partFailed) {
                problems.add(problemOf(name, target, context, error));
            }
            return null;
        }
    }

    private static StartupException problemOf(ConfigurationPropertyName name, Bindable<?> target, BindContext context,
                                              Exception error) {
        for (Throwable cause = error; cause != null; cause = cause.getCause()) {
            if (cause instanceof StartupException refused) {
                return refused; // a record's own rule, which names its setting and what to set
            }
        }
        String variable = variableOf(name);
        ConfigurationProperty property = context.getConfigurationProperty();
        String value = property == null || property.getValue() == null ? "" : " '" + shown(name, property.getValue()) + "'";
        Class<?> type = target.getType().resolve(Object.class);
        return new StartupException(variable + value + " is not " + validValues(type) + ".",
                "Set " + variable + " to " + validValues(type) + ".", error);
    }

    /** The value as written, unless the setting holds a secret. */
    private static String shown(ConfigurationPropertyName name, Object value) {
        String setting = name.toString();
        boolean secret = setting.contains("key") || setting.contains("password") || setting.contains("secret");
        return secret ? "<redacted>" : String.valueOf(value);
    }
}
