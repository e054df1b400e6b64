package dev.verificationservice.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.FailureReason;
import dev.verificationservice.codes.VerificationResult;
import dev.verificationservice.ratelimit.CounterWindow;
import dev.verificationservice.ratelimit.Place;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.VerificationStore;
import dev.verificationservice.store.contract.AbstractVerificationStoreContractTest;
import dev.verificationservice.testsupport.time.MutableClock;
import dev.verificationservice.totp.Confirmation;
import dev.verificationservice.totp.Enrolment;
import dev.verificationservice.totp.Totp;
import dev.verificationservice.totp.TotpAlgorithm;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.apache.commons.codec.binary.Base32;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.core.type.TypeReference;
import tools.jackson.databind.json.JsonMapper;

/**
 * The contract suite on a real SQLite file, plus what only the embedded store has: WAL and the sweep. The file is a
 * new one; {@link SqliteKeyOrderedFileTest} runs all of it again on a file in the earlier layout.
 */
class SqliteVerificationStoreTest extends AbstractVerificationStoreContractTest {

    private static final JsonMapper JSON = JsonMapper.builder().build();

    @TempDir
    Path dataDirectory;

    @Override
    protected VerificationStore openStore(MutableClock clock) {
        // The background sweep never runs during a test; the sweep test calls it directly.
        return SqliteVerificationStore.open(dataDirectory, clock, Duration.ofDays(1), Duration.ofHours(1));
    }

    /** A second store on the file: its writer's BEGIN IMMEDIATE takes the file's lock, as another process's would. */
    @Override
    protected VerificationStore openAnotherInstance(MutableClock clock) {
        return openStore(clock);
    }

    @Override
    public void putRawItem(Map<String, Object> item) {
        ((SqliteVerificationStore) store).putItem(item);
    }

