package dev.verificationservice.recovery;

import dev.verificationservice.audit.AuditEntry;
import java.util.List;
import java.util.Optional;

/**
 * One replacement of a user's set, written in one atomic step on the condition that the user's current set is still
 * {@code replaces} (none: the user had none) or is already {@code setId} (this very replacement, retried after its
 * answer was lost): {@code voided} (the codes read) deleted, {@code issued} and {@code issuedEntry} written, and the
 * user's current set made {@code setId}.
 *
 * @param replaces the set read before the new one was drawn ({@link RecoveryCodeRepository#currentRecoverySet})
 */
public record RecoveryCodeReplacement(String userId, Optional<String> replaces, String setId,
                                      List<RecoveryCode> voided, List<RecoveryCode> issued, AuditEntry issuedEntry) {

    public RecoveryCodeReplacement {
        voided = List.copyOf(voided);
        issued = List.copyOf(issued);
        if (issued.stream().anyMatch(code -> !code.setId().equals(setId) || !code.userId().equals(userId))) {
            throw new IllegalArgumentException("every issued code is of set " + setId + " and user " + userId);
        }
    }
}
