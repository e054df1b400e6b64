package dev.verificationservice.bench;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.verificationservice.Verification;
import dev.verificationservice.spring.security.LoginAccount;
import dev.verificationservice.spring.security.LoginAccounts;
import dev.verificationservice.spring.security.LoginLinkSender;
import dev.verificationservice.spring.security.LoginProperties;
import dev.verificationservice.spring.security.VerificationOneTimeTokenService;
import dev.verificationservice.store.sqlite.SqliteVerificationStore;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.springframework.core.io.ClassPathResource;
import org.springframework.jdbc.core.JdbcTemplate;
import org.springframework.mock.web.MockHttpServletRequest;
import org.springframework.mock.web.MockHttpServletResponse;
import org.springframework.security.authentication.ott.GenerateOneTimeTokenRequest;
import org.springframework.security.authentication.ott.JdbcOneTimeTokenService;
import org.springframework.security.authentication.ott.OneTimeToken;
import org.springframework.security.authentication.ott.OneTimeTokenAuthenticationToken;
import org.springframework.security.authentication.ott.OneTimeTokenService;
import org.sqlite.SQLiteConfig;
import org.sqlite.SQLiteDataSource;

/**
 * Spring Security's one-time-token login, side by side: generate + consume pairs per second through the
 * {@link OneTimeTokenService} interface, this store against Spring Security's {@link JdbcOneTimeTokenService}, in
 * the same run, at the same concurrency, on the same kind of SQLite file with the same durability (WAL, every
 * commit on disk before it is acknowledged: Spring's connections with {@code synchronous=FULL}, this store's
 * writer by its own sync of the log before it answers; the same lock wait; Spring's schema from its own DDL
 * resource).
 *
 * <p>A pair of this store is everything a login by link costs it: {@code generate} (which makes nothing) and the
 * link sender's {@code handle} with its work run on the calling thread (the account looked up, the send limits,
 * the resend cooldown and the per-address and per-IP limits counted, the code's HMAC stored, {@code CODE_SENT}
 * audited, the message handed to a sender that keeps it), then {@code consume} (the core's verify: the digest
 * looked up, used up by one atomic write, {@code CODE_VERIFIED} audited). A pair of Spring's is an INSERT of the
 * token in clear, then a SELECT and a DELETE. Each pair is a new username (and client address), as a limit would
 * refuse the second link of one user within its cooldown.
 *
 * <p>The two alternate, round after round, in a rotating order (this machine's other work drifts over minutes;
 * interleaving compares the services, not the drift); the first round warms up and is not counted. The score is
 * the median of the rounds' pairs per second.
 */
final class OttComparison {

    /** The medians of one concurrency, in pairs per second, and the pairs that failed with an exception. */
    record Result(int threads, double ours, double spring, int rounds, long oursFailed, long springFailed) {
        double ratio() {
            return ours / spring;
        }

        @Override
        public String toString() {
            return String.format(Locale.ROOT, "%d thread(s): this store %.0f pairs/s, JdbcOneTimeTokenService %.0f "
                    + "pairs/s, ratio %.2fx (%d rounds; failed pairs: %d and %d)", threads, ours, spring, ratio(),
                    rounds, oursFailed, springFailed);
        }
    }

    /** One generate + consume pair; {@code n} is unique in the run. */
    private interface Pair {
        void run(long n);
    }

    /** A side of the comparison; {@code writes} counts its store's write transactions and commits, if it can. */
    private record Side(String name, Pair pair, List<Double> perSecond, Supplier<long[]> writes, AtomicLong failed) {
    }

    /** How many pairs succeeded and failed, in how many seconds. */
    private record Measured(long pairs, long failed, double seconds) {
        double perSecond() {
            return pairs / seconds;
        }
    }

    private static final AtomicLong USERS = new AtomicLong();

    private OttComparison() {
    }

