package dev.verificationservice.examples.login;

import dev.verificationservice.delivery.DeliveryChannels;
import java.util.stream.Collectors;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.util.HtmlUtils;

/**
 * The development outbox, where the example's links go while no SMTP server is configured: what a developer
 * opens instead of a mailbox. Only in this example; with a real channel there is no outbox and the page is empty.
 */
@RestController
class OutboxPage {

    private final DeliveryChannels channels;

    OutboxPage(DeliveryChannels channels) {
        this.channels = channels;
    }

    @GetMapping(value = "/outbox", produces = MediaType.TEXT_HTML_VALUE)
    String outbox() {
        String messages = channels.outbox().map(outbox -> outbox.messages().stream()
                .map(message -> "<li><pre>To: " + HtmlUtils.htmlEscape(message.to()) + "\n"
                        + HtmlUtils.htmlEscape(message.body()) + "</pre></li>")
                .collect(Collectors.joining())).orElse("");
        return "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>Outbox</title></head><body>"
                + "<h1>Development outbox</h1><ol>" + messages + "</ol></body></html>";
    }
}
