package dev.verificationservice.store.sqlite;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.sqlite.SQLiteJDBCLoader;

/** The driver check of the embedded store: which versions it refuses, and what its refusal says. */
class SqliteDriverTest {

    @Test
    void theMinimumIsTheDriverTheBuildTestsWith() {
        assertThat(SQLiteJDBCLoader.getVersion())
                .as("the sqlite-jdbc of this build (sqlite-jdbc.version in the parent POM); raise MINIMUM with it")
                .isEqualTo(SqliteDriver.MINIMUM);
        assertThat(SqliteDriver.refusal(SQLiteJDBCLoader.getVersion())).isEmpty();
    }

    @Test
    void anOlderDriverIsRefusedNamingTheVersionFoundTheOneNeededAndTheProperty() {
        Optional<String> refusal = SqliteDriver.refusal("3.50.3.0");

        assertThat(refusal).hasValueSatisfying(message -> assertThat(message)
                .contains("3.50.3.0")
                .contains("org.xerial:sqlite-jdbc " + SqliteDriver.MINIMUM + " or newer")
                .contains("<sqlite-jdbc.version>" + SqliteDriver.MINIMUM + "</sqlite-jdbc.version>"));
    }

    @Test
    void eachPartOfTheVersionCountsAsANumber() {
        assertThat(SqliteDriver.refusal("3.54.0.9")).isPresent();
        assertThat(SqliteDriver.refusal("3.9.9.9")).isPresent();
        assertThat(SqliteDriver.refusal("2.99.99.99")).isPresent();
        assertThat(SqliteDriver.refusal("3.54.1")).as("3.54.1 is 3.54.1.0").isEmpty();
        assertThat(SqliteDriver.refusal("3.54.1.1")).isEmpty();
        assertThat(SqliteDriver.refusal("3.100.0.0")).as("not compared as text").isEmpty();
        assertThat(SqliteDriver.refusal("4.0")).isEmpty();
    }

    @Test
    void aVersionThatCannotBeReadIsNotRefused() {
        assertThat(SqliteDriver.parse("unknown")).isEmpty();
        assertThat(SqliteDriver.refusal("unknown")).isEmpty();
        assertThat(SqliteDriver.refusal(null)).isEmpty();
        assertThat(SqliteDriver.parse(" 3.54.1.0 ")).hasValueSatisfying(parts ->
                assertThat(parts).containsExactly(3, 54, 1, 0));
    }
}
