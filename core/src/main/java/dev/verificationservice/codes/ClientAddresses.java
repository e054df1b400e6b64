package dev.verificationservice.codes;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.HexFormat;
import java.util.Optional;

/**
 * The subject a client address is counted under ({@code SEND_FROM_IP}): {@code ip:<IPv4 address>}, or
 * {@code ip:<first 64 bits in hex>/64} for an IPv6 address (the block one subscriber is given).
 *
 * <p>An IPv6 address that carries an IPv4 address is counted as that IPv4 address. Otherwise one blocked IPv4
 * client could go on under each of its IPv6 spellings, and under 6to4 even under 65,536 of them (the subnet
 * bits after {@code 2002:AABB:CCDD::/48} are the client's to choose, so each is a /64 of its own). The forms
 * recognised, all of which a client can write for an IPv4 address it holds:
 * <ul>
 *   <li>{@code ::ffff:a.b.c.d}, IPv4-mapped (RFC 4291);</li>
 *   <li>{@code ::a.b.c.d}, IPv4-compatible (RFC 4291, deprecated: all of {@code ::/96});</li>
 *   <li>{@code ::ffff:0:a.b.c.d}, IPv4-translated (RFC 2765);</li>
 *   <li>{@code 64:ff9b::a.b.c.d}, the NAT64 well-known prefix (RFC 6052);</li>
 *   <li>{@code 2002:AABB:CCDD::/48}, 6to4 (RFC 3056): the IPv4 address is bits 16 to 47;</li>
 *   <li>{@code 2001:0::/32}, Teredo (RFC 4380): the client's public IPv4 address is the last 32 bits, inverted.</li>
 * </ul>
 * NAT64 under a network-specific prefix cannot be recognised from the address alone (the prefix is the
 * operator's), and is counted by its /64 like any other IPv6 address.
 */
final class ClientAddresses {

    private static final byte[] NAT64_PREFIX = {0, 0x64, (byte) 0xff, (byte) 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};

    private ClientAddresses() {
    }

    /** {@code ip:<address>}: an IPv4 address as itself (also inside IPv6), any other IPv6 address by its /64. */
    static String subject(String ipAddress) {
        byte[] address = parse(ipAddress);
        if (address.length == 16) {
            Optional<byte[]> v4 = embeddedIpv4(address);
            if (v4.isEmpty()) {
                return "ip:" + HexFormat.of().formatHex(address, 0, 8) + "/64";
            }
            address = v4.get();
        }
        return "ip:" + (address[0] & 0xff) + "." + (address[1] & 0xff) + "." + (address[2] & 0xff) + "."
                + (address[3] & 0xff);
    }

    /** The IPv4 address an IPv6 address carries in one of the forms above; empty for any other address. */
    static Optional<byte[]> embeddedIpv4(byte[] v6) {
        if (allZero(v6, 0, 10) && ((v6[10] == (byte) 0xff && v6[11] == (byte) 0xff) || (v6[10] == 0 && v6[11] == 0))) {
            // Mapped (::ffff:0:0/96) or compatible (::/96).
            return Optional.of(Arrays.copyOfRange(v6, 12, 16));
        }
        if (allZero(v6, 0, 8) && v6[8] == (byte) 0xff && v6[9] == (byte) 0xff && v6[10] == 0 && v6[11] == 0) {
            // Translated (::ffff:0:0:0/96).
            return Optional.of(Arrays.copyOfRange(v6, 12, 16));
        }
        if (Arrays.equals(v6, 0, 12, NAT64_PREFIX, 0, 12)) {
            return Optional.of(Arrays.copyOfRange(v6, 12, 16));
        }
        if (v6[0] == 0x20 && v6[1] == 0x02) {
            // 6to4: 2002:AABB:CCDD::/48.
            return Optional.of(Arrays.copyOfRange(v6, 2, 6));
        }
        if (v6[0] == 0x20 && v6[1] == 0x01 && v6[2] == 0 && v6[3] == 0) {
            // Teredo: the client's address, each bit inverted so that NATs do not rewrite it.
            byte[] client = Arrays.copyOfRange(v6, 12, 16);
            for (int i = 0; i < client.length; i++) {
                client[i] = (byte) ~client[i];
            }
            return Optional.of(client);
        }
        return Optional.empty();
    }

    private static boolean allZero(byte[] bytes, int from, int to) {
        for (int i = from; i < to; i++) {
            if (bytes[i] != 0) {
                return false;
            }
        }
        return true;
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
