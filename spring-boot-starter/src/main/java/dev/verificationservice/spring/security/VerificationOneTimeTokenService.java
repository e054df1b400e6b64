package dev.verificationservice.spring.security;

import dev.verificationservice.codes.CodeService;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.VerificationResult;
import dev.verificationservice.codes.VerifyRequest;
import dev.verificationservice.validation.InvalidInputException;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import org.springframework.security.authentication.ott.DefaultOneTimeToken;
import org.springframework.security.authentication.ott.GenerateOneTimeTokenRequest;
import org.springframework.security.authentication.ott.OneTimeToken;
import org.springframework.security.authentication.ott.OneTimeTokenAuthenticationToken;
import org.springframework.security.authentication.ott.OneTimeTokenService;
import org.springframework.security.core.userdetails.UserDetailsService;

/**
 * Spring Security's one-time tokens on this store: {@code LOGIN} codes, a type of their own so that a login link
 * never replaces or spends the limits of the user's other codes (LINK format: 256 random bits, stored as HMAC digests, bound to
 * {@link LoginProperties#context()} so that no other link of the user logs in), used up by one atomic write
 * (of any number of concurrent or retried consumes, exactly one succeeds) with its {@code CODE_VERIFIED} entry.
 * {@link #generate} makes nothing: the link is made, counted against every send limit, stored, audited and sent by
 * {@link LoginLinkSender}, off the request thread. A used link logs in only an account that may still log in
 * ({@link AccountStatus}: the same check the sender makes), so disabling an account ends its pending links too.
 */
public final class VerificationOneTimeTokenService implements OneTimeTokenService {

    private final CodeService codes;
    private final LoginAccounts accounts;
    private final AccountStatus status;
    private final LoginProperties properties;
    private final Clock clock;
    private final Duration codeTtl;

    /**
     * @param users the application's users, when it has a {@code UserDetailsService}: a link of a username it does
     *              not know, or knows as disabled, locked or expired, logs no one in
     */
    public VerificationOneTimeTokenService(CodeService codes, LoginAccounts accounts, Optional<UserDetailsService> users,
                                           LoginProperties properties, Clock clock, Duration codeTtl) {
        this.codes = codes;
        this.accounts = accounts;
        this.status = new AccountStatus(users);
        this.properties = properties;
        this.clock = clock;
        this.codeTtl = codeTtl;
    }

    /**
     * A pending link, the same for every username, with the lifetime Spring's request asks for (five minutes
     * unless the application sets another), capped at the store's code lifetime ({@code VERIFICATION_CODE_TTL}).
     */
    @Override
    public OneTimeToken generate(GenerateOneTimeTokenRequest request) {
        Duration asked = request.getExpiresIn();
        Duration lifetime = asked == null || asked.compareTo(codeTtl) > 0 ? codeTtl : asked;
        return new PendingLoginLink(request.getUsername(), lifetime, clock.instant().plus(lifetime));
    }

    /**
     * The token's user once its link is used up by this call; null when it is unknown, used, expired or malformed, or
     * when its account may no longer log in (the link is used up all the same).
     */
    @Override
    public OneTimeToken consume(OneTimeTokenAuthenticationToken authenticationToken) {
        String token = authenticationToken.getTokenValue();
        if (token == null || token.isBlank()) {
            return null;
        }
        VerificationResult result;
        try {
            result = codes.verify(new VerifyRequest(token, Optional.empty(), Optional.of(CodeType.LOGIN),
                    Clients.current(), Optional.of(properties.context())));
        } catch (InvalidInputException malformed) {
            return null;
        }
        if (result instanceof VerificationResult.Valid valid) {
            return accounts.usernameOf(valid.userId()).filter(status::mayLogIn)
                    .map(username -> new DefaultOneTimeToken(token, username, clock.instant()))
                    .orElse(null);
        }
        return null;
    }
}
