package dev.verificationservice.server;

import static org.assertj.core.api.Assertions.assertThat;

import io.micrometer.core.instrument.MeterRegistry;
import jakarta.validation.constraints.NotBlank;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.validation.autoconfigure.ValidatorAdapter;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.validation.MapBindingResult;
import org.springframework.validation.SmartValidator;
import org.springframework.validation.Validator;

/**
 * What a start does not build before the first readiness answer, because nothing on the way to it needs it
 * (docs/deployment.md, "Starting fast"): each is built on its first use instead, and still works then.
 */
class StartupWorkTest {

    @TempDir
    static Path dataDir;

    private static ConfigurableApplicationContext context;

    @BeforeAll
    static void start() {
        context = new SpringApplicationBuilder(VerificationServerApplication.class)
                .run("--server.port=0", "--server.address=127.0.0.1", "--verification.data-dir=" + dataDir);
    }

    @AfterAll
    static void stop() {
        context.close();
    }

    /** Nothing in the API is validated with Bean Validation, so Hibernate Validator is not bootstrapped at start. */
    @Test
    void noBeanValidationIsBootstrappedAtStart() {
        assertThat(context.getBeanNamesForType(jakarta.validation.ValidatorFactory.class)).isEmpty();
        assertThat(context.getBeanNamesForType(jakarta.validation.Validator.class)).isEmpty();
        Validator mvc = context.getBean("mvcValidator", Validator.class);
        Validator target = mvc instanceof ValidatorAdapter adapter ? adapter.getTarget() : mvc;
        assertThat(target).isNotInstanceOf(jakarta.validation.Validator.class);
    }

    /**
     * No Tomcat session meters: the service keeps no HTTP session, so they would stay 0, and binding them starts the
     * JVM's platform MBean server during the start.
     */
    @Test
    void noTomcatSessionMeters() {
        MeterRegistry registry = context.getBean(MeterRegistry.class);
        assertThat(registry.find("tomcat.sessions.active.current").meters()).isEmpty();
        assertThat(registry.find("jvm.memory.used").meters()).isNotEmpty();
    }

    record Named(@NotBlank String name) {
    }

    /** A {@code @Valid} argument added one day still gets Bean Validation, built on its first use. */
    @Test
    void theMvcValidatorStillValidatesOnFirstUse() {
        SmartValidator mvc = context.getBean("mvcValidator", SmartValidator.class);
        assertThat(mvc.supports(Named.class)).isTrue();
        MapBindingResult errors = new MapBindingResult(Map.of(), "named");
        mvc.validate(new Named(" "), errors);
        assertThat(errors.getFieldErrors()).singleElement()
                .satisfies(error -> assertThat(error.getField()).isEqualTo("name"));
        MapBindingResult none = new MapBindingResult(Map.of(), "named");
        mvc.validate(new Named("Ada"), none);
        assertThat(none.hasErrors()).isFalse();
    }
}
