package dev.verificationservice.server.delivery;

import static io.swagger.v3.oas.annotations.media.Schema.RequiredMode.REQUIRED;

import dev.verificationservice.codes.DevelopmentOutbox;
import dev.verificationservice.delivery.DeliveryChannels;
import dev.verificationservice.server.config.JsonTimes;
import dev.verificationservice.server.errors.ApiProblem;
import io.swagger.v3.oas.annotations.media.Schema;
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
    public record OutboxMessage(@Schema(requiredMode = REQUIRED) String userId,
                                @Schema(requiredMode = REQUIRED) String channel,
                                @Schema(requiredMode = REQUIRED) String to,
                                @Schema(requiredMode = REQUIRED) String codeType,
                                @Schema(requiredMode = REQUIRED) String code,
                                @Schema(requiredMode = REQUIRED) String body,
                                @Schema(requiredMode = REQUIRED) String sentAt,
                                @Schema(requiredMode = REQUIRED) String locale) {
    }

    public record OutboxResponse(@Schema(requiredMode = REQUIRED) List<OutboxMessage> messages) {
    }

    private final DeliveryChannels channels;

    public OutboxController(DeliveryChannels channels) {
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
