package dev.verificationservice.table;

import static dev.verificationservice.table.ItemAttributes.*;
import static dev.verificationservice.table.TableItems.*;

import dev.verificationservice.security.SealedSecret;
import dev.verificationservice.totp.TotpAlgorithm;
import dev.verificationservice.totp.TotpFactor;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/** Authenticator-app factors: the factor item, {@code USER#<userId>} / {@code TOTP#<factorId>}, its secret only sealed. */
public final class TotpItems {

    private TotpItems() {
    }

    /** A factor's item: the secret only sealed; a pending factor has a ttl, a confirmed one none. */
    public static Map<String, Object> totpFactorItem(TotpFactor factor) {
        Map<String, Object> item = keyed(TableKeys.totpFactor(factor.userId(), factor.factorId()));
        item.put(USER_ID, factor.userId());
        item.put(FACTOR_ID, factor.factorId());
        item.put(LABEL, factor.label());
        item.put(ISSUER, factor.issuer());
        item.put(ALGORITHM, factor.algorithm().name());
        item.put(DIGITS, (long) factor.digits());
        item.put(PERIOD, factor.period().getSeconds());
        item.putAll(sealedSecretAttributes(factor.secret()));
        item.put(CONFIRMED, factor.confirmed());
        item.put(CREATED_AT, Timestamps.format(factor.createdAt()));
        item.put(LAST_ACCEPTED_STEP, factor.lastAcceptedStep());
        factor.lastUsedAt().ifPresent(used -> item.put(LAST_USED_AT, Timestamps.format(used)));
        factor.expiresAt().ifPresent(end -> item.put(TTL, epochSeconds(end)));
        return item;
    }

    /** The three attributes that hold a sealed secret (what a re-sealing replaces). */
    public static Map<String, Object> sealedSecretAttributes(SealedSecret secret) {
        Map<String, Object> attributes = new LinkedHashMap<>();
        attributes.put(SECRET_KEY_ID, secret.keyId());
        attributes.put(SECRET_NONCE, secret.nonce());
        attributes.put(SECRET_CIPHERTEXT, secret.ciphertext());
        return attributes;
    }

    public static TotpFactor totpFactor(Map<String, Object> item) {
        return new TotpFactor(
                string(item, USER_ID),
                string(item, FACTOR_ID),
                string(item, LABEL),
                string(item, ISSUER),
                TotpAlgorithm.valueOf(string(item, ALGORITHM)),
                (int) number(item, DIGITS),
                Duration.ofSeconds(number(item, PERIOD)),
                new SealedSecret(string(item, SECRET_KEY_ID), string(item, SECRET_NONCE),
                        string(item, SECRET_CIPHERTEXT)),
                bool(item, CONFIRMED),
                Timestamps.parse(string(item, CREATED_AT)),
                item.get(TTL) instanceof Number ttl ? Optional.of(Instant.ofEpochSecond(ttl.longValue()))
                        : Optional.empty(),
                number(item, LAST_ACCEPTED_STEP),
                optionalString(item, LAST_USED_AT).map(Timestamps::parse));
    }

    /** The attempt that last accepted a step of (or confirmed) this factor, if any did. */
    public static Optional<String> acceptedBy(Map<String, Object> item) {
        return optionalString(item, ACCEPTED_BY);
    }
}
