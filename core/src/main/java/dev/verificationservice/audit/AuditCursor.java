package dev.verificationservice.audit;

import dev.verificationservice.audit.AuditRepository.AuditPosition;
import dev.verificationservice.time.Instants;
import dev.verificationservice.validation.InvalidInputException;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The opaque {@code nextCursor} of an audit page: where the page ended, as base64url text that callers hand
 * back unchanged. It is the domain's own format, independent of how a store keys its items, and anything
 * that does not read back to a position this service could have issued is refused naming {@code cursor}.
 */
final class AuditCursor {

    private static final Pattern POSITION = Pattern.compile("(\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}\\.\\d{3}Z)\\|([0-9a-f]{1,64})");

    private AuditCursor() {
    }

    static String encode(AuditPosition position) {
        String text = Instants.iso(position.timestamp()) + "|" + position.entryId();
        return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    static AuditPosition decode(String cursor) {
        try {
            String text = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
            Matcher matcher = POSITION.matcher(text);
            if (matcher.matches()) {
                return new AuditPosition(Instant.parse(matcher.group(1)), matcher.group(2));
            }
        } catch (IllegalArgumentException | DateTimeParseException e) {
            // falls through to the refusal below
        }
        throw new InvalidInputException("cursor", "is not a cursor this service issued; "
                + "pass the nextCursor of the previous page unchanged, or leave it out to start again");
    }
}
