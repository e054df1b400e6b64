package dev.verificationservice.spring.hostapp;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.codes.CodeSender;
import dev.verificationservice.codes.OutgoingCode;
import dev.verificationservice.delivery.DeliveryChannels;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.test.context.TestConfiguration;
import org.springframework.context.ApplicationContext;
import org.springframework.context.annotation.Bean;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/** A host application that delivers codes itself: its {@link CodeSender} bean replaces every built-in channel. */
@SpringBootTest(classes = {HostApplication.class, OwnCodeSenderTest.OwnSender.class})
class OwnCodeSenderTest {

    static final List<OutgoingCode> SENT = new CopyOnWriteArrayList<>();

    @DynamicPropertySource
    static void dataDirectory(DynamicPropertyRegistry registry) throws IOException {
        registry.add("verification.data-dir", Files.createTempDirectory("verification-host-sender")::toString);
    }

    @TestConfiguration(proxyBeanMethods = false)
    static class OwnSender {
        /** The application's own delivery (its mail service, its SMS provider): here, a list. */
        @Bean
        CodeSender hostCodeSender() {
            return SENT::add;
        }
    }

    @Autowired
    EmailConfirmation confirmation;

    @Autowired
    ApplicationContext context;

    @Test
    void theApplicationsSenderGetsEveryCodeAndNoBuiltInChannelIsMade() {
        assertThat(context.getBeansOfType(DeliveryChannels.class)).as("no built-in channel, no outbox").isEmpty();
        assertThat(context.getBeanNamesForType(CodeSender.class)).containsExactly("hostCodeSender");

        assertThat(confirmation.sendCode("host-user-1", "jane.sender@example.com")).isTrue();

        OutgoingCode sent = SENT.stream().filter(message -> message.deliveryTarget().equals("jane.sender@example.com"))
                .findFirst().orElseThrow();
        assertThat(confirmation.confirm("host-user-1", sent.code())).isTrue();
    }
}
