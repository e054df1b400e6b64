package dev.verificationservice.sms;

import java.time.Instant;
import java.util.List;

/**
 * Storage SPI of the operators' registry of number ranges ({@link SmsRangeMark}): one partition per kind and
 * window, one small item per range (or country, {@link SmsRangeMark#key}) in it. Written rarely (a range's or a
 * country's breaker opening, a range crossing the watch figure once a window, an operator's allow), never at the
 * request rate. Every write is correct when it runs twice.
 */
public interface SmsRangeRepository {

    /** Writes the mark under its kind, window and key, replacing one there: run twice, the same item. */
    void putMark(SmsRangeMark mark);

    /**
     * The marks of one kind and window that are live at {@code now} ({@link SmsRangeMark#liveAt}; the reader checks
     * expiry itself), by key, at most {@code limit}: one query on one partition.
     */
    List<SmsRangeMark> findMarks(SmsRangeMark.Kind kind, Instant window, Instant now, int limit);

    /** Deletes the mark of {@code key} ({@link SmsRangeMark#key}); whether it was there. Run twice, nothing more. */
    boolean deleteMark(SmsRangeMark.Kind kind, Instant window, String key);
}
