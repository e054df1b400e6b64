package dev.verificationservice.server.delivery;

import dev.verificationservice.codes.DevelopmentOutbox;
import dev.verificationservice.server.config.JsonTimes;
import dev.verificationservice.server.errors.ApiProblem;
import dev.verificationservice.spring.delivery.DeliveryAutoConfiguration;
import java.util.List;
import java.util.Map;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /dev/outbox}: the development outbox, newest first. It exists only when no delivery channel is
 * configured; otherwise the path answers 404. Like {@code /v1}, it needs the API key, since it shows codes.
 */
@RestController
public class OutboxController {

    /** One kept message, as the JSON shows it; {@code locale} is the language it was written in. */
    public record OutboxMessage(String channel, String to, String codeType, String code, String body, String sentAt,
                                String locale) {
    }

    public record OutboxResponse(List<OutboxMessage> messages) {
    }

    private final DeliveryAutoConfiguration.DeliveryChannels channels;

    public OutboxController(DeliveryAutoConfiguration.DeliveryChannels channels) {
        this.channels = channels;
    }

    @GetMapping("/dev/outbox")
    public OutboxResponse outbox() {
        DevelopmentOutbox outbox = channels.outbox().orElseThrow(() -> new ApiProblem(HttpStatus.NOT_FOUND,
                "OUTBOX_DISABLED", "The development outbox is off because a delivery channel is configured.",
                Map.of()));
        return new OutboxResponse(outbox.messages().stream()
                .map(message -> new OutboxMessage(message.channel().name(), message.to(), message.codeType().name(),
                        message.code(), message.body(), JsonTimes.format(message.sentAt()),
                        message.locale().toLanguageTag()))
                .toList());
    }
}
