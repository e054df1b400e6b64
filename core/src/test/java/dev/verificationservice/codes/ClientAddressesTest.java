package dev.verificationservice.codes;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.audit.ClientContext;
import java.util.HexFormat;
import java.util.List;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.constraints.IntRange;

/**
 * Every way of writing an IPv4 address as an IPv6 address is counted as that IPv4 address; any other IPv6 address
 * by its /64. Each form goes through the request's own validation first, as it would from the API.
 */
class ClientAddressesTest {

    private static String subjectOf(String ipAddress) {
        return ClientAddresses.subject(ClientContext.of(ipAddress, null, null).ipAddress().orElseThrow());
    }

    private static String hex(int high, int low) {
        return Integer.toHexString((high << 8) | low);
    }

    /** Every IPv6 spelling of a.b.c.d a client can send; {@code x}, {@code y}, {@code z} fill the bits it chooses. */
    static List<String> embeddings(int a, int b, int c, int d, int x, int y, int z) {
        String dotted = a + "." + b + "." + c + "." + d;
        String high = hex(a, b);
        String low = hex(c, d);
        return List.of(
                "::ffff:" + dotted,
                "::FFFF:" + high + ":" + low,
                "0:0:0:0:0:ffff:" + dotted,
                "::" + dotted,
                "::" + high + ":" + low,
                "::ffff:0:" + dotted,
                "0:0:0:0:ffff:0:" + high + ":" + low,
                "64:ff9b::" + dotted,
                "64:FF9B::" + high + ":" + low,
                "2002:" + high + ":" + low + "::",
                "2002:" + high + ":" + low + ":" + Integer.toHexString(x) + "::" + Integer.toHexString(y) + ":"
                        + Integer.toHexString(z),
                // Teredo: 2001:0:<server>:<flags>:<port>:<client inverted>.
                "2001:0:" + Integer.toHexString(x) + ":" + Integer.toHexString(y) + ":0:" + Integer.toHexString(z) + ":"
                        + hex(~a & 0xff, ~b & 0xff) + ":" + hex(~c & 0xff, ~d & 0xff));
    }

    @Property
    void everyIpv6FormOfAnIpv4AddressIsCountedAsThatAddress(
            @ForAll @IntRange(max = 255) int a, @ForAll @IntRange(max = 255) int b, @ForAll @IntRange(max = 255) int c,
            @ForAll @IntRange(max = 255) int d, @ForAll @IntRange(max = 0xffff) int x,
            @ForAll @IntRange(max = 0xffff) int y, @ForAll @IntRange(max = 0xffff) int z) {
        String plain = a + "." + b + "." + c + "." + d;
        assertThat(subjectOf(plain)).isEqualTo("ip:" + plain);

        assertThat(embeddings(a, b, c, d, x, y, z)).allSatisfy(form -> assertThat(subjectOf(form))
                .as(form).isEqualTo("ip:" + plain));
    }

    @Property
    void anyOtherIpv6AddressIsCountedByItsSlash64(@ForAll("globalUnicast") byte[] address,
                                                  @ForAll @IntRange(max = 0xffff) int otherInterfaceBits) {
        String written = colonHex(address);
        byte[] sameNetwork = address.clone();
        sameNetwork[14] = (byte) (otherInterfaceBits >> 8);
        sameNetwork[15] = (byte) otherInterfaceBits;

        String subject = subjectOf(written);

        assertThat(subject).isEqualTo("ip:" + HexFormat.of().formatHex(address, 0, 8) + "/64");
        assertThat(subjectOf(colonHex(sameNetwork))).isEqualTo(subject);
    }

    /** Addresses of 2000::/3, where global unicast is, without 6to4 (2002::/16) and Teredo (2001:0::/32). */
    @Provide
    Arbitrary<byte[]> globalUnicast() {
        return Combinators.combine(Arbitraries.integers().between(0x2000, 0x3fff), Arbitraries.bytes().array(byte[].class)
                .ofSize(14)).as((first, rest) -> {
                    byte[] address = new byte[16];
                    address[0] = (byte) (first >> 8);
                    address[1] = first.byteValue();
                    System.arraycopy(rest, 0, address, 2, 14);
                    return address;
                }).filter(address -> !(address[0] == 0x20 && address[1] == 0x02)
                        && !(address[0] == 0x20 && address[1] == 0x01 && address[2] == 0 && address[3] == 0));
    }

    private static String colonHex(byte[] address) {
        StringBuilder text = new StringBuilder();
        for (int group = 0; group < 8; group++) {
            if (group > 0) {
                text.append(':');
            }
            text.append(Integer.toHexString(((address[2 * group] & 0xff) << 8) | (address[2 * group + 1] & 0xff)));
        }
        return text.toString();
    }
}
