package dev.verificationservice.client;

import java.util.Objects;
import java.util.Optional;

/**
 * What the calling application knows about the person's request, written into the audit log (and, for
 * {@code ipAddress}, counted by the per-IP send limit). All parts are optional.
 *
 * @param ipAddress the person's IP address (IPv4 or IPv6 literal)
 * @param userAgent the person's user agent
 * @param deviceId  the person's device, when known (codes only)
 */
public record ClientContext(Optional<String> ipAddress, Optional<String> userAgent, Optional<String> deviceId) {

    private static final ClientContext NONE = new ClientContext(Optional.empty(), Optional.empty(), Optional.empty());

    public ClientContext {
        Objects.requireNonNull(ipAddress, "ipAddress");
        Objects.requireNonNull(userAgent, "userAgent");
        Objects.requireNonNull(deviceId, "deviceId");
    }

    /** Nothing known. */
    public static ClientContext none() {
        return NONE;
    }

    /** The IP address and user agent, either of them {@code null} when unknown. */
    public static ClientContext of(String ipAddress, String userAgent) {
        return of(ipAddress, userAgent, null);
    }

    /** The IP address, user agent and device, any of them {@code null} when unknown. */
    public static ClientContext of(String ipAddress, String userAgent, String deviceId) {
        return new ClientContext(Optional.ofNullable(ipAddress), Optional.ofNullable(userAgent),
                Optional.ofNullable(deviceId));
    }
}
