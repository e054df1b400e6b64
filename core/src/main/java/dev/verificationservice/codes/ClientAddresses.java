package dev.verificationservice.codes;

import dev.verificationservice.validation.EmbeddedIpv4;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.HexFormat;
import java.util.Optional;

/**
 * The subject a client address is counted under ({@code SEND_FROM_IP}, and by a caller that counts its clients
 * the same way): {@code ip:<IPv4 address>}, or {@code ip:<first 64 bits in hex>/64} for an IPv6 address (the
 * block one subscriber is given).
 *
 * <p>An IPv6 address that carries an IPv4 address is counted as that IPv4 address. Otherwise one blocked IPv4
 * client could go on under each of its IPv6 spellings, and under 6to4 even under 65,536 of them (the subnet
 * bits after {@code 2002:AABB:CCDD::/48} are the client's to choose, so each is a /64 of its own). The forms
 * recognised are {@link EmbeddedIpv4}'s; an IPv6 address in none of them (NAT64 under a network-specific prefix
 * among them) is counted by its /64 like any other IPv6 address.
 */
public final class ClientAddresses {

    private ClientAddresses() {
    }

    /** {@code ip:<address>}: an IPv4 address as itself (also inside IPv6), any other IPv6 address by its /64. */
    public static String subject(String ipAddress) {
        byte[] address = parse(ipAddress);
        if (address.length == 16) {
            Optional<byte[]> v4 = EmbeddedIpv4.in(address);
            if (v4.isEmpty()) {
                return "ip:" + HexFormat.of().formatHex(address, 0, 8) + "/64";
            }
            address = v4.get();
        }
        return "ip:" + (address[0] & 0xff) + "." + (address[1] & 0xff) + "." + (address[2] & 0xff) + "."
                + (address[3] & 0xff);
    }

    /** The address's bytes; the JDK turns an IPv4-mapped literal into 4 bytes itself, the other forms stay 16. */
    private static byte[] parse(String ipAddress) {
        try {
            return InetAddress.getByName(ipAddress).getAddress();
        } catch (UnknownHostException e) {
            // Validated as a literal before; a literal is never looked up.
            throw new IllegalStateException("not an IP literal", e);
        }
    }
}
