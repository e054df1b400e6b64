package dev.verificationservice.validation;

import java.util.Arrays;
import java.util.Optional;

/**
 * The IPv4 address an IPv6 address carries, in each form a client or a DNS answer can write for an IPv4 address:
 * <ul>
 *   <li>{@code ::ffff:a.b.c.d}, IPv4-mapped (RFC 4291);</li>
 *   <li>{@code ::a.b.c.d}, IPv4-compatible (RFC 4291, deprecated: all of {@code ::/96});</li>
 *   <li>{@code ::ffff:0:a.b.c.d}, IPv4-translated (RFC 2765);</li>
 *   <li>{@code 64:ff9b::a.b.c.d}, the NAT64 well-known prefix (RFC 6052);</li>
 *   <li>{@code 2002:AABB:CCDD::/48}, 6to4 (RFC 3056): the IPv4 address is bits 16 to 47;</li>
 *   <li>{@code 2001:0::/32}, Teredo (RFC 4380): the client's public IPv4 address is the last 32 bits, inverted.</li>
 * </ul>
 * NAT64 under a network-specific prefix (including the local-use {@code 64:ff9b:1::/48} of RFC 8215) cannot be
 * read from the address alone: where the IPv4 address sits depends on the operator's prefix length.
 *
 * <p>One mapping for every rule that judges an address by its IPv4 meaning (the rate limits' client subject, the
 * webhooks' SSRF check), so that no rule knows a form the other misses.
 */
public final class EmbeddedIpv4 {

    private static final byte[] NAT64_PREFIX = {0, 0x64, (byte) 0xff, (byte) 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};

    private EmbeddedIpv4() {
    }

    /** The 4 bytes of the IPv4 address the 16-byte IPv6 address {@code v6} carries; empty for any other. */
    public static Optional<byte[]> in(byte[] v6) {
        if (v6.length != 16) {
            throw new IllegalArgumentException("an IPv6 address has 16 bytes, not " + v6.length);
        }
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
}
