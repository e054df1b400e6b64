package dev.verificationservice.table;

import static dev.verificationservice.table.ItemAttributes.*;
import static dev.verificationservice.table.TableItems.*;

import dev.verificationservice.codes.CodeFormat;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.VerificationCode;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Verification codes: the user's code slot of a type ({@code USER#<userId>} / {@link TableKeys#currentCode}), which
 * names the current code and holds a NUMERIC code itself, and the item of a LINK code ({@code CODE#<digest>} /
 * {@code CODE#<digest>}, in GSI1 under {@code USER#<userId>} / {@code CODE#<codeType>#<createdAt>}), found by the
 * code alone. The previous release wrote NUMERIC codes as items too: those are still read and used.
 */
public final class CodeItems {

    /**
     * How much longer a code slot lives than the code it names. Once TTL deletes the slot, every unexpired
     * code of the user and type passes the consume's check again, so the slot must outlive each code issued before
     * it whose deletion may have failed: a code made current may live shorter than the one it replaced (a login link
     * asks for 5 minutes, a code lives 15). A day covers every code lifetime of up to a day; the slot is one small
     * item per user and type.
     */
    static final Duration CURRENT_CODE_MARKER_GRACE = Duration.ofDays(1);

    private CodeItems() {
    }

    /** The code's item as a request with id {@code issueId} writes it. */
    public static Map<String, Object> codeItem(VerificationCode code, String issueId) {
        Map<String, Object> item = codeItem(code);
        item.put(ISSUED_BY, issueId);
        return item;
    }

    public static Map<String, Object> codeItem(VerificationCode code) {
        TableKeys.IndexKey index = TableKeys.codeIndex(code.userId(), code.codeType(), code.createdAt());
        Map<String, Object> item = keyed(TableKeys.code(code.digest()));
        item.put(GSI1PK, index.gsi1pk());
        item.put(GSI1SK, index.gsi1sk());
        item.put(USER_ID, code.userId());
        putCode(item, code, TTL);
        return item;
    }

    public static VerificationCode code(Map<String, Object> item) {
        return readCode(item, TTL);
    }

    /** The code's own attributes, its expiry in {@code expiresAt} (an item's TTL, a slot's {@code EXPIRES_AT}). */
    private static void putCode(Map<String, Object> item, VerificationCode code, String expiresAt) {
        item.put(CODE, code.digest());
        item.put(CODE_TYPE, code.codeType().name());
        item.put(CODE_FORMAT, code.format().name());
        item.put(DELIVERY_METHOD, code.deliveryMethod().name());
        item.put(DELIVERY_TARGET, code.maskedTarget());
        item.put(IS_USED, code.used());
        item.put(CREATED_AT, Timestamps.format(code.createdAt()));
        item.put(expiresAt, epochSeconds(code.expiresAt()));
        code.contextDigest().ifPresent(digest -> item.put(CONTEXT_DIGEST, digest));
        code.smsRange().ifPresent(range -> item.put(SMS_RANGE, range));
    }

    private static VerificationCode readCode(Map<String, Object> item, String expiresAt) {
        return new VerificationCode(
                string(item, CODE),
                string(item, USER_ID),
                CodeType.valueOf(string(item, CODE_TYPE)),
                CodeFormat.valueOf(string(item, CODE_FORMAT)),
                DeliveryMethod.valueOf(string(item, DELIVERY_METHOD)),
                string(item, DELIVERY_TARGET),
                bool(item, IS_USED),
                Timestamps.parse(string(item, CREATED_AT)),
                Instant.ofEpochSecond(number(item, expiresAt)),
                optionalString(item, CONTEXT_DIGEST),
                optionalString(item, SMS_RANGE));
    }

    /** The id of the request that wrote this code, if it was written with one. */
    public static Optional<String> issuedBy(Map<String, Object> item) {
        return optionalString(item, ISSUED_BY);
    }

    /** The id of the attempt that used this code up, if one did. */
    public static Optional<String> consumedBy(Map<String, Object> item) {
        return optionalString(item, CONSUMED_BY);
    }

    /**
     * The user's code slot of its type naming {@code code} without holding it (a LINK code): it lives as long as
     * the code (a newer code's slot lives as long as that one), plus {@link #CURRENT_CODE_MARKER_GRACE}.
     */
    public static Map<String, Object> currentCodeItem(VerificationCode code) {
        Map<String, Object> item = keyed(TableKeys.currentCode(code.userId(), code.codeType()));
        item.put(USER_ID, code.userId());
        item.put(CURRENT, code.digest());
        item.put(CURRENT_AT, Timestamps.format(code.createdAt()));
        item.put(CURRENT_FORMAT, code.format().name());
        item.put(TTL, epochSeconds(code.expiresAt().plus(CURRENT_CODE_MARKER_GRACE)));
        return item;
    }

    /**
     * The attributes of a code held inline in its slot, removed with it ({@link ItemAttributes#CODE} tells that a
     * slot holds its code).
     */
    public static final List<String> INLINE_CODE = List.of(CODE, CODE_TYPE, CODE_FORMAT, DELIVERY_METHOD,
            DELIVERY_TARGET, IS_USED, CREATED_AT, EXPIRES_AT, ISSUED_BY, CONSUMED_BY, CONTEXT_DIGEST, SMS_RANGE);

    /**
     * The user's code slot holding the NUMERIC {@code code} inline, as the request {@code issueId} writes it: the
     * slot's attributes naming it ({@link #currentCodeItem}) and the code's, its expiry in {@link ItemAttributes#EXPIRES_AT}.
     */
    public static Map<String, Object> slotItem(VerificationCode code, String issueId) {
        Map<String, Object> item = currentCodeItem(code);
        putCode(item, code, EXPIRES_AT);
        item.put(ISSUED_BY, issueId);
        return item;
    }

    /** The code a slot holds inline, if it holds one (a NUMERIC code written by this release). */
    public static Optional<VerificationCode> slotCode(Map<String, Object> slot) {
        return optionalString(slot, CODE).isEmpty() ? Optional.empty() : Optional.of(readCode(slot, EXPIRES_AT));
    }

    /** The digest a code slot names, if any (none once the codes were invalidated). */
    public static Optional<String> currentDigest(Map<String, Object> slot) {
        return optionalString(slot, CURRENT);
    }
}
