package dev.verificationservice.table;

import static dev.verificationservice.table.ItemAttributes.*;
import static dev.verificationservice.table.TableItems.*;

import dev.verificationservice.recovery.RecoveryCode;
import java.util.Map;
import java.util.Optional;

/**
 * Recovery codes: the code item ({@code USER#<userId>} / {@code RECOVERY#<digest>}) and the marker naming the user's
 * current set ({@code USER#<userId>} / {@link TableKeys#recoverySet}).
 */
public final class RecoveryCodeItems {

    private RecoveryCodeItems() {
    }

    public static Map<String, Object> recoveryCodeItem(RecoveryCode code) {
        Map<String, Object> item = keyed(TableKeys.recoveryCode(code.userId(), code.digest()));
        item.put(USER_ID, code.userId());
        item.put(DIGEST, code.digest());
        item.put(SET_ID, code.setId());
        item.put(ISSUED_AT, Timestamps.format(code.issuedAt()));
        item.put(IS_USED, code.used());
        code.usedAt().ifPresent(used -> item.put(USED_AT, Timestamps.format(used)));
        return item;
    }

    public static RecoveryCode recoveryCode(Map<String, Object> item) {
        return new RecoveryCode(
                string(item, USER_ID),
                string(item, DIGEST),
                string(item, SET_ID),
                Timestamps.parse(string(item, ISSUED_AT)),
                bool(item, IS_USED),
                optionalString(item, USED_AT).map(Timestamps::parse));
    }

    /** The marker naming the user's current set of recovery codes. */
    public static Map<String, Object> recoverySetItem(String userId, String setId) {
        Map<String, Object> item = keyed(TableKeys.recoverySet(userId));
        item.put(USER_ID, userId);
        item.put(SET_ID, setId);
        return item;
    }

    /** The set a recovery-set marker names. */
    public static String recoverySetId(Map<String, Object> item) {
        return string(item, SET_ID);
    }

    /** The attempt that used this recovery code, if one did. */
    public static Optional<String> usedBy(Map<String, Object> item) {
        return optionalString(item, USED_BY);
    }
}
