package dev.verificationservice.spring.store;

import dev.verificationservice.sms.SmsRangeMark;
import dev.verificationservice.sms.SmsRangeRepository;
import java.time.Instant;
import java.util.List;

/** The store's registry of number ranges, each call timed. */
record MeteredSmsRanges(SmsRangeRepository ranges, StoreTimers.Port timer) implements SmsRangeRepository {

    @Override
    public void putMark(SmsRangeMark mark) {
        timer.run("putMark", () -> ranges.putMark(mark));
    }

    @Override
    public List<SmsRangeMark> findMarks(SmsRangeMark.Kind kind, Instant window, Instant now, int limit) {
        return timer.time("findMarks", () -> ranges.findMarks(kind, window, now, limit));
    }

    @Override
    public boolean deleteMark(SmsRangeMark.Kind kind, Instant window, String key) {
        return timer.time("deleteMark", () -> ranges.deleteMark(kind, window, key));
    }
}
