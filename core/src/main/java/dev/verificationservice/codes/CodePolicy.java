package dev.verificationservice.codes;

import dev.verificationservice.ratelimit.RateLimitPolicy;
import java.time.Duration;
import java.util.Optional;
import java.util.Set;

/**
 * The rules {@link CodeService} applies, as the library's settings give them.
 *
 * @param codeTtl              how long a code is valid after it is sent
 * @param defaultNumericLength digits of a NUMERIC code when the request names no length
 * @param sendLimit            code requests per user and code type
 * @param verifyLimit          failed verifications per user and code type; never more than this many wrong
 *                             guesses are tested against one code over its whole life
 * @param targetLimit          sends to one delivery target, whatever the userId (SMS pumping, email bombing)
 * @param ipLimit              sends per client IP address, when the caller passes it
 * @param resendCooldown       how long after a code a new one for the same user and type is refused; zero: none
 * @param smsBudget            SMS sent per window across all users; empty: no budget
 * @param smsRegions           ISO 3166 regions SMS may go to; empty: all
 * @param smsNetworks          country calling codes of the international networks (satellite, global
 *                             services) SMS may go to; empty: none
 * @param mailboxes            which spellings of an email address {@code targetLimit} counts as one mailbox
 */
public record CodePolicy(Duration codeTtl, int defaultNumericLength, RateLimitPolicy sendLimit,
                         RateLimitPolicy verifyLimit, RateLimitPolicy targetLimit, RateLimitPolicy ipLimit,
                         Duration resendCooldown, Optional<RateLimitPolicy> smsBudget, Set<String> smsRegions,
                         Set<Integer> smsNetworks,
                         Mailboxes mailboxes) {

    public CodePolicy {
        smsRegions = Set.copyOf(smsRegions);
        smsNetworks = Set.copyOf(smsNetworks);
    }

    /** How many windows before the current one a live code may have been guessed in. */
    public int verifyLookBack() {
        long window = verifyLimit.window().toMillis();
        return (int) ((codeTtl.toMillis() + window - 1) / window);
    }
}
