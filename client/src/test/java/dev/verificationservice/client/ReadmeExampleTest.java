package dev.verificationservice.client;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.testsupport.docs.ReadmeSnippets;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** The README's Java client example is {@link SignUpFlow}'s file, exactly, and it works against the real server. */
class ReadmeExampleTest {

    private static final Path SOURCE = Path.of("src/test/java/dev/verificationservice/client/SignUpFlow.java");
    private static final Path README = Path.of("../README.md");

    @Test
    void theReadmeShowsExactlyTheCompiledSnippet() throws IOException {
        ReadmeSnippets.assertReadmeShows(README, SOURCE);
    }

    @Test
    void theSnippetWorksAgainstTheRealServer() {
        TestServer server = TestServer.shared();
        server.clock().set(TestServer.START);
        VerificationClient reader = server.client();
        String user = TestServer.newUser();
        String email = TestServer.emailOf(user);

        String outcome = SignUpFlow.signUp(server.uri(), TestServer.API_KEY, user, email, () -> reader.devOutbox()
                .stream().filter(message -> message.to().equals(email)).findFirst().orElseThrow().code());

        assertThat(outcome).startsWith("Verified " + user + "; device laptop-1 remembered until ");
        assertThat(reader.audit().events(AuditQuery.of(user)).map(AuditEvent::eventType).toList())
                .containsExactly("DEVICE_ADDED", "CODE_VERIFIED", "CODE_SENT");
        assertThat(Arrays.asList(outcome.split(" "))).doesNotContain("null");
    }
}
