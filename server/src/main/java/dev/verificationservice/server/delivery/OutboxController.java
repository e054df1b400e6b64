package dev.verificationservice.server.delivery;

import dev.verificationservice.codes.DevelopmentOutbox;
import dev.verificationservice.server.config.JsonTimes;
import dev.verificationservice.server.errors.ApiProblem;
import dev.verificationservice.spring.delivery.DeliveryAutoConfiguration;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code GET /dev/outbox}: the development outbox, newest first, optionally only a user's messages
 * ({@code ?userId=}) or an address's ({@code ?to=}). It exists only when no delivery channel is
 * configured; otherwise the path answers 404. Like {@code /v1}, it needs the API key, since it shows codes.
 */
@RestController
public class OutboxController {

    /** One kept message, as the JSON shows it; {@code locale} is the language it was written in. */
    public record OutboxMessage(String userId, String channel, String to, String codeType, String code, String body,
                                String sentAt, String locale) {
    }

    public record OutboxResponse(List<OutboxMessage> messages) {
    }

    private final DeliveryAutoConfiguration.DeliveryChannels channels;

    public OutboxController(DeliveryAutoConfiguration.DeliveryChannels channels) {
        this.channels = channels;
    }

    /** Newest first; {@code userId} and {@code to} keep only the messages sent for that user or to that address. */
    @GetMapping("/dev/outbox")
    public OutboxResponse outbox(@RequestParam Optional<String> userId, @RequestParam Optional<String> to) {
        DevelopmentOutbox outbox = channels.outbox().orElseThrow(() -> new ApiProblem(HttpStatus.NOT_FOUND,
                "OUTBOX_DISABLED", "The development outbox is off because a delivery channel is configured.",
                Map.of()));
        return new OutboxResponse(outbox.messages(userId, to).stream()
                .map(message -> new OutboxMessage(message.userId(), message.channel().name(), message.to(),
                        message.codeType().name(),
                        message.code(), message.body(), JsonTimes.format(message.sentAt()),
                        message.locale().toLanguageTag()))
                .toList());
    }
}
