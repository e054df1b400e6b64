package dev.verificationservice.codes;

import java.time.Clock;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;

/**
 * The development outbox: with no delivery channel configured, codes are kept here in memory (the most
 * recent {@code capacity} messages) so that a developer can read them. It is the one place besides the
 * message itself where a code exists in clear text, so it must never be used when a real channel is
 * configured.
 */
public final class DevelopmentOutbox implements CodeSender {

    public static final int DEFAULT_CAPACITY = 100;

    /** One kept message; {@code channel} is the delivery method, {@code userId} the user it was sent for. */
    public record Message(String userId, DeliveryMethod channel, String to, CodeType codeType, String code,
                          String body, Instant sentAt, Locale locale, Optional<String> context) {
    }

    private final Deque<Message> messages = new ArrayDeque<>();
    private final int capacity;
    private final Clock clock;
    private final Function<OutgoingCode, String> bodies;

    /**
     * @param bodies renders the message text as the real channel would (the server passes its templates)
     */
    public DevelopmentOutbox(Clock clock, int capacity, Function<OutgoingCode, String> bodies) {
        if (capacity < 1) {
            throw new IllegalArgumentException("the outbox must keep at least one message");
        }
        this.clock = clock;
        this.capacity = capacity;
        this.bodies = bodies;
    }

    public DevelopmentOutbox(Clock clock) {
        this(clock, DEFAULT_CAPACITY, DevelopmentOutbox::plainBody);
    }

    @Override
    public void send(OutgoingCode message) {
        // Rendered before the lock: every send of the server waits for it, and the templates take the longest.
        String body = bodies.apply(message);
        synchronized (this) {
            messages.addFirst(new Message(message.userId(), message.deliveryMethod(), message.deliveryTarget(),
                    message.codeType(), message.code(), body, clock.instant(), message.locale(), message.context()));
            while (messages.size() > capacity) {
                messages.removeLast();
            }
        }
    }

    /** Newest first. */
    public synchronized List<Message> messages() {
        return new ArrayList<>(messages);
    }

    /**
     * Newest first, only those sent for {@code userId} and to {@code to} where given (exact match; an address
     * as the caller gave it). Several developers or test runs share one outbox: the newest message of all may
     * be someone else's code.
     */
    public synchronized List<Message> messages(Optional<String> userId, Optional<String> to) {
        return messages.stream()
                .filter(message -> userId.map(message.userId()::equals).orElse(true))
                .filter(message -> to.map(message.to()::equals).orElse(true))
                .toList();
    }

    private static String plainBody(OutgoingCode message) {
        return switch (message.format()) {
            case NUMERIC -> "Your " + describe(message.codeType()) + " code is " + message.code()
                    + ". It expires at " + message.expiresAt() + "."
                    + message.context().map(approved -> " It approves: " + approved + ".").orElse("");
            case LINK -> "Use this " + describe(message.codeType()) + " code in your link: " + message.code()
                    + " (expires at " + message.expiresAt() + ")."
                    + message.context().map(approved -> " It approves: " + approved + ".").orElse("");
        };
    }

    private static String describe(CodeType type) {
        return switch (type) {
            case EMAIL_VERIFICATION -> "email verification";
            case PHONE_VERIFICATION -> "phone verification";
            case PASSWORD_RESET -> "password reset";
            case LOGIN -> "login";
        };
    }
}
