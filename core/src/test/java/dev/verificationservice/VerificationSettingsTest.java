package dev.verificationservice;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.verificationservice.ratelimit.RateLimitPolicy;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;

class VerificationSettingsTest {

    @Test
    void aBuilderStartsFromTheProductsDefaults() {
        VerificationSettings defaults = VerificationSettings.builder().build();

        assertThat(defaults).isEqualTo(VerificationSettings.defaults());
        assertThat(defaults.codeTtl()).isEqualTo(Duration.ofMinutes(15));
        assertThat(defaults.deviceTtl()).isEqualTo(Duration.ofDays(30));
        assertThat(defaults.auditRetention()).contains(Duration.ofDays(90));
        assertThat(defaults.sendLimit()).isEqualTo(new RateLimitPolicy(5, Duration.ofMinutes(15)));
        assertThat(defaults.smsBudget()).isEmpty();
    }

    @Test
    void toBuilderKeepsEveryValueItIsNotTold() {
        VerificationSettings changed = VerificationSettings.builder()
                .codeTtl(Duration.ofMinutes(5))
                .smsBudget(Optional.of(new RateLimitPolicy(100, Duration.ofHours(1))))
                .smsRegions(Set.of("DE"))
                .build();

        VerificationSettings copy = changed.toBuilder().resendCooldown(Duration.ZERO).build();

        assertThat(copy.codeTtl()).isEqualTo(Duration.ofMinutes(5));
        assertThat(copy.smsBudget()).isEqualTo(changed.smsBudget());
        assertThat(copy.smsRegions()).isEqualTo(Set.of("DE"));
        assertThat(copy.resendCooldown()).isZero();
        assertThat(copy.withResendCooldown(changed.resendCooldown())).isEqualTo(changed);
    }

    @Test
    void buildChecksTheValuesAsTheConstructorDoes() {
        assertThatThrownBy(() -> VerificationSettings.builder().codeTtl(Duration.ofMillis(500)).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("codeTtl must be at least one second");
        assertThatThrownBy(() -> VerificationSettings.builder().defaultNumericLength(4).build())
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("defaultNumericLength");
    }
}
