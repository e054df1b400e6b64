package dev.verificationservice.events;

import dev.verificationservice.validation.EmbeddedIpv4;
import dev.verificationservice.validation.InvalidInputException;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Where webhooks may go (the SSRF rules): {@code https}, or {@code http} to {@code localhost} for development, on
 * a port from 1 to 65535; no address outside the public internet ({@link #isInternal}) unless the operator allows
 * private addresses. Checked on the URL at registration and again on the resolved addresses and the port before
 * every delivery, so a name that later resolves inside the network is refused then too.
 *
 * <p>The check and the connection resolve the name separately, so a DNS answer that changes between the two (DNS
 * rebinding within the resolver's cache time) is not caught; an egress proxy or firewall closes that gap.
 */
public final class EndpointUrls {

    public static final int MAX_URL_LENGTH = 2048;
    private static final String LOCALHOST = "localhost";

    private final boolean allowPrivateAddresses;
    private final AddressResolver resolver;

    public EndpointUrls(boolean allowPrivateAddresses, AddressResolver resolver) {
        this.allowPrivateAddresses = allowPrivateAddresses;
        this.resolver = resolver;
    }

    /** The URL as registered, or a refusal naming {@code url} that says which URLs are accepted. */
    public URI checkRegistration(String url) {
        if (url == null || url.isBlank() || url.length() > MAX_URL_LENGTH) {
            throw refused("must be an https URL of at most " + MAX_URL_LENGTH + " characters");
        }
        URI uri;
        try {
            uri = new URI(url);
        } catch (URISyntaxException e) {
            throw refused("is not a URL: " + e.getReason());
        }
        String scheme = Optional.ofNullable(uri.getScheme()).map(s -> s.toLowerCase(Locale.ROOT)).orElse("");
        String host = Optional.ofNullable(uri.getHost()).map(h -> h.toLowerCase(Locale.ROOT)).orElse("");
        if (host.isEmpty() || uri.getRawUserInfo() != null || uri.getRawFragment() != null) {
            throw refused("must be an absolute URL with a host, without user info or fragment");
        }
        if (!portInRange(uri)) {
            throw refused(portMessage(uri));
        }
        boolean localhost = host.equals(LOCALHOST);
        if (!scheme.equals("https") && !(scheme.equals("http") && localhost)) {
            throw refused("must use https (http is accepted for localhost only, for development)");
        }
        if (!localhost) {
            literalAddress(host).filter(this::isForbidden).ifPresent(address -> {
                throw refused(forbiddenMessage(address));
            });
        }
        return uri;
    }

    /**
     * Empty when a delivery to {@code uri} may go ahead; otherwise why not (the name does not resolve, or resolves
     * to a forbidden address). Every address the name resolves to must be allowed.
     */
    public Optional<String> checkDelivery(URI uri) {
        if (!portInRange(uri)) {
            return Optional.of(portMessage(uri));
        }
        String host = uri.getHost().toLowerCase(Locale.ROOT);
        if (host.equals(LOCALHOST)) {
            return Optional.empty();
        }
        List<InetAddress> addresses;
        try {
            addresses = resolver.resolve(stripBrackets(host));
        } catch (UnknownHostException e) {
            return Optional.of("the host " + host + " does not resolve");
        }
        for (InetAddress address : addresses) {
            if (isForbidden(address)) {
                return Optional.of("the host " + host + " resolves to " + address.getHostAddress() + ": "
                        + forbiddenMessage(address));
            }
        }
        return addresses.isEmpty() ? Optional.of("the host " + host + " resolves to no address") : Optional.empty();
    }

    private boolean isForbidden(InetAddress address) {
        return !allowPrivateAddresses && isInternal(address);
    }

    /** No port (the scheme's default) or one a connection can be made to. */
    private static boolean portInRange(URI uri) {
        return uri.getPort() == -1 || (uri.getPort() >= 1 && uri.getPort() <= 65535);
    }

    private static String portMessage(URI uri) {
        return "has the port " + uri.getPort() + "; a port is from 1 to 65535";
    }

    /**
     * Not an address of the public internet: loopback, unspecified, private, link-local, multicast, and in IPv4
     * also {@code 0.0.0.0/8}, CGNAT {@code 100.64.0.0/10}, the IETF's {@code 192.0.0.0/24}, benchmarking
     * {@code 198.18.0.0/15} and the reserved {@code 240.0.0.0/4} with the broadcast address; in IPv6 also
     * unique-local {@code fc00::/7}, the local-use NAT64 prefix {@code 64:ff9b:1::/48} (RFC 8215), and every form
     * that carries an IPv4 address ({@link EmbeddedIpv4}) when that IPv4 address is one of these. Otherwise
     * {@code [64:ff9b::7f00:1]} or {@code [2002:7f00:1::]} would reach 127.0.0.1 through a translator or relay.
     */
    static boolean isInternal(InetAddress address) {
        if (address.isLoopbackAddress() || address.isSiteLocalAddress() || address.isLinkLocalAddress()
                || address.isAnyLocalAddress() || address.isMulticastAddress()) {
            return true;
        }
        byte[] raw = address.getAddress();
        if (raw.length == 16) {
            boolean uniqueLocal = (raw[0] & 0xFE) == 0xFC;
            boolean localUseNat64 = raw[0] == 0 && raw[1] == 0x64 && raw[2] == (byte) 0xff && raw[3] == (byte) 0x9b
                    && raw[4] == 0 && raw[5] == 1;
            return uniqueLocal || localUseNat64 || EmbeddedIpv4.in(raw).map(EndpointUrls::isInternalIpv4).orElse(false);
        }
        return isInternalIpv4(raw);
    }

    private static boolean isInternalIpv4(byte[] v4) {
        int first = v4[0] & 0xFF;
        int second = v4[1] & 0xFF;
        int third = v4[2] & 0xFF;
        return first == 0 || first == 10 || first == 127 || first >= 224
                || (first == 100 && second >= 64 && second < 128)
                || (first == 169 && second == 254)
                || (first == 172 && second >= 16 && second < 32)
                || (first == 192 && second == 168)
                || (first == 192 && second == 0 && third == 0)
                || (first == 198 && (second == 18 || second == 19));
    }

    /** The host as an address when it is written as one (no lookup happens for names here). */
    private static Optional<InetAddress> literalAddress(String host) {
        String bare = stripBrackets(host);
        boolean ipv4 = bare.matches("[0-9.]+");
        boolean ipv6 = bare.contains(":");
        if (!ipv4 && !ipv6) {
            return Optional.empty();
        }
        try {
            return Optional.of(InetAddress.getByName(bare));
        } catch (UnknownHostException e) {
            throw refused("holds a malformed address " + host);
        }
    }

    private static String stripBrackets(String host) {
        return host.startsWith("[") && host.endsWith("]") ? host.substring(1, host.length() - 1) : host;
    }

    private static String forbiddenMessage(InetAddress address) {
        return address.getHostAddress() + " is not a public address (loopback, private, link-local, reserved, or an "
                + "IPv6 form of one); webhooks go to public https endpoints (set VERIFICATION_WEBHOOKS_ALLOW_PRIVATE_ADDRESSES=true to allow internal ones)";
    }

    private static InvalidInputException refused(String message) {
        return new InvalidInputException("url", message);
    }
}