    static List<Result> run(List<Integer> concurrencies, int rounds, long roundMillis, Consumer<String> log) {
        List<Result> results = new ArrayList<>();
        for (int threads : concurrencies) {
            try (Ours ours = new Ours(); Spring spring = new Spring(Math.max(threads, 1))) {
                List<Side> sides = List.of(new Side("this store", ours::pair, new ArrayList<>(), ours::writes,
                        new AtomicLong()), new Side("JdbcOneTimeTokenService", spring::pair, new ArrayList<>(),
                        () -> null, new AtomicLong()));
                for (int round = -1; round < rounds; round++) {
                    for (int i = 0; i < sides.size(); i++) {
                        Side side = sides.get((i + Math.max(round, 0)) % sides.size());
                        long[] before = side.writes().get();
                        Measured measured = measure(side.pair(), threads, roundMillis);
                        if (round >= 0) {
                            side.perSecond().add(measured.perSecond());
                            side.failed().addAndGet(measured.failed());
                        }
                        log.accept(String.format(Locale.ROOT, "  %d thread(s), round %d, %s: %.0f pairs/s, %d failed%s",
                                threads, round + 1, side.name(), measured.perSecond(), measured.failed(),
                                writesPerPair(before, side.writes().get(), measured.pairs() + measured.failed())));
                    }
                }
                Result result = new Result(threads, median(sides.get(0).perSecond()), median(sides.get(1).perSecond()),
                        rounds, sides.get(0).failed().get(), sides.get(1).failed().get());
                log.accept(result.toString());
                results.add(result);
            }
        }
        return results;
    }

    /**
     * Where this store's time goes: write transactions and COMMITs (each one sync of the file) per pair; Spring's
     * pair is two autocommit writes (INSERT, DELETE), so two commits.
     */
    private static String writesPerPair(long[] before, long[] after, long pairs) {
        if (before == null || pairs == 0) {
            return "";
        }
        return String.format(Locale.ROOT, " (%.1f write transactions, %.1f commits per pair)",
                (after[0] - before[0]) / (double) pairs, (after[1] - before[1]) / (double) pairs);
    }

