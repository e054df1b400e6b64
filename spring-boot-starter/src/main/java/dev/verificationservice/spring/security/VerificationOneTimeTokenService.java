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

/**
 * Spring Security's one-time tokens on this store: LINK codes (256 random bits, stored as HMAC digests, bound to
 * {@link LoginProperties#context()} so that no other link of the user logs in), used up by one atomic write
 * (of any number of concurrent or retried consumes, exactly one succeeds) with its {@code CODE_VERIFIED} entry.
 * {@link #generate} makes nothing: the link is made, counted against every send limit, stored, audited and sent by
 * {@link LoginLinkSender}, off the request thread.
 */
public final class VerificationOneTimeTokenService implements OneTimeTokenService {

    private final CodeService codes;
    private final LoginAccounts accounts;
    private final LoginProperties properties;
    private final Clock clock;
    private final Duration codeTtl;

    public VerificationOneTimeTokenService(CodeService codes, LoginAccounts accounts, LoginProperties properties,
                                           Clock clock, Duration codeTtl) {
        this.codes = codes;
        this.accounts = accounts;
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

    /** The token's user once its link is used up by this call; null when it is unknown, used, expired or malformed. */
    @Override
    public OneTimeToken consume(OneTimeTokenAuthenticationToken authenticationToken) {
        String token = authenticationToken.getTokenValue();
        if (token == null || token.isBlank()) {
            return null;
        }
        VerificationResult result;
        try {
            result = codes.verify(new VerifyRequest(token, Optional.empty(), Optional.of(CodeType.EMAIL_VERIFICATION),
                    Clients.current(), Optional.of(properties.context())));
        } catch (InvalidInputException malformed) {
            return null;
        }
        if (result instanceof VerificationResult.Valid valid) {
            return accounts.usernameOf(valid.userId())
                    .map(username -> new DefaultOneTimeToken(token, username, clock.instant()))
                    .orElse(null);
        }
        return null;
    }
}
