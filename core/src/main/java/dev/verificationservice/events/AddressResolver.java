package dev.verificationservice.events;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.List;

/**
 * Resolves an endpoint's host name to the addresses a delivery would connect to. A seam so tests can point a name at
 * {@code 10.0.0.1} or {@code 169.254.169.254} without a DNS server; production uses the system resolver.
 */
@FunctionalInterface
public interface AddressResolver {

    List<InetAddress> resolve(String host) throws UnknownHostException;

    static AddressResolver system() {
        return host -> List.of(InetAddress.getAllByName(host));
    }
}
