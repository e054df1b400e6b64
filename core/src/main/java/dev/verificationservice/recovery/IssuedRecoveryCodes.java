package dev.verificationservice.recovery;

import java.time.Instant;
import java.util.List;

/** A new set of recovery codes, shown this once and stored nowhere; {@link #toString()} hides them. */
public record IssuedRecoveryCodes(List<String> codes, Instant issuedAt) {

    public IssuedRecoveryCodes {
        codes = List.copyOf(codes);
    }

    @Override
    public String toString() {
        return "IssuedRecoveryCodes[" + codes.size() + " code(s), redacted, issuedAt=" + issuedAt + "]";
    }
}
