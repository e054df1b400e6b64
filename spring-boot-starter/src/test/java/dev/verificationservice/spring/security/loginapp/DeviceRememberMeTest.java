package dev.verificationservice.spring.security.loginapp;

import static org.assertj.core.api.Assertions.assertThat;
import static org.springframework.security.test.web.servlet.request.SecurityMockMvcRequestPostProcessors.csrf;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.get;
import static org.springframework.test.web.servlet.request.MockMvcRequestBuilders.post;

import dev.verificationservice.Verification;
import dev.verificationservice.spring.security.DeviceRememberMeServices;
import dev.verificationservice.testsupport.time.MutableClock;
import jakarta.servlet.http.Cookie;
import java.io.IOException;
import java.nio.file.Files;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.boot.webmvc.test.autoconfigure.AutoConfigureMockMvc;
import org.springframework.context.annotation.Bean;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;
import org.springframework.test.web.servlet.MockMvc;

/**
 * Spring Security's remember-me on remembered devices, through Spring's filters: each request here carries no
 * session, only the cookie, as a browser does after a restart.
 */
@SpringBootTest(classes = {LoginHostApplication.class, DeviceRememberMeTest.Parts.class})
@AutoConfigureMockMvc
class DeviceRememberMeTest {

    static final MutableClock CLOCK = new MutableClock(Instant.parse("2026-03-01T09:00:00Z"));

    @DynamicPropertySource
    static void settings(DynamicPropertyRegistry registry) throws IOException {
        registry.add("verification.data-dir", Files.createTempDirectory("verification-remember-host")::toString);
    }

    @TestConfiguration(proxyBeanMethods = false)
    static class Parts {
        @Bean
        Clock clock() {
            return CLOCK;
        }
    }

    @Autowired
    MockMvc mvc;

    @Autowired
    DeviceRememberMeServices rememberMe;

    @Autowired
    Verification verification;

    @Test
    void aRememberedBrowserLogsInWithoutASessionAndEachUseSlidesItsThirtyDays() throws Exception {
        Cookie cookie = logIn("alice");
        assertThat(cookie.getMaxAge()).isEqualTo((int) Duration.ofDays(30).toSeconds());
        assertThat(cookie.isHttpOnly()).isTrue();
        assertThat(cookie.getSecure()).as("Secure by default, though this request came over plain HTTP").isTrue();

        CLOCK.advance(Duration.ofDays(20));
        MockHttpServletResponse first = mvc.perform(get("/").cookie(cookie)).andReturn().getResponse();
        assertThat(first.getContentAsString()).isEqualTo("alice");
        assertThat(first.getCookie("remember-me").getMaxAge()).as("slid: 30 days from this use")
                .isEqualTo((int) Duration.ofDays(30).toSeconds());

        CLOCK.advance(Duration.ofDays(20));
        assertThat(mvc.perform(get("/").cookie(cookie)).andReturn().getResponse().getContentAsString())
                .as("40 days after the login, 20 after the last use").isEqualTo("alice");

        CLOCK.advance(Duration.ofDays(31));
        MockHttpServletResponse unused = mvc.perform(get("/").cookie(cookie)).andReturn().getResponse();
        assertThat(unused.getRedirectedUrl()).as("31 days without a use").endsWith("/login");
        assertThat(unused.getCookie("remember-me").getMaxAge()).as("the dead cookie is dropped").isZero();
    }

    @Test
    void revokeAllLogsOutEveryRememberedBrowserOfTheUserAndNoOneElse() throws Exception {
        Cookie laptop = logIn("bob");
        Cookie phone = logIn("bob");
        Cookie other = logIn("carol");
        CLOCK.advance(Duration.ofSeconds(1));

        assertThat(rememberMe.revokeAll("bob", new MockHttpServletRequest())).isEqualTo(2);

        CLOCK.advance(Duration.ofSeconds(1));
        assertThat(mvc.perform(get("/").cookie(laptop)).andReturn().getResponse().getRedirectedUrl()).endsWith("/login");
        assertThat(mvc.perform(get("/").cookie(phone)).andReturn().getResponse().getRedirectedUrl()).endsWith("/login");
        assertThat(mvc.perform(get("/").cookie(other)).andReturn().getResponse().getContentAsString()).isEqualTo("carol");
    }

    @Test
    void loggingOutForgetsTheBrowserForGood() throws Exception {
        Cookie cookie = logIn("carol");
        mvc.perform(post("/logout").cookie(cookie).with(csrf())).andReturn();

        assertThat(mvc.perform(get("/").cookie(cookie)).andReturn().getResponse().getRedirectedUrl())
                .as("the stored device is revoked, not only the cookie dropped").endsWith("/login");
    }

    @Test
    void theCookieHoldsTheDeviceIdAndSecretAndTheStoreOnlyItsDigest() throws Exception {
        Cookie cookie = logIn("alice");
        String[] parts = new String(java.util.Base64.getDecoder().decode(cookie.getValue())).split(":");
        assertThat(parts).hasSize(2);
        assertThat(parts[0]).startsWith("browser-");
        assertThat(verification.devices().list("user-alice")).filteredOn(device -> device.deviceId().equals(parts[0]))
                .singleElement().satisfies(device -> assertThat(device.tokenId()).isNotEqualTo(parts[1]));
    }

    private Cookie logIn(String username) throws Exception {
        MockHttpServletResponse response = mvc.perform(post("/login").param("username", username)
                .param("password", "unused-" + username).param("remember-me", "on").with(csrf()))
                .andReturn().getResponse();
        assertThat(response.getRedirectedUrl()).isEqualTo("/");
        Cookie cookie = response.getCookie("remember-me");
        assertThat(cookie).as("remembered").isNotNull();
        return cookie;
    }
}
