package dev.verificationservice.server.config;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.function.SingletonSupplier;
import org.springframework.validation.Errors;
import org.springframework.validation.SmartValidator;
import org.springframework.validation.Validator;
import org.springframework.validation.beanvalidation.OptionalValidatorFactoryBean;
import org.springframework.web.servlet.config.annotation.WebMvcConfigurer;

/**
 * Spring MVC's validator, built on the first validation instead of at start. No request body or parameter of the
 * API is validated with Bean Validation (the core checks every input), yet Spring MVC bootstraps Hibernate
 * Validator (springdoc brings it) at every start: some 440 classes and their set-up before the first readiness
 * answer, for nothing. Spring Boot's own validator ({@code ValidationAutoConfiguration}) is excluded in
 * application.properties for the same reason. A {@code @Valid} body added later still gets the real validator, on
 * its first use; constraints put directly on a handler's parameters would not (Spring MVC validates those only
 * with a Bean Validation validator at start), so put them on a body type instead.
 */
@Configuration(proxyBeanMethods = false)
public class LazyValidation {

    @Bean
    public WebMvcConfigurer lazyMvcValidator() {
        LazyValidator validator = new LazyValidator();
        return new WebMvcConfigurer() {
            @Override
            public Validator getValidator() {
                return validator;
            }
        };
    }

    /** Supports every class, as the Bean Validation adapter does; builds that adapter when first asked to validate. */
    static final class LazyValidator implements SmartValidator {

        private final SingletonSupplier<SmartValidator> delegate = SingletonSupplier.of(() -> {
            OptionalValidatorFactoryBean validator = new OptionalValidatorFactoryBean();
            validator.afterPropertiesSet();
            return validator;
        });

        @Override
        public boolean supports(Class<?> type) {
            return true;
        }

        @Override
        public void validate(Object target, Errors errors) {
            delegate.obtain().validate(target, errors);
        }

        @Override
        public void validate(Object target, Errors errors, Object... validationHints) {
            delegate.obtain().validate(target, errors, validationHints);
        }
    }
}
