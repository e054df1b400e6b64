package dev.verificationservice.server.config;

import dev.verificationservice.validation.InvalidInputException;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Arrays;
import java.util.IllformedLocaleException;
import java.util.Locale;
import java.util.Optional;
import java.util.stream.Collectors;

/** Parsing of request values that the JSON layer leaves as text, so that every error can name its field. */
public final class Requests {

    private Requests() {
    }

    public static <E extends Enum<E>> E requiredEnum(Class<E> type, String field, String value) {
        if (value == null || value.isEmpty()) {
            throw new InvalidInputException(field, "is required; one of " + names(type));
        }
        return optionalEnum(type, field, value).orElseThrow();
    }

    public static <E extends Enum<E>> Optional<E> optionalEnum(Class<E> type, String field, String value) {
        if (value == null || value.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(Enum.valueOf(type, value));
        } catch (IllegalArgumentException e) {
            throw new InvalidInputException(field, "must be one of " + names(type));
        }
    }

    public static Optional<Instant> optionalInstant(String field, String value) {
        if (value == null || value.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(Instant.parse(value));
        } catch (DateTimeParseException e) {
            throw new InvalidInputException(field, "must be an ISO-8601 UTC instant such as 2026-11-30T10:00:00Z");
        }
    }

    public static Optional<Integer> optionalInt(String field, String value) {
        if (value == null || value.isEmpty()) {
            return Optional.empty();
        }
        try {
            return Optional.of(Integer.parseInt(value));
        } catch (NumberFormatException e) {
            throw new InvalidInputException(field, "must be a whole number");
        }
    }

    /** The longest language tag taken (RFC 5646 asks implementations to take at least 35 characters). */
    public static final int MAX_LOCALE_LENGTH = 35;

    /** A well-formed BCP 47 language tag with a language subtag ({@code pt-BR}, {@code de}), or a 400 naming it. */
    public static Optional<Locale> optionalLocale(String field, String value) {
        if (value == null || value.isEmpty()) {
            return Optional.empty();
        }
        try {
            Locale locale = new Locale.Builder().setLanguageTag(value).build();
            if (value.length() <= MAX_LOCALE_LENGTH && !locale.getLanguage().isEmpty()) {
                return Optional.of(locale);
            }
        } catch (IllformedLocaleException e) {
            // refused below
        }
        throw new InvalidInputException(field, "must be a BCP 47 language tag of at most " + MAX_LOCALE_LENGTH
                + " characters, such as en, pt-BR or de-AT");
    }

    public static <T> T body(T body) {
        if (body == null) {
            throw new InvalidInputException("body", "must be a JSON object");
        }
        return body;
    }

    private static <E extends Enum<E>> String names(Class<E> type) {
        return Arrays.stream(type.getEnumConstants()).map(Enum::name).collect(Collectors.joining(", "));
    }
}
