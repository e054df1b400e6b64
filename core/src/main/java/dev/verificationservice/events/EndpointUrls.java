package dev.verificationservice.events;

import dev.verificationservice.validation.InvalidInputException;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/**
 * Where webhooks may go (SSRF rules of §15): {@code https}, or {@code http} to {@code localhost} for development; no
 * other loopback, private, link-local, unique-local, CGNAT, multicast or unspecified address unless the operator
 * allows private addresses. Checked on the URL at registration and again on the resolved addresses before every
 * delivery, so a name that later resolves inside the network is refused then too.
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

    /** Loopback, private, link-local, unique-local (fc00::/7), CGNAT (100.64/10), multicast or unspecified. */
    static boolean isInternal(InetAddress address) {
        if (address.isLoopbackAddress() || address.isSiteLocalAddress() || address.isLinkLocalAddress()
                || address.isAnyLocalAddress() || address.isMulticastAddress()) {
            return true;
        }
        byte[] raw = address.getAddress();
        if (address instanceof Inet6Address) {
            if ((raw[0] & 0xFE) == 0xFC) {
                return true;
            }
            if (isMappedIpv4(raw)) {
                try {
                    return isInternal(InetAddress.getByAddress(java.util.Arrays.copyOfRange(raw, 12, 16)));
                } catch (UnknownHostException e) {
                    return true;
                }
            }
            return false;
        }
        int first = raw[0] & 0xFF;
        int second = raw[1] & 0xFF;
        return first == 0 || (first == 100 && second >= 64 && second < 128);
    }

    private static boolean isMappedIpv4(byte[] raw) {
        for (int i = 0; i < 10; i++) {
            if (raw[i] != 0) {
                return false;
            }
        }
        return (raw[10] & 0xFF) == 0xFF && (raw[11] & 0xFF) == 0xFF;
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
        return address.getHostAddress() + " is a loopback, private or link-local address; webhooks go to public "
                + "https endpoints (set VERIFICATION_WEBHOOKS_ALLOW_PRIVATE_ADDRESSES=true to allow internal ones)";
    }

    private static InvalidInputException refused(String message) {
        return new InvalidInputException("url", message);
    }
}
