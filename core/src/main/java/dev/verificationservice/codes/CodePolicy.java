package dev.verificationservice.codes;

import dev.verificationservice.ratelimit.RateLimitPolicy;
import java.time.Duration;

/**
 * The rules {@link CodeService} applies, as the library's settings give them.
 *
 * @param codeTtl              how long a code is valid after it is sent
 * @param defaultNumericLength digits of a NUMERIC code when the request names no length
 * @param sendLimit            code requests per user and code type
 * @param verifyLimit          failed verifications per user and code type
 */
public record CodePolicy(Duration codeTtl, int defaultNumericLength, RateLimitPolicy sendLimit,
                         RateLimitPolicy verifyLimit) {
}
