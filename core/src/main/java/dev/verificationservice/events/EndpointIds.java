package dev.verificationservice.events;

import dev.verificationservice.security.SecureTokens;
import dev.verificationservice.validation.InvalidInputException;
import java.util.regex.Pattern;

/** Endpoint ids: {@code ep_} and 96 random bits in hex. Anything else is refused before it can become a key. */
public final class EndpointIds {

    private static final Pattern FORM = Pattern.compile("ep_[0-9a-f]{24}");

    private EndpointIds() {
    }

    static String generate(SecureTokens tokens) {
        return "ep_" + tokens.randomHex(12);
    }

    public static String check(String endpointId) {
        if (endpointId == null || !FORM.matcher(endpointId).matches()) {
            throw new InvalidInputException("endpointId", "is not an endpoint id; use the endpointId that "
                    + "POST /v1/admin/webhooks answered (ep_ and 24 hex digits), or GET /v1/admin/webhooks to list them");
        }
        return endpointId;
    }
}
