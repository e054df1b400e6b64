package dev.verificationservice.devices;

import java.time.Instant;
import java.util.Optional;

/**
 * One use of a remembered device's secret, written in one atomic step on the condition that the token is
 * still there and unexpired ({@code ttl > now}), was created after {@code notCreatedBefore} (the maximum life
 * of a device), and was created after the user's last revoke-all. Then its expiry slides to
 * {@code newExpiresAt}; with {@code rekeyTo} the token also moves to that tokenId (the digest of the same secret
 * under the current key), so that old keys can be retired.
 *
 * @param token     the token as it was read
 * @param attemptId random id of this use (DynamoDB's ClientRequestToken: a retried transaction is applied once)
 */
public record DeviceUse(DeviceToken token, Optional<String> rekeyTo, Instant now, Instant newExpiresAt,
                        Instant notCreatedBefore, String attemptId) {
}
