package dev.verificationservice.console;

import dev.verificationservice.security.SecureTokens;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Comparator;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.commons.codec.digest.DigestUtils;

/**
 * The console's signed-in sessions, kept in this process's memory (a restart signs every operator out; behind a
 * load balancer the console needs sticky routing, see docs/decisions/0029-support-console.md).
 *
 * <p>A session is made only by a sign-in with an admin key. Its id is 256 random bits, sent to the browser once
 * as the cookie's value and kept here only as its SHA-256, so a heap dump shows no usable id. The session holds
 * the operator's key id (never the key), its own CSRF token (256 random bits, sent in every form), and a one-shot
 * message shown after an action. It ends after {@code idleTimeout} without a request, {@code maxSessionAge} after
 * sign-in, or at sign-out. Time is the service's clock.
 */
public class ConsoleSessions {

    /** The most sessions kept at once; past it the least recently used goes first. */
    static final int MAX_SESSIONS = 1000;

    /** One signed-in operator. */
    public static final class Session {
        private final String idHash;
        private final String operatorKeyId;
        private final String csrfToken;
        private final Instant createdAt;
        private final AtomicReference<Instant> lastSeenAt;
        private final AtomicReference<Flash> flash = new AtomicReference<>();

        Session(String idHash, String operatorKeyId, String csrfToken, Instant createdAt) {
            this.idHash = idHash;
            this.operatorKeyId = operatorKeyId;
            this.csrfToken = csrfToken;
            this.createdAt = createdAt;
            this.lastSeenAt = new AtomicReference<>(createdAt);
        }

        /** The id of the admin key that signed in ({@code adm-...}): what the audit log records. */
        public String operatorKeyId() {
            return operatorKeyId;
        }

        /** The token every form of this session carries. */
        public String csrfToken() {
            return csrfToken;
        }

        /** True when {@code presented} is this session's CSRF token; compared in constant time. */
        public boolean csrfTokenMatches(String presented) {
            if (presented == null) {
                return false;
            }
            return MessageDigest.isEqual(csrfToken.getBytes(StandardCharsets.UTF_8),
                    presented.getBytes(StandardCharsets.UTF_8));
        }

        /** Keeps a message for the next page this session sees. */
        public void flash(Flash message) {
            flash.set(message);
        }

        /** The kept message, once. */
        public Optional<Flash> takeFlash() {
            return Optional.ofNullable(flash.getAndSet(null));
        }

        @Override
        public String toString() {
            return "ConsoleSession[operatorKeyId=" + operatorKeyId + "]";
        }
    }

    /** What an action did, shown once on the next page: a result, or why nothing was done. */
    public record Flash(boolean error, String text) {
    }

    /** A new session and the cookie value that names it, which exists only in the answer to the sign-in. */
    public record Created(String cookieValue, Session session) {
        @Override
        public String toString() {
            return "Created[" + session + "]";
        }
    }

    private final Map<String, Session> sessions = new ConcurrentHashMap<>();
    private final SecureTokens tokens = new SecureTokens();
    private final Clock clock;
    private final Duration idleTimeout;
    private final Duration maxAge;

    public ConsoleSessions(Clock clock, ConsoleSettings settings) {
        this.clock = clock;
        this.idleTimeout = settings.idleTimeout();
        this.maxAge = settings.maxSessionAge();
    }

    public Duration idleTimeout() {
        return idleTimeout;
    }

    /** Starts a session for the operator whose admin key had this id. */
    public Created create(String operatorKeyId) {
        String cookieValue = tokens.randomToken();
        Session session = new Session(hash(cookieValue), operatorKeyId, tokens.randomToken(), clock.instant());
        if (sessions.size() >= MAX_SESSIONS) {
            evict();
        }
        sessions.put(session.idHash, session);
        return new Created(cookieValue, session);
    }

    /** The live session this cookie value names, now marked as used; empty when there is none or it ended. */
    public Optional<Session> find(String cookieValue) {
        if (cookieValue == null || cookieValue.isEmpty() || cookieValue.length() > 100) {
            return Optional.empty();
        }
        String idHash = hash(cookieValue);
        Session session = sessions.get(idHash);
        if (session == null) {
            return Optional.empty();
        }
        Instant now = clock.instant();
        if (hasEnded(session, now)) {
            sessions.remove(idHash, session);
            return Optional.empty();
        }
        session.lastSeenAt.accumulateAndGet(now, (seen, current) -> current.isAfter(seen) ? current : seen);
        return Optional.of(session);
    }

    /** Signs the session out. */
    public void end(Session session) {
        sessions.remove(session.idHash, session);
    }

    private boolean hasEnded(Session session, Instant now) {
        return !now.isBefore(session.lastSeenAt.get().plus(idleTimeout)) || !now.isBefore(session.createdAt.plus(maxAge));
    }

    /** Drops every ended session and, if still full, the least recently used one. */
    private synchronized void evict() {
        Instant now = clock.instant();
        sessions.values().removeIf(session -> hasEnded(session, now));
        while (sessions.size() >= MAX_SESSIONS) {
            sessions.values().stream().min(Comparator.comparing(session -> session.lastSeenAt.get()))
                    .ifPresent(oldest -> sessions.remove(oldest.idHash, oldest));
        }
    }

    private static String hash(String cookieValue) {
        return DigestUtils.sha256Hex(cookieValue);
    }
}
