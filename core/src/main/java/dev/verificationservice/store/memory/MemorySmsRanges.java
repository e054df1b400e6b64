package dev.verificationservice.store.memory;

import dev.verificationservice.sms.SmsRangeMark;
import dev.verificationservice.sms.SmsRangeRepository;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/** The registry of number ranges in memory: marks by kind, window and key, under the store's lock. */
final class MemorySmsRanges implements SmsRangeRepository {

    private record Key(SmsRangeMark.Kind kind, Instant window, String key) implements Comparable<Key> {
        @Override
        public int compareTo(Key other) {
            int byKind = kind.compareTo(other.kind);
            int byWindow = byKind != 0 ? byKind : window.compareTo(other.window);
            return byWindow != 0 ? byWindow : key.compareTo(other.key);
        }
    }

    private final Object lock;
    private final TreeMap<Key, SmsRangeMark> marks = new TreeMap<>();

    MemorySmsRanges(Object lock) {
        this.lock = lock;
    }

    @Override
    public void putMark(SmsRangeMark mark) {
        synchronized (lock) {
            marks.put(new Key(mark.kind(), mark.window(), mark.key()), mark);
        }
    }

    @Override
    public List<SmsRangeMark> findMarks(SmsRangeMark.Kind kind, Instant window, Instant now, int limit) {
        synchronized (lock) {
            List<SmsRangeMark> found = new ArrayList<>();
            for (SmsRangeMark mark : marks.values()) {
                if (mark.kind() == kind && mark.window().equals(window) && mark.liveAt(now) && found.size() < limit) {
                    found.add(mark);
                }
            }
            return found;
        }
    }

    @Override
    public boolean deleteMark(SmsRangeMark.Kind kind, Instant window, String key) {
        synchronized (lock) {
            return marks.remove(new Key(kind, window, key)) != null;
        }
    }

    List<SmsRangeMark> all() {
        synchronized (lock) {
            return List.copyOf(marks.values());
        }
    }
}
