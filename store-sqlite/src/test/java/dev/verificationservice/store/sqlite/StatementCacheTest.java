package dev.verificationservice.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The prepared statements a connection of the embedded store keeps, on a real SQLite file in WAL mode. */
class StatementCacheTest {

    private static final String SELECT_NAMES = "SELECT name FROM rows ORDER BY name";
    private static final String COUNT = "SELECT count(*) FROM rows";
    private static final String INSERT = "INSERT INTO rows (name) VALUES (?)";

    @TempDir
    Path directory;

    private String url;
    private Connection other;
    private Connection cached;

    @BeforeEach
    void open() throws SQLException {
        url = "jdbc:sqlite:" + directory.resolve("cache.db");
        other = DriverManager.getConnection(url);
        try (Statement statement = other.createStatement()) {
            statement.execute("PRAGMA journal_mode=WAL");
            statement.execute("CREATE TABLE rows (name TEXT PRIMARY KEY)");
            statement.execute("INSERT INTO rows (name) VALUES ('a'), ('b')");
            statement.execute("CREATE TABLE notes (text TEXT)");
        }
        cached = StatementCache.caching(DriverManager.getConnection(url));
    }

    @AfterEach
    void close() throws SQLException {
        cached.close();
        other.close();
    }

    @Test
    void theSameSqlIsCompiledOnceHoweverOftenItIsPreparedAndClosed() throws SQLException {
        for (int i = 0; i < 100; i++) {
            try (PreparedStatement insert = cached.prepareStatement(INSERT)) {
                insert.setString(1, "row-" + i);
                assertThat(insert.executeUpdate()).isEqualTo(1);
            }
        }
        assertThat(count(cached)).isEqualTo(102);
        assertThat(((StatementCache.Compilations) cached).statementsCompiled()).isEqualTo(2);
    }

    @Test
    void aStatementGivenBackWithItsResultsHalfReadDoesNotKeepTheConnectionOnAnOldSnapshot() throws SQLException {
        PreparedStatement select = cached.prepareStatement(SELECT_NAMES);
        ResultSet names = select.executeQuery();
        assertThat(names.next()).isTrue();
        // Given back with its result set open and not read to the end: an SQLite statement that is not reset
        // holds its read transaction, and every later read of the connection would see the table as it was.
        select.close();

        try (Statement insert = other.createStatement()) {
            insert.execute("INSERT INTO rows (name) VALUES ('c')");
        }
        assertThat(count(cached)).isEqualTo(3);
    }

    @Test
    void aStatementPreparedAgainBeforeTheFirstIsClosedIsAnotherOne() throws SQLException {
        try (PreparedStatement outer = cached.prepareStatement(SELECT_NAMES);
             ResultSet outerNames = outer.executeQuery()) {
            assertThat(outerNames.next()).isTrue();
            try (PreparedStatement inner = cached.prepareStatement(SELECT_NAMES);
                 ResultSet innerNames = inner.executeQuery()) {
                assertThat(innerNames.next()).isTrue();
                assertThat(innerNames.getString(1)).isEqualTo("a");
                assertThat(innerNames.next()).isTrue();
            }
            assertThat(outerNames.getString(1)).isEqualTo("a");
            assertThat(outerNames.next()).isTrue();
            assertThat(outerNames.getString(1)).isEqualTo("b");
        }
    }

    @Test
    void aClosedHandleRefusesUseAndClosingItTwiceGivesItBackOnce() throws SQLException {
        PreparedStatement first = cached.prepareStatement(COUNT);
        first.close();
        first.close();
        assertThat(first.isClosed()).isTrue();
        assertThatThrownBy(first::executeQuery).isInstanceOf(SQLException.class).hasMessageContaining("closed");

        // Given back once: two callers at once get two statements, not the same one twice.
        try (PreparedStatement a = cached.prepareStatement(COUNT); PreparedStatement b = cached.prepareStatement(COUNT)) {
            try (ResultSet countA = a.executeQuery()) {
                assertThat(countA.next()).isTrue();
                try (ResultSet countB = b.executeQuery()) {
                    assertThat(countB.next()).isTrue();
                    assertThat(countB.getLong(1)).isEqualTo(2);
                }
                assertThat(countA.getLong(1)).isEqualTo(2);
            }
        }
    }

    @Test
    void parametersOfTheLastUseAreNotCarriedOver() throws SQLException {
        String note = "INSERT INTO notes (text) VALUES (?)";
        try (PreparedStatement insert = cached.prepareStatement(note)) {
            insert.setString(1, "secret of the last caller");
            insert.executeUpdate();
        }
        try (PreparedStatement insert = cached.prepareStatement(note)) {
            // Nothing bound by this caller: the statement refuses, or writes NULL; never the last caller's value.
            try {
                insert.executeUpdate();
            } catch (SQLException refused) {
                // what sqlite-jdbc does
            }
        }
        try (PreparedStatement select = cached.prepareStatement("SELECT count(*) FROM notes WHERE text IS NOT NULL");
             ResultSet result = select.executeQuery()) {
            result.next();
            assertThat(result.getLong(1)).isEqualTo(1);
        }
    }

    private static long count(Connection connection) throws SQLException {
        try (PreparedStatement count = connection.prepareStatement(COUNT); ResultSet result = count.executeQuery()) {
            result.next();
            return result.getLong(1);
        }
    }
}
