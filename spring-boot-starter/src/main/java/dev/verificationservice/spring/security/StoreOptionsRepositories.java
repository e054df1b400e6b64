package dev.verificationservice.spring.security;

import dev.verificationservice.passkeys.PasskeyChallenge;
import dev.verificationservice.passkeys.PasskeyPolicy;
import dev.verificationservice.passkeys.PasskeyRepository;
import jakarta.servlet.http.Cookie;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.stream.Stream;
import org.springframework.http.ResponseCookie;
import org.springframework.security.web.webauthn.api.Bytes;
import org.springframework.security.web.webauthn.api.PublicKeyCredentialCreationOptions;
import org.springframework.security.web.webauthn.api.PublicKeyCredentialRequestOptions;
import org.springframework.security.web.webauthn.authentication.PublicKeyCredentialRequestOptionsRepository;
import org.springframework.security.web.webauthn.registration.PublicKeyCredentialCreationOptionsRepository;

/**
 * Spring Security's creation- and request-options repositories on the store instead of the HTTP session: the
 * challenge is the store's item ({@link VerificationPasskeyOperations} stored it with the options), and the browser
 * holds only its name, in an HttpOnly cookie, so the options and the answer may reach different instances. A load
 * rebuilds the options from the item while it is open; it does not take the challenge, because the verification's
 * one write does, on the condition that it is still open: of any number of answers to one challenge one wins.
 */
final class StoreOptionsRepositories {

    static final String REGISTRATION_COOKIE = "VERIFICATION_PASSKEY_REGISTRATION";
    static final String SIGN_IN_COOKIE = "VERIFICATION_PASSKEY_SIGN_IN";

    private final PasskeyRepository store;
    private final PasskeyPolicy policy;
    private final PasskeyUsers users;
    private final Clock clock;
    private final boolean secureCookie;

    StoreOptionsRepositories(PasskeyRepository store, PasskeyPolicy policy, PasskeyUsers users, Clock clock,
                             boolean secureCookie) {
        this.store = store;
        this.policy = policy;
        this.users = users;
        this.clock = clock;
        this.secureCookie = secureCookie;
    }

    PublicKeyCredentialCreationOptionsRepository creation() {
        return new PublicKeyCredentialCreationOptionsRepository() {
            @Override
            public void save(HttpServletRequest request, HttpServletResponse response,
                             PublicKeyCredentialCreationOptions options) {
                remember(response, REGISTRATION_COOKIE, options == null ? null : options.getChallenge());
            }

            /** The open registration challenge of this browser, if it is the signed-in user's. */
            @Override
            public PublicKeyCredentialCreationOptions load(HttpServletRequest request) {
                Instant now = clock.instant();
                return open(request, REGISTRATION_COOKIE, PasskeyChallenge.Purpose.REGISTRATION, now)
                        .filter(challenge -> challenge.userId().isPresent() && challenge.userHandle().isPresent()
                                && challenge.userId().equals(users.signedIn()))
                        .flatMap(challenge -> users.username(challenge.userId().get()).map(username ->
                                SpringPasskeys.creationOptions(policy, challenge.challenge(),
                                        SpringPasskeys.user(challenge.userHandle().get(), username), List.of(),
                                        SpringPasskeys.timeLeft(challenge, now), userVerification())))
                        .orElse(null);
            }
        };
    }

    PublicKeyCredentialRequestOptionsRepository request() {
        return new PublicKeyCredentialRequestOptionsRepository() {
            @Override
            public void save(HttpServletRequest request, HttpServletResponse response,
                             PublicKeyCredentialRequestOptions options) {
                remember(response, SIGN_IN_COOKIE, options == null ? null : options.getChallenge());
            }

            /** The open sign-in challenge of this browser (the verification checks whom it is bound to). */
            @Override
            public PublicKeyCredentialRequestOptions load(HttpServletRequest request) {
                Instant now = clock.instant();
                return open(request, SIGN_IN_COOKIE, PasskeyChallenge.Purpose.SIGN_IN, now)
                        .map(challenge -> SpringPasskeys.requestOptions(policy, challenge.challenge(), List.of(),
                                SpringPasskeys.timeLeft(challenge, now), userVerification()))
                        .orElse(null);
            }
        };
    }

    private Optional<PasskeyChallenge> open(HttpServletRequest request, String cookie,
                                            PasskeyChallenge.Purpose purpose, Instant now) {
        Optional<String> name = Stream.ofNullable(request.getCookies()).flatMap(Stream::of)
                .filter(found -> found.getName().equals(cookie)).map(Cookie::getValue)
                .filter(value -> value.matches("[A-Za-z0-9_-]{43}")).findFirst();
        return name.flatMap(store::findChallenge)
                .filter(challenge -> challenge.purpose() == purpose && challenge.isOpenAt(now));
    }

    private void remember(HttpServletResponse response, String cookie, Bytes challenge) {
        ResponseCookie.ResponseCookieBuilder builder = ResponseCookie.from(cookie,
                        challenge == null ? "" : challenge.toBase64UrlString())
                .httpOnly(true).secure(secureCookie).sameSite("Strict").path("/")
                .maxAge(challenge == null ? Duration.ZERO : policy.challengeLifetime());
        response.addHeader("Set-Cookie", builder.build().toString());
    }

    private String userVerification() {
        return policy.userVerificationRequired() ? "required" : "preferred";
    }
}
