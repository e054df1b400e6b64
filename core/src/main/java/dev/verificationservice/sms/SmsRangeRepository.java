package dev.verificationservice.sms;

import java.time.Instant;
import java.util.List;

/**
 * Storage SPI of the operators' registry of number ranges ({@link SmsRangeMark}): one partition per kind and
 * window, one small item per range in it. Written rarely (a breaker opening, a range crossing the watch figure once
 * a window, an operator's allow), never at the request rate. Every write is correct when it runs twice.
 */
public interface SmsRangeRepository {

    /** Writes the mark under its kind, window and prefix, replacing one there: run twice, the same item. */
    void putMark(SmsRangeMark mark);

    /**
     * The marks of one kind and window that are live at {@code now} ({@link SmsRangeMark#liveAt}; the reader checks
     * expiry itself), by prefix, at most {@code limit}: one query on one partition.
     */
    List<SmsRangeMark> findMarks(SmsRangeMark.Kind kind, Instant window, Instant now, int limit);

    /** Deletes one mark; whether it was there. Run twice, it deletes nothing more. */
    boolean deleteMark(SmsRangeMark.Kind kind, Instant window, String prefix);
}
