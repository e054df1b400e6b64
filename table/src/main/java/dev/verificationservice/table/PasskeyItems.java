package dev.verificationservice.table;

import static dev.verificationservice.table.ItemAttributes.AAGUID;
import static dev.verificationservice.table.ItemAttributes.BACKED_UP;
import static dev.verificationservice.table.ItemAttributes.BACKUP_ELIGIBLE;
import static dev.verificationservice.table.ItemAttributes.CONSUMED_BY;
import static dev.verificationservice.table.ItemAttributes.CREATED_AT;
import static dev.verificationservice.table.ItemAttributes.CREDENTIAL_ID;
import static dev.verificationservice.table.ItemAttributes.CREDENTIAL_IDS;
import static dev.verificationservice.table.ItemAttributes.LABEL;
import static dev.verificationservice.table.ItemAttributes.LAST_USED_AT;
import static dev.verificationservice.table.ItemAttributes.PUBLIC_KEY;
import static dev.verificationservice.table.ItemAttributes.PURPOSE;
import static dev.verificationservice.table.ItemAttributes.SIGN_COUNT;
import static dev.verificationservice.table.ItemAttributes.TRANSPORTS;
import static dev.verificationservice.table.ItemAttributes.TTL;
import static dev.verificationservice.table.ItemAttributes.USER_HANDLE;
import static dev.verificationservice.table.ItemAttributes.USER_ID;
import static dev.verificationservice.table.ItemAttributes.USER_VERIFIED;
import static dev.verificationservice.table.TableItems.bool;
import static dev.verificationservice.table.TableItems.epochSeconds;
import static dev.verificationservice.table.TableItems.keyed;
import static dev.verificationservice.table.TableItems.number;
import static dev.verificationservice.table.TableItems.optionalString;
import static dev.verificationservice.table.TableItems.string;

import dev.verificationservice.passkeys.Passkey;
import dev.verificationservice.passkeys.PasskeyChallenge;
import java.time.Instant;
import java.util.Arrays;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

/**
 * Passkeys: the challenge ({@code PASSKEYCHALLENGE#<challenge>}, with its ttl), the user's handle and credential
 * ids ({@code USER#<userId>} / {@code PASSKEYUSER}, bounded by the cap) and the credential
 * ({@code PASSKEY#<credentialId>}). Lists are single strings, so every store holds them the same way.
 */
public final class PasskeyItems {

    private PasskeyItems() {
    }

    public static Map<String, Object> challengeItem(PasskeyChallenge challenge) {
        Map<String, Object> item = keyed(TableKeys.passkeyChallenge(challenge.challenge()));
        item.put(PURPOSE, challenge.purpose().name());
        challenge.userId().ifPresent(user -> item.put(USER_ID, user));
        challenge.userHandle().ifPresent(handle -> item.put(USER_HANDLE, handle));
        challenge.consumedBy().ifPresent(attempt -> item.put(CONSUMED_BY, attempt));
        item.put(TTL, epochSeconds(challenge.expiresAt()));
        return item;
    }

    public static PasskeyChallenge challenge(Map<String, Object> item) {
        String pk = string(item, ItemAttributes.PK);
        return new PasskeyChallenge(pk.substring(TableKeys.PASSKEY_CHALLENGE.length()),
                PasskeyChallenge.Purpose.valueOf(string(item, PURPOSE)), optionalString(item, USER_ID),
                optionalString(item, USER_HANDLE), Instant.ofEpochSecond(number(item, TTL)),
                optionalString(item, CONSUMED_BY));
    }

    public static Map<String, Object> userItem(String userId, String userHandle, List<String> credentialIds) {
        Map<String, Object> item = keyed(TableKeys.passkeyUser(userId));
        item.put(USER_HANDLE, userHandle);
        item.put(CREDENTIAL_IDS, String.join(" ", credentialIds));
        return item;
    }

    public static String userHandle(Map<String, Object> userItem) {
        return string(userItem, USER_HANDLE);
    }

    public static List<String> credentialIds(Map<String, Object> userItem) {
        String ids = optionalString(userItem, CREDENTIAL_IDS).orElse("");
        return ids.isEmpty() ? List.of() : List.of(ids.split(" "));
    }

    public static Map<String, Object> passkeyItem(Passkey passkey) {
        Map<String, Object> item = keyed(TableKeys.passkey(passkey.credentialId()));
        item.put(USER_ID, passkey.userId());
        item.put(CREDENTIAL_ID, passkey.credentialId());
        item.put(USER_HANDLE, passkey.userHandle());
        item.put(LABEL, passkey.label());
        item.put(PUBLIC_KEY, Base64.getUrlEncoder().withoutPadding().encodeToString(passkey.publicKey()));
        item.put(SIGN_COUNT, passkey.signCount());
        item.put(TRANSPORTS, passkey.transports().stream().sorted().collect(Collectors.joining(",")));
        item.put(BACKUP_ELIGIBLE, passkey.backupEligible());
        item.put(BACKED_UP, passkey.backedUp());
        item.put(USER_VERIFIED, passkey.userVerified());
        item.put(AAGUID, passkey.aaguid());
        item.put(CREATED_AT, Timestamps.format(passkey.createdAt()));
        passkey.lastUsedAt().ifPresent(used -> item.put(LAST_USED_AT, Timestamps.format(used)));
        return item;
    }

    public static Passkey passkey(Map<String, Object> item) {
        String transports = optionalString(item, TRANSPORTS).orElse("");
        return new Passkey(string(item, USER_ID), string(item, CREDENTIAL_ID), string(item, USER_HANDLE),
                string(item, LABEL), Base64.getUrlDecoder().decode(string(item, PUBLIC_KEY)), number(item, SIGN_COUNT),
                transports.isEmpty() ? Set.of() : Set.copyOf(Arrays.asList(transports.split(","))),
                bool(item, BACKUP_ELIGIBLE), bool(item, BACKED_UP), bool(item, USER_VERIFIED), string(item, AAGUID),
                Timestamps.parse(string(item, CREATED_AT)), optionalString(item, LAST_USED_AT).map(Timestamps::parse));
    }
}
