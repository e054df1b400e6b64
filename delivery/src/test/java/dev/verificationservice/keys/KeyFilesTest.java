package dev.verificationservice.keys;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.verificationservice.security.SecretKeyRing;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Key files of the embedded mode, on a real directory, without Spring. */
class KeyFilesTest {

    private static final SecureRandom RANDOM = new SecureRandom();

    @TempDir
    Path dir;

    @Test
    void aMissingKeyIsGeneratedOwnerOnlyAndReadBackOnTheNextStart() throws Exception {
        Path file = dir.resolve("keys").resolve("secret-key");

        String generated = KeyFiles.loadOrGenerate(file, RANDOM, "HMAC key", false);

        assertThat(SecretKeyRing.fromBase64(List.of(generated))).isNotNull();
        assertThat(Files.getPosixFilePermissions(file)).isEqualTo(PosixFilePermissions.fromString("rw-------"));
        assertThat(KeyFiles.loadOrGenerate(file, RANDOM, "HMAC key", false)).isEqualTo(generated);
    }

    @Test
    void anEmptyKeyFileIsRefusedWithWhatToDo() throws Exception {
        Path file = Files.writeString(dir.resolve("secret-key"), "  \n");

        assertThatThrownBy(() -> KeyFiles.loadOrGenerate(file, RANDOM, "HMAC key", false))
                .isInstanceOfSatisfying(KeyFileException.class, e -> assertThat(e.action()).contains("Delete it"))
                .hasMessageContaining(file.toAbsolutePath().toString()).hasMessageContaining("is empty");
    }

    @Test
    void startsAtTheSameMomentEndUpWithOneKey() throws Exception {
        Path file = dir.resolve("secret-key");
        int starts = 8;
        CountDownLatch go = new CountDownLatch(1);
        ExecutorService pool = Executors.newFixedThreadPool(starts);
        try {
            List<Future<String>> keys = new ArrayList<>();
            for (int i = 0; i < starts; i++) {
                keys.add(pool.submit(() -> {
                    go.await();
                    return KeyFiles.loadOrGenerate(file, new SecureRandom(), "HMAC key", false);
                }));
            }
            go.countDown();
            Set<String> distinct = keys.stream().map(KeyFilesTest::get).collect(Collectors.toSet());

            assertThat(distinct).hasSize(1);
            assertThat(Files.readString(file).trim()).isEqualTo(distinct.iterator().next());
        } finally {
            pool.shutdownNow();
        }
    }

    private static String get(Future<String> future) {
        try {
            return future.get();
        } catch (Exception e) {
            throw new AssertionError(e);
        }
    }
}
