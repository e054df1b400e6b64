package dev.verificationservice.events;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.verificationservice.validation.InvalidInputException;
import java.net.InetAddress;
import java.net.URI;
import java.net.UnknownHostException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class EndpointUrlsTest {

    /** Names that resolve to an address outside the public internet written in another form. */
    private static final Map<String, String> EMBEDDING = Map.ofEntries(
            Map.entry("nat64.example.com", "64:ff9b::7f00:1"),
            Map.entry("nat64-local.example.com", "64:ff9b:1::a00:1"),
            Map.entry("compatible.example.com", "::127.0.0.1"),
            Map.entry("mapped.example.com", "::ffff:127.0.0.1"),
            Map.entry("sixtofour.example.com", "2002:7f00:1::"),
            Map.entry("teredo.example.com", "2001:0:4136:e378:8000:63bf:80ff:fffe"),
            Map.entry("broadcast.example.com", "255.255.255.255"),
            Map.entry("reserved.example.com", "240.0.0.1"),
            Map.entry("benchmark.example.com", "198.18.0.1"),
            Map.entry("ietf.example.com", "192.0.0.8"),
            Map.entry("multicast.example.com", "224.0.0.1"));

    /** A resolver that knows a few names, as a DNS server pointing them at internal addresses would answer. */
    private static final AddressResolver NAMES = host -> {
        Map<String, String> known = Map.of(
                "hooks.example.com", "203.0.113.10",
                "internal.example.com", "10.0.0.1",
                "metadata.example.com", "169.254.169.254",
                "loop.example.com", "127.0.0.1",
                "v6.example.com", "fd00::1");
        String address = known.get(host);
        if (address == null) {
            address = EMBEDDING.get(host);
        }
        if (address == null) {
            throw new UnknownHostException(host);
        }
        return List.of(InetAddress.getByName(address));
    };

    private final EndpointUrls strict = new EndpointUrls(false, NAMES);
    private final EndpointUrls allowingPrivate = new EndpointUrls(true, NAMES);

    @ParameterizedTest
    @ValueSource(strings = {"https://hooks.example.com/in", "http://localhost:8080/hook", "https://localhost/hook",
            "https://203.0.113.10/hook"})
    void httpsAndHttpToLocalhostAreAccepted(String url) {
        assertThat(strict.checkRegistration(url)).isEqualTo(URI.create(url));
    }

    @ParameterizedTest
    @ValueSource(strings = {"http://hooks.example.com/in", "ftp://hooks.example.com/", "https://127.0.0.1/",
            "https://10.1.2.3/", "https://192.168.0.1/", "https://172.16.0.1/", "https://169.254.169.254/latest",
            "https://[::1]/", "https://[fd00::1]/", "https://[fe80::1]/", "https://100.64.0.1/", "https://0.0.0.0/",
            "https://[::ffff:10.0.0.1]/", "https://user:pw@hooks.example.com/", "/relative", "not a url", ""})
    void otherSchemesAndInternalAddressesAreRefusedNamingUrl(String url) {
        assertThatThrownBy(() -> strict.checkRegistration(url)).isInstanceOfSatisfying(InvalidInputException.class,
                e -> assertThat(e.field()).isEqualTo("url"));
    }

    @Test
    void internalAddressesAreAcceptedWhenTheOperatorAllowsThem() {
        assertThat(allowingPrivate.checkRegistration("https://10.1.2.3/hook")).hasHost("10.1.2.3");
        assertThat(allowingPrivate.checkDelivery(URI.create("https://internal.example.com/hook"))).isEmpty();
    }

    @Test
    void theResolvedAddressesAreCheckedAtDeliveryNotOnlyTheName() {
        assertThat(strict.checkRegistration("https://internal.example.com/hook")).as("a name passes registration")
                .isNotNull();

        assertThat(strict.checkDelivery(URI.create("https://hooks.example.com/in"))).isEmpty();
        assertThat(strict.checkDelivery(URI.create("https://internal.example.com/hook")))
                .hasValueSatisfying(why -> assertThat(why).contains("10.0.0.1"));
        assertThat(strict.checkDelivery(URI.create("https://metadata.example.com/"))).isPresent();
        assertThat(strict.checkDelivery(URI.create("https://loop.example.com/"))).isPresent();
        assertThat(strict.checkDelivery(URI.create("https://v6.example.com/"))).isPresent();
        assertThat(strict.checkDelivery(URI.create("https://nowhere.example.com/")))
                .hasValueSatisfying(why -> assertThat(why).contains("does not resolve"));
        assertThat(strict.checkDelivery(URI.create("http://localhost:9999/hook"))).isEmpty();
    }

    @ParameterizedTest
    @ValueSource(strings = {"https://[64:ff9b::7f00:1]:9199/", "https://[64:ff9b::a00:1]/",
            "https://[64:ff9b:1::a00:1]/", "https://[::127.0.0.1]/", "https://[::10.0.0.1]/",
            "https://[::ffff:127.0.0.1]/", "https://[::ffff:0:127.0.0.1]/", "https://[2002:7f00:1::]/",
            "https://[2002:a9fe:a9fe::1]/", "https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/",
            "https://255.255.255.255/", "https://240.0.0.1/", "https://198.18.0.1/", "https://192.0.0.8/",
            "https://224.0.0.1/", "https://0.1.2.3/", "https://100.127.255.254/"})
    void internalIpv4AddressesInEveryIpv6FormAndSpecialRangesAreRefusedAtRegistration(String url) {
        assertThatThrownBy(() -> strict.checkRegistration(url)).isInstanceOfSatisfying(InvalidInputException.class,
                e -> assertThat(e.field()).isEqualTo("url"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"https://[64:ff9b::cb00:710a]/", "https://[2002:cb00:710a::]/",
            "https://[2001:0:4136:e378:8000:63bf:34ff:8ef5]/", "https://[2001:4860:4860::8888]/"})
    void ipv6FormsOfAPublicAddressAreAccepted(String url) {
        // 203.0.113.10 over NAT64 and 6to4, Teredo for the client 203.0.113.10, and a plain global IPv6 address.
        assertThat(strict.checkRegistration(url)).isEqualTo(URI.create(url));
    }

    @ParameterizedTest
    @ValueSource(strings = {"nat64.example.com", "nat64-local.example.com", "compatible.example.com",
            "mapped.example.com", "sixtofour.example.com", "teredo.example.com", "broadcast.example.com",
            "reserved.example.com", "benchmark.example.com", "ietf.example.com", "multicast.example.com"})
    void aNameResolvingToAnInternalAddressInAnyFormIsRefusedAtDelivery(String host) {
        assertThat(strict.checkDelivery(URI.create("https://" + host + "/hook")))
                .hasValueSatisfying(why -> assertThat(why).contains(host));
    }

    @ParameterizedTest
    @ValueSource(strings = {"https://hooks.example.com:0/", "https://hooks.example.com:99999/",
            "https://hooks.example.com:65536/", "http://localhost:0/hook"})
    void portsOutside1To65535AreRefusedAtRegistration(String url) {
        assertThatThrownBy(() -> strict.checkRegistration(url)).isInstanceOfSatisfying(InvalidInputException.class,
                e -> assertThat(e).hasMessageContaining("port"))
                .isInstanceOfSatisfying(InvalidInputException.class, e -> assertThat(e.field()).isEqualTo("url"));
    }

    @ParameterizedTest
    @ValueSource(strings = {"https://hooks.example.com:0/", "https://hooks.example.com:99999/",
            "http://localhost:0/hook"})
    void portsOutside1To65535AreRefusedAtDelivery(String url) {
        assertThat(strict.checkDelivery(URI.create(url))).hasValueSatisfying(why -> assertThat(why).contains("port"));
    }

    @Test
    void portsAtTheEdgesOfTheRangeAreAccepted() {
        assertThat(strict.checkRegistration("https://hooks.example.com:1/")).hasPort(1);
        assertThat(strict.checkRegistration("https://hooks.example.com:65535/")).hasPort(65535);
        assertThat(strict.checkDelivery(URI.create("https://hooks.example.com:65535/"))).isEmpty();
    }
}