    /** The pairs {@code threads} threads run in {@code millis}. */
    private static Measured measure(Pair pair, int threads, long millis) {
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        try {
            CountDownLatch start = new CountDownLatch(1);
            AtomicLong done = new AtomicLong();
            AtomicLong failed = new AtomicLong();
            long[] window = new long[2];
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                workers.add(pool.submit(() -> {
                    start.await();
                    long deadline = window[0] + millis * 1_000_000;
                    while (System.nanoTime() < deadline) {
                        try {
                            pair.run(USERS.incrementAndGet());
                            done.incrementAndGet();
                        } catch (RuntimeException e) {
                            // The store refused (SQLite's lock wait passed under load, for example): a pair that
                            // did not log in, counted apart. A wrong answer is an AssertionError and ends the run.
                            if (failed.incrementAndGet() == 1) {
                                System.err.println("first failed pair: " + e);
                            }
                        }
                    }
                    return null;
                }));
            }
            window[0] = System.nanoTime();
            start.countDown();
            for (Future<?> worker : workers) {
                worker.get();
            }
            window[1] = System.nanoTime();
            return new Measured(done.get(), failed.get(), (window[1] - window[0]) / 1e9);
        } catch (Exception e) {
            throw new IllegalStateException("a worker failed", e);
        } finally {
            pool.shutdownNow();
        }
    }

    private static double median(List<Double> values) {
        List<Double> sorted = new ArrayList<>(values);
        sorted.sort(Double::compare);
        return sorted.get(sorted.size() / 2);
    }

    /** The results as the suite's report shows them. */
    static String table(List<Result> results) {
        StringBuilder out = new StringBuilder("## Spring Security one-time tokens: generate + consume pairs per second\n\n"
                + "| Threads | This store (embedded, FULL) | JdbcOneTimeTokenService (SQLite, FULL) | Ratio | Failed pairs |\n"
                + "|---|---|---|---|---|\n");
        for (Result result : results) {
            out.append(String.format(Locale.ROOT, "| %d | %.0f | %.0f | %.2fx | %d and %d |%n", result.threads(),
                    result.ours(), result.spring(), result.ratio(), result.oursFailed(), result.springFailed()));
        }
        return out.toString();
    }

    /** The starter's token service and link sender on the embedded store, the link's work on the calling thread. */
    private static final class Ours implements AutoCloseable {
        private final BenchStores.Opened opened = BenchStores.embedded(BenchStores.temporaryDirectory());
        private final Fixtures.KeepingSender sent = new Fixtures.KeepingSender();
        private final OneTimeTokenService tokens;
        private final LoginLinkSender links;

        Ours() {
            Verification verification = Fixtures.verification(opened.store, sent);
            LoginAccounts accounts = new LoginAccounts() {
                @Override
                public Optional<LoginAccount> findByUsername(String username) {
                    return Optional.of(new LoginAccount(username, username + "@example.com"));
                }

                @Override
                public Optional<String> usernameOf(String userId) {
                    return Optional.of(userId);
                }
            };
            LoginProperties properties = new LoginProperties("Sign in", "/ott/sent", LoginProperties.DEFAULT_LINK_URL,
                    true);
            tokens = new VerificationOneTimeTokenService(verification.codes(), accounts, Optional.empty(), properties,
                    Clock.systemUTC(), Fixtures.CODE_TTL);
            links = new LoginLinkSender(verification.codes(), accounts, properties, Runnable::run, Optional.empty(),
                    Clock.systemUTC());
        }

        void pair(long n) {
            String username = "ott-" + n;
            OneTimeToken pending = tokens.generate(new GenerateOneTimeTokenRequest(username));
            MockHttpServletRequest request = new MockHttpServletRequest("POST", "/ott/generate");
            // A client address per pair, as many people log in from many addresses (the per-IP limit holds).
            request.setRemoteAddr("10." + (n >> 16 & 0xff) + "." + (n >> 8 & 0xff) + "." + (n & 0xff));
            try {
                links.handle(request, new MockHttpServletResponse(), pending);
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            check(tokens.consume(new OneTimeTokenAuthenticationToken(sent.lastCode(username))), username);
        }

        long[] writes() {
            return SqliteFiles.writerCounts((SqliteVerificationStore) opened.store);
        }

        @Override
        public void close() {
            opened.close();
        }
    }

    /** Spring Security's JDBC token service on a SQLite file opened as the embedded store opens its own. */
    private static final class Spring implements AutoCloseable {
        private final HikariDataSource dataSource;
        private final JdbcOneTimeTokenService tokens;

        Spring(int poolSize) {
            Path file = BenchStores.temporaryDirectory().resolve("spring-ott.db");
            SQLiteConfig config = new SQLiteConfig();
            config.setJournalMode(SQLiteConfig.JournalMode.WAL);
            config.setSynchronous(SQLiteConfig.SynchronousMode.FULL);
            config.setBusyTimeout((int) SqliteVerificationStore.DEFAULT_LOCK_WAIT.toMillis());
            SQLiteDataSource sqlite = new SQLiteDataSource(config);
            sqlite.setUrl("jdbc:sqlite:" + file);
            HikariConfig pool = new HikariConfig();
            pool.setDataSource(sqlite);
            pool.setMaximumPoolSize(poolSize);
            dataSource = new HikariDataSource(pool);
            JdbcTemplate jdbc = new JdbcTemplate(dataSource);
            try {
                jdbc.execute(new ClassPathResource("org/springframework/security/core/ott/jdbc/one-time-tokens-schema.sql")
                        .getContentAsString(StandardCharsets.UTF_8));
            } catch (IOException e) {
                throw new IllegalStateException("Spring Security's one-time-token schema is not on the class path", e);
            }
            checkDurability();
            tokens = new JdbcOneTimeTokenService(jdbc);
        }

        /** The same journal and sync as the embedded store's, as every pooled connection reports them. */
        private void checkDurability() {
            try (Connection connection = dataSource.getConnection(); Statement statement = connection.createStatement()) {
                String journal = single(statement, "PRAGMA journal_mode");
                String synchronous = single(statement, "PRAGMA synchronous");
                if (!journal.equalsIgnoreCase("wal") || !synchronous.equals("2")) {
                    throw new IllegalStateException("Spring's file is not WAL with synchronous=FULL (2): " + journal
                            + ", " + synchronous);
                }
            } catch (SQLException e) {
                throw new IllegalStateException(e);
            }
        }

        private static String single(Statement statement, String query) throws SQLException {
            try (ResultSet result = statement.executeQuery(query)) {
                result.next();
                return result.getString(1);
            }
        }

        void pair(long n) {
            String username = "ott-" + n;
            OneTimeToken token = tokens.generate(new GenerateOneTimeTokenRequest(username));
            check(tokens.consume(new OneTimeTokenAuthenticationToken(token.getTokenValue())), username);
        }

        @Override
        public void close() {
            try {
                tokens.destroy(); // its hourly clean-up task
            } catch (Exception e) {
                throw new IllegalStateException(e);
            } finally {
                dataSource.close();
            }
        }
    }

    private static void check(OneTimeToken consumed, String username) {
        if (consumed == null || !consumed.getUsername().equals(username)) {
            throw new AssertionError("a fresh token did not log " + username + " in: " + consumed);
        }
    }
}
