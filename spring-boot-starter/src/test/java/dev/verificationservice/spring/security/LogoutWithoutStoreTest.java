package dev.verificationservice.spring.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.Verification;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.codes.DevelopmentOutbox;
import dev.verificationservice.devices.DeviceRegistration;
import dev.verificationservice.devices.RegisteredDevice;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.store.sqlite.SqliteVerificationStore;
import jakarta.servlet.http.Cookie;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.security.core.userdetails.User;
import org.springframework.security.provisioning.InMemoryUserDetailsManager;

/**
 * Logging out while the store cannot answer still logs out: Spring runs the handler that ends the session after the
 * remember-me handler, so a store failure there must not escape (it left the person signed in).
 */
class LogoutWithoutStoreTest {

    @TempDir
    Path dataDirectory;

    @Test
    void aStoreThatCannotAnswerDoesNotStopTheLogoutAndTheCookieIsDropped() {
        Clock clock = Clock.systemUTC();
        SqliteVerificationStore store = SqliteVerificationStore.open(dataDirectory, clock);
        Verification verification = Verification.builder()
                .store(store)
                .keys(SecretKeyRing.fromBase64(List.of(SecretKeyRing.generateBase64Key(new SecureRandom()))))
                .sender(new DevelopmentOutbox(clock))
                .clock(clock)
                .build();
        RegisteredDevice device = verification.devices().register(new DeviceRegistration("ann", "browser-1",
                "BROWSER", Optional.empty(), Optional.empty(), ClientContext.none()));
        LoginAccounts accounts = new LoginAccounts() {
            @Override
            public Optional<LoginAccount> findByUsername(String username) {
                return Optional.of(new LoginAccount("ann", "ann@example.com"));
            }

            @Override
            public Optional<String> usernameOf(String userId) {
                return Optional.of("ann");
            }
        };
        DeviceRememberMeServices services = new DeviceRememberMeServices(verification.devices(), accounts,
                new InMemoryUserDetailsManager(User.withUsername("ann").password("{noop}x").build()),
                Duration.ofDays(30), clock);
        store.close();

        MockHttpServletRequest request = new MockHttpServletRequest("POST", "/logout");
        String value = Base64.getEncoder().encodeToString(
                (device.deviceId() + ":" + device.secret()).getBytes(StandardCharsets.UTF_8));
        request.setCookies(new Cookie("remember-me", value));
        MockHttpServletResponse response = new MockHttpServletResponse();

        services.logout(request, response, null);

        Cookie dropped = response.getCookie("remember-me");
        assertThat(dropped).isNotNull();
        assertThat(dropped.getMaxAge()).isZero();
    }
}