    @Override
    public List<Map<String, Object>> allRawItems() {
        List<Map<String, Object>> items = new ArrayList<>();
        try (Connection connection = openFile(); Statement statement = connection.createStatement();
             ResultSet rows = statement.executeQuery("SELECT item FROM items")) {
            while (rows.next()) {
                items.add(JSON.readValue(rows.getString(1), new TypeReference<LinkedHashMap<String, Object>>() {
                }));
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
        return items;
    }

    private Connection openFile() throws SQLException {
        return DriverManager.getConnection("jdbc:sqlite:" + dataDirectory.resolve(SqliteVerificationStore.DATABASE_FILE));
    }

    @Test
    void theTableIsOneFileInWalMode() throws SQLException {
        assertThat(Files.exists(dataDirectory.resolve("verification.db"))).isTrue();
        try (Connection connection = openFile(); Statement statement = connection.createStatement();
             ResultSet mode = statement.executeQuery("PRAGMA journal_mode")) {
            assertThat(mode.next()).isTrue();
            assertThat(mode.getString(1)).isEqualTo("wal");
        }
    }

    @Test
    void itemsSurviveReopeningTheFile() {
        String code = sendEmailCode("alice");
        store.close();
        store = openStore(clock);
        verification = build(keys, outbox, dev.verificationservice.VerificationSettings.defaults());

        assertThat(verifyEmailCode("alice", code).valid()).isTrue();
    }

    @Test
    void theSweepRemovesOnlyRowsLongPastTheirTtl() {
        String code = sendEmailCode("alice");
        SqliteVerificationStore sqlite = (SqliteVerificationStore) store;

        // Expired 30 minutes ago: within the grace period, kept, and still refused by reads.
        clock.advance(Duration.ofMinutes(45));
        assertThat(sqlite.sweepExpired(clock.instant())).isZero();
        VerificationResult expired = verifyEmailCode("alice", code);
        assertThat(((VerificationResult.Invalid) expired).reason()).isEqualTo(FailureReason.EXPIRED);

        // Now 12:45. The code (ttl 10:15), the 10:00 SEND window (ttl 11:15) and the resend cooldown (ttl
        // 11:00:30) are past the one-hour grace and go; the 10:00 per-target window (an hour long, ttl 12:00), the
        // 10:45 VERIFY window (read by the window after it: ttl 12:15), its count in a row (30 days) and both audit
        // entries (90 days) stay.
        clock.advance(Duration.ofHours(2));
        int swept = sqlite.sweepExpired(clock.instant());
        assertThat(swept).isEqualTo(3);
        assertThat(allRawItems()).hasSize(5)
                .noneSatisfy(item -> assertThat(item.get("codeType")).isEqualTo(CodeType.EMAIL_VERIFICATION.name()));
    }

    @Test
    void theSweepWalksTheWholeTableChunkByChunkAndDeletesOnlyTheExpired() throws SQLException {
        SqliteVerificationStore sqlite = (SqliteVerificationStore) store;
        long now = clock.instant().getEpochSecond();
        int rows = SqliteSweep.CHUNK * 2 + 500;
        int expired = 0;
        try (Connection connection = openFile()) {
            connection.setAutoCommit(false);
            try (PreparedStatement insert = connection.prepareStatement(
                    "INSERT INTO items (pk, sk, ttl, item) VALUES (?, ?, ?, json_object('PK', ?1, 'SK', ?2))")) {
                for (int i = 0; i < rows; i++) {
                    // Every third row expired two hours ago (past the grace), the others alive or without a ttl.
                    String pk = String.format("SWEEPTEST#%05d", i);
                    insert.setString(1, pk);
                    insert.setString(2, "ROW");
                    if (i % 3 == 0) {
                        insert.setLong(3, now - Duration.ofHours(2).toSeconds());
                        expired++;
                    } else if (i % 3 == 1) {
                        insert.setLong(3, now + 60);
                    } else {
                        insert.setNull(3, java.sql.Types.INTEGER);
                    }
                    insert.executeUpdate();
                }
            }
            connection.commit();
        }

        assertThat(sqlite.sweepExpired(clock.instant())).isEqualTo(expired);
        assertThat(allRawItems()).hasSize(rows - expired)
                .noneSatisfy(item -> assertThat(Integer.parseInt(((String) item.get("PK")).substring(10)) % 3)
                        .isZero());
        assertThat(sqlite.sweepExpired(clock.instant())).isZero();
    }

    @Test
    void eachChunkOfTheSweepIsARangeOfTheTableAndNoWriteKeepsATtlIndex() throws SQLException {
        try (Connection connection = openFile(); Statement statement = connection.createStatement()) {
            // A database written by an earlier version has the index; opening it drops it.
            statement.execute("CREATE INDEX items_ttl ON items (ttl) WHERE ttl IS NOT NULL");
            store.close();
            store = openStore(clock);
            try (ResultSet index = statement.executeQuery(
                    "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND name = 'items_ttl'")) {
                assertThat(index.getInt(1)).isZero();
            }
            // Each chunk starts where the last ended: a search of the table in its rows' order, never a scan from the
            // start.
            boolean writeOrder = SqliteSchema.Layout.of(connection) == SqliteSchema.Layout.WRITE_ORDER;
            try (PreparedStatement plan = connection.prepareStatement("EXPLAIN QUERY PLAN "
                    + (writeOrder ? SqliteSweep.NEXT_CHUNK_IN_WRITE_ORDER : SqliteSweep.NEXT_CHUNK_IN_KEY_ORDER));
                 ResultSet steps = plan.executeQuery()) {
                assertThat(steps.next()).isTrue();
                assertThat(steps.getString("detail")).startsWith(writeOrder
                        ? "SEARCH items USING INTEGER PRIMARY KEY (rowid>?)" : "SEARCH items USING PRIMARY KEY");
            }
        }
    }

    @Test
    void aNewFileStoresItsRowsInWriteOrderWithTheKeyAsAUniqueIndexAnEarlierOneAsItWas() throws SQLException {
        try (Connection connection = openFile(); Statement statement = connection.createStatement();
             ResultSet key = statement.executeQuery("SELECT list.\"unique\", group_concat(info.name)"
                     + " FROM pragma_index_list('items') AS list JOIN pragma_index_info(list.name) AS info"
                     + " WHERE list.name = 'items_key'")) {
            assertThat(layoutOfThisTest()).isEqualTo(SqliteSchema.Layout.of(connection));
            assertThat(key.next()).isTrue();
            if (layoutOfThisTest() == SqliteSchema.Layout.WRITE_ORDER) {
                assertThat(key.getInt(1)).isOne();
                assertThat(key.getString(2)).isEqualTo("pk,sk");
            } else {
                // Clustered on the key already: a second copy of it would only cost every write.
                assertThat(key.getString(2)).isNull();
            }
            // Either way one item per key: the conditional writes rest on it.
            putRawItem(Map.of("PK", "KEYTEST", "SK", "ROW", "n", 1));
            putRawItem(Map.of("PK", "KEYTEST", "SK", "ROW", "n", 2));
            assertThat(allRawItems()).filteredOn(item -> "KEYTEST".equals(item.get("PK")))
                    .singleElement().satisfies(item -> assertThat(item).containsEntry("n", 2));
        }
    }

    /** The layout the files of this test class are in: a new file's. */
    SqliteSchema.Layout layoutOfThisTest() {
        return SqliteSchema.Layout.WRITE_ORDER;
    }

    /**
     * Below the items: the bytes of the database and its WAL, where a secret written in clear, even in a row rewritten
     * since, would still stand.
     */
    @Test
    void theDatabaseFilesHoldNoTotpSecretAndNoRecoveryCodeInTheClear() throws Exception {
        Enrolment enrolment = verification.totp().enrol("ivy", Optional.empty(), Optional.empty(), ClientContext.none());
        String code = Totp.code(new Base32().decode(enrolment.secret()), Totp.step(clock.instant(), Totp.DEFAULT_PERIOD),
                TotpAlgorithm.SHA1, Totp.DEFAULT_DIGITS);
        Confirmation confirmation = verification.totp().confirm("ivy", enrolment.factorId(), code, ClientContext.none());
        List<String> recoveryCodes = ((Confirmation.Confirmed) confirmation).recoveryCodes().orElseThrow().codes();

        StringBuilder bytes = new StringBuilder();
        try (Stream<Path> files = Files.list(dataDirectory)) {
            for (Path file : files.toList()) {
                bytes.append(new String(Files.readAllBytes(file), StandardCharsets.ISO_8859_1));
            }
        }

        assertThat(bytes.toString()).contains("TOTP#" + enrolment.factorId())
                .doesNotContain(enrolment.secret().replace("=", ""));
        for (String recoveryCode : recoveryCodes) {
            assertThat(bytes.toString()).doesNotContain(recoveryCode).doesNotContain(recoveryCode.replace("-", ""));
        }
    }

    // Durability and failure (contract §12)

    @Test
    void everyCommitIsSyncedToDiskBeforeItIsAcknowledged() {
        SqliteVerificationStore sqlite = (SqliteVerificationStore) store;
        // 2 = FULL on the pool's connections: with NORMAL alone, a power loss may roll back acknowledged commits.
        assertThat(sqlite.pragma("synchronous")).isEqualTo("2");
        // The writer, which makes every commit, commits with NORMAL (1) and syncs this file's log itself before
        // it answers (GroupCommitWriterTest shows no outcome is handed back before that sync).
        GroupCommitWriter writer = sqlite.writer();
        String writerSetting = writer.run("read the writer's setting", connection -> {
            try (Statement statement = connection.createStatement();
                 ResultSet result = statement.executeQuery("PRAGMA synchronous")) {
                result.next();
                return result.getString(1);
            }
        });
        assertThat(writerSetting).isEqualTo("1");
        assertThat(writer.durability()).isInstanceOfSatisfying(WriteAheadLog.class,
                log -> assertThat(log.file()).isEqualTo(dataDirectory.resolve("verification.db-wal")));
        long syncs = writer.syncs();
        sendEmailCode("alice");
        assertThat(writer.syncs()).isGreaterThan(syncs);
    }

    @Test
    void savepointJournalsStayInMemoryAndTheWriterCheckpointsInItsCommitEveryFewThousandPages() {
        SqliteVerificationStore sqlite = (SqliteVerificationStore) store;
        // 2 = MEMORY: a unit's savepoint journal never spills to a temporary file on the writer's thread.
        assertThat(sqlite.pragma("temp_store")).isEqualTo("2");
        GroupCommitWriter writer = sqlite.writer();
        List<String> writerSettings = writer.run("read the writer's settings", connection -> List.of(
                writerPragma(connection, "temp_store"), writerPragma(connection, "wal_autocheckpoint")));
        assertThat(writerSettings).containsExactly("2", Integer.toString(SqliteTable.WAL_AUTOCHECKPOINT_PAGES));
    }

    private static String writerPragma(Connection connection, String name) throws SQLException {
        try (Statement statement = connection.createStatement();
             ResultSet result = statement.executeQuery("PRAGMA " + name)) {
            result.next();
            return result.getString(1);
        }
    }

    @Test
    void theDatabaseFilesAreOwnerOnlyInADirectoryThatAlreadyExisted() throws Exception {
        // The JUnit temp directory existed before the store opened; the files hold user ids, IPs, push tokens.
        sendEmailCode("alice");
        for (String name : List.of("verification.db", "verification.db-wal", "verification.db-shm")) {
            assertThat(Files.getPosixFilePermissions(dataDirectory.resolve(name)))
                    .as(name).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        }
    }

    @Test
    void aWorldReadableDatabaseFromBeforeIsMadeOwnerOnly(@TempDir Path other) throws Exception {
        Path file = other.resolve(SqliteVerificationStore.DATABASE_FILE);
        Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-r--r--")));

        try (SqliteVerificationStore reopened = SqliteVerificationStore.open(other, clock)) {
            assertThat(Files.getPosixFilePermissions(file)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        }
    }

    @Test
    void aFileThatIsNotADatabaseIsRefusedNamingTheFileAndWhatToDo(@TempDir Path other) throws Exception {
        Path file = other.resolve(SqliteVerificationStore.DATABASE_FILE);
        Files.writeString(file, "this is not a database, it is a note that someone saved here by mistake\n".repeat(20));

        assertThatThrownBy(() -> SqliteVerificationStore.open(other, clock)).isInstanceOf(StoreException.class)
                .hasMessageContaining(file.toAbsolutePath().toString())
                .hasMessageContaining("VERIFICATION_DATA_DIR");
    }

    @Test
    void aLockedDatabaseFailsWithinTheLockWaitIsNotReadyAndRecoversOnItsOwn(@TempDir Path other) throws Exception {
        try (SqliteVerificationStore locked = SqliteVerificationStore.open(other, clock, Duration.ofDays(1),
                Duration.ofHours(1), Duration.ofMillis(300));
             Connection holder = DriverManager.getConnection("jdbc:sqlite:" + other.resolve(SqliteVerificationStore.DATABASE_FILE))) {
            Place place = new Place(new CounterWindow("alice", "SEND_EMAIL_VERIFICATION", START, START.plusSeconds(4500)),
                    "attempt-1");
            try (Statement statement = holder.createStatement()) {
                // Another process holds the write lock (a stuck writer, a backup tool).
                statement.execute("BEGIN EXCLUSIVE");

                assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
                    assertThatThrownBy(locked::checkReady).isInstanceOf(StoreException.class)
                            .hasMessageContaining("readiness");
                    assertThatThrownBy(() -> locked.counters().takePlace(place, 5)).isInstanceOf(StoreException.class);
                });

                statement.execute("COMMIT");
            }
            locked.checkReady();
            assertThat(locked.counters().takePlace(place, 5)).isEqualTo(1);
        }
    }
}
