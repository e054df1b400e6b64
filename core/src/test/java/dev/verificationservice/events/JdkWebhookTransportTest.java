package dev.verificationservice.events;

import static org.assertj.core.api.Assertions.assertThat;

import com.sun.net.httpserver.HttpServer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;

class JdkWebhookTransportTest {

    /**
     * The JDK's client is built on the first request, not with the transport: building it starts its selector
     * thread and initialises TLS (the trust store read and parsed), work a service start does for nothing while no
     * webhook is due. The selector thread ("HttpClient-N-SelectorManager") is what shows whether a client exists.
     */
    @Test
    void buildsNoClientUntilTheFirstRequest() throws Exception {
        HttpServer receiver = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        receiver.createContext("/hook", exchange -> {
            exchange.getRequestBody().readAllBytes();
            exchange.sendResponseHeaders(204, -1);
            exchange.close();
        });
        receiver.start();
        try {
            Set<String> before = selectorThreads();
            JdkWebhookTransport transport = new JdkWebhookTransport();
            assertThat(selectorThreads()).isEqualTo(before);

            URI url = URI.create("http://127.0.0.1:" + receiver.getAddress().getPort() + "/hook");
            assertThat(transport.post(url, Map.of("X-Test", "1"), new byte[] {'{', '}'}, Duration.ofSeconds(10)))
                    .isEqualTo(new WebhookTransport.Answered(204));
            assertThat(transport.post(url, Map.of(), new byte[0], Duration.ofSeconds(10)))
                    .isEqualTo(new WebhookTransport.Answered(204));
            Set<String> after = selectorThreads();
            after.removeAll(before);
            assertThat(after).as("one client, built by the first request and kept").hasSize(1);
        } finally {
            receiver.stop(0);
        }
    }

    private static Set<String> selectorThreads() {
        return Thread.getAllStackTraces().keySet().stream().map(Thread::getName)
                .filter(name -> name.startsWith("HttpClient-") && name.endsWith("-SelectorManager"))
                .collect(Collectors.toSet());
    }
}
