package dev.verificationservice.codes;

import dev.verificationservice.audit.ClientContext;
import java.util.Optional;

/**
 * A code presented for checking or verification. A NUMERIC code needs {@code userId} and {@code codeType};
 * for a LINK code they are optional, and when given they must match the code. A code sent with a
 * {@code context} verifies only with the same context, and one sent without only without.
 */
public record VerifyRequest(String code, Optional<String> userId, Optional<CodeType> codeType, ClientContext client,
                            Optional<String> context) {

    public VerifyRequest {
        userId = userId == null ? Optional.empty() : userId;
        codeType = codeType == null ? Optional.empty() : codeType;
        client = client == null ? ClientContext.none() : client;
        context = context == null ? Optional.empty() : context.filter(text -> !text.isEmpty());
    }

    public VerifyRequest(String code, Optional<String> userId, Optional<CodeType> codeType, ClientContext client) {
        this(code, userId, codeType, client, Optional.empty());
    }

    /** The same request for a code that approves {@code approved} (it must be the context it was sent with). */
    public VerifyRequest withContext(String approved) {
        return new VerifyRequest(code, userId, codeType, client, Optional.ofNullable(approved));
    }

    public static VerifyRequest numeric(String code, String userId, CodeType codeType) {
        return new VerifyRequest(code, Optional.of(userId), Optional.of(codeType), ClientContext.none());
    }

    public static VerifyRequest link(String code) {
        return new VerifyRequest(code, Optional.empty(), Optional.empty(), ClientContext.none());
    }

    @Override
    public String toString() {
        return "VerifyRequest[code=<redacted>, userId=" + userId + ", codeType=" + codeType + "]";
    }
}
