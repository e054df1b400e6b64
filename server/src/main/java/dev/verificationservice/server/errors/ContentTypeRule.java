package dev.verificationservice.server.errors;

import jakarta.servlet.http.HttpServletRequest;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.InvalidMediaTypeException;
import org.springframework.http.MediaType;

/**
 * Which {@code Content-Type} headers the service refuses before anything reads the request. Every body it takes
 * is JSON (the console's forms are URL-encoded); everything else is refused by the endpoint as 415, except what
 * would break the parsers on the way there, refused here for every path and method:
 * <ul>
 *   <li>a header that cannot be parsed (also an unknown or illegal charset), a wildcard type, or more than one
 *   header (which one would count?): 400 {@code MALFORMED_CONTENT_TYPE};</li>
 *   <li>any {@code multipart/*}: no endpoint takes one, and parsing it is what answered 500 (and logged a
 *   stack trace) on every path, health probes included: 415 {@code UNSUPPORTED_MEDIA_TYPE}.</li>
 * </ul>
 */
final class ContentTypeRule {

    /** Why a Content-Type is refused, as the problem says it. */
    record Refusal(HttpStatus status, String code, String detail) {
    }

    private static final Refusal MALFORMED = new Refusal(HttpStatus.BAD_REQUEST, "MALFORMED_CONTENT_TYPE",
            "The Content-Type header must be one well-formed media type, with a known charset if any: send "
                    + "application/json with a body, and no Content-Type without one.");
    private static final Refusal MULTIPART = new Refusal(HttpStatus.UNSUPPORTED_MEDIA_TYPE, "UNSUPPORTED_MEDIA_TYPE",
            "No endpoint of this service takes a multipart body; send the body as application/json.");

    private ContentTypeRule() {
    }

    static Optional<Refusal> check(HttpServletRequest request) {
        List<String> values = Collections.list(request.getHeaders(HttpHeaders.CONTENT_TYPE));
        if (values.isEmpty()) {
            return Optional.empty();
        }
        if (values.size() > 1) {
            return Optional.of(MALFORMED);
        }
        MediaType type;
        try {
            // Spring's own parser, the one that reads the body later; it also refuses an unknown charset.
            type = MediaType.parseMediaType(values.get(0));
        } catch (InvalidMediaTypeException | IndexOutOfBoundsException e) {
            // The parser fails on some garbage ('"/"') with an index error instead of its own exception.
            return Optional.of(MALFORMED);
        }
        if (type.isWildcardType() || type.isWildcardSubtype()) {
            return Optional.of(MALFORMED);
        }
        return "multipart".equalsIgnoreCase(type.getType()) ? Optional.of(MULTIPART) : Optional.empty();
    }
}
