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
}
