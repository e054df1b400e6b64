package dev.verificationservice.table;

import static dev.verificationservice.table.ItemAttributes.*;
import static dev.verificationservice.table.TableItems.*;

import dev.verificationservice.sms.SmsFigures;
import dev.verificationservice.sms.SmsRangeMark;
import java.time.Instant;
import java.util.Map;
import java.util.Optional;

/**
 * The operators' registry of number ranges: a mark ({@code SMSRANGES#<kind>#<window>} / {@code RANGE#<prefix>}, or
 * {@code COUNTRY#<region>} for a country's breaker, which has no range attribute), one small item per range or
 * country and window, with a ttl unless it is an allowed range.
 */
public final class SmsRangeItems {

    private SmsRangeItems() {
    }

    public static Map<String, Object> markItem(SmsRangeMark mark) {
        Map<String, Object> item = keyed(TableKeys.smsRangeMark(mark.kind(), mark.window(), mark.key()));
        item.put(SMS_MARK, mark.kind().name());
        item.put(WINDOW_START, Timestamps.format(mark.window()));
        if (!mark.prefix().isEmpty()) {
            item.put(SMS_RANGE, mark.prefix());
        }
        item.put(COUNTRY, mark.country());
        item.put(CREATED_AT, Timestamps.format(mark.at()));
        item.put(SENT, mark.figures().sent());
        item.put(VERIFIED, mark.figures().verified());
        mark.expiresAt().ifPresent(end -> item.put(TTL, epochSeconds(end)));
        mark.operatorKeyId().ifPresent(keyId -> item.put(OPERATOR_KEY_ID, keyId));
        return item;
    }

    public static SmsRangeMark mark(Map<String, Object> item) {
        return new SmsRangeMark(SmsRangeMark.Kind.valueOf(string(item, SMS_MARK)),
                Timestamps.parse(string(item, WINDOW_START)), optionalString(item, SMS_RANGE).orElse(""),
                string(item, COUNTRY),
                Timestamps.parse(string(item, CREATED_AT)), new SmsFigures(number(item, SENT), number(item, VERIFIED)),
                item.get(TTL) instanceof Number ttl ? Optional.of(Instant.ofEpochSecond(ttl.longValue()))
                        : Optional.empty(),
                optionalString(item, OPERATOR_KEY_ID));
    }
}
