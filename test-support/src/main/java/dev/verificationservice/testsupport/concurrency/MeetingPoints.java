package dev.verificationservice.testsupport.concurrency;

import dev.verificationservice.testsupport.proxies.Interposed;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

/**
 * Makes calls meet, so that a race a test needs is made, not hoped for: a proxy of an interface holds each call of
 * one method whose key (read from its arguments) a test has armed with {@link #meet}, until that many calls of the
 * key have arrived, then lets them on together; later calls of the key, and calls of other keys, pass at once.
 * Several proxies (over several instances of one service) share one {@code MeetingPoints}; a store's port behind one
 * goes back into the store with {@link Interposed#withPort}. A call left waiting
 * fails after {@link #BOUND}: that bounds a hang when the others never come.
 */
public final class MeetingPoints {

    /** How long a held call waits for the others: it bounds a hang, it measures nothing. */
    public static final Duration BOUND = Duration.ofMinutes(2);

    private final Map<Object, Point> armed = new ConcurrentHashMap<>();

    /** The next {@code parties} calls of {@code key} wait for one another. */
    public void meet(Object key, int parties) {
        armed.put(key, new Point(parties));
    }

    /**
     * {@code target} behind a proxy of {@code type} whose calls of {@code method} meet when {@code keyOf} of their
     * arguments was armed; every other call goes straight to {@code target}.
     */
    public <T> T around(Class<T> type, T target, String method, Function<Object[], Object> keyOf) {
        return type.cast(Proxy.newProxyInstance(type.getClassLoader(), new Class<?>[] {type},
                (proxy, called, args) -> {
                    if (called.getName().equals(method) && called.getDeclaringClass() != Object.class) {
                        Point point = armed.get(keyOf.apply(args));
                        if (point != null) {
                            point.arrive();
                        }
                    }
                    return Interposed.invoke(target, called, args);
                }));
    }

    private static final class Point {
        private final int parties;
        private final CountDownLatch arrived;
        private final AtomicInteger admitted = new AtomicInteger();

        Point(int parties) {
            this.parties = parties;
            this.arrived = new CountDownLatch(parties);
        }

        void arrive() throws InterruptedException {
            if (admitted.incrementAndGet() > parties) {
                return;
            }
            arrived.countDown();
            if (!arrived.await(BOUND.toMillis(), TimeUnit.MILLISECONDS)) {
                throw new IllegalStateException("only " + (parties - arrived.getCount()) + " of " + parties
                        + " calls arrived together");
            }
        }
    }
}
