package dev.verificationservice.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.server.delivery.OutboxController;
import java.io.IOException;
import java.lang.reflect.RecordComponent;
import java.nio.file.Files;
import java.util.Arrays;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/**
 * docs/api.md's row of {@code GET /dev/outbox} names every field of a message as the endpoint writes it (the
 * components of the record Jackson writes, in their order), and no other.
 */
class OutboxReferenceTest {

    private static final Pattern MESSAGE_FIELDS = Pattern.compile("\\{messages: \\[\\{([^}]*)}]}");

    @Test
    void theApiReferenceListsEveryFieldOfAnOutboxMessage() throws IOException {
        String row = Files.readAllLines(ProjectFiles.apiReference()).stream()
                .filter(line -> line.startsWith("| `GET /dev/outbox` |")).findFirst().orElseThrow();
        Matcher fields = MESSAGE_FIELDS.matcher(row);
        assertThat(fields.find()).as("the answer's fields in: %s", row).isTrue();
        List<String> listed = Arrays.stream(fields.group(1).split(",")).map(String::strip).toList();
        assertThat(listed).containsExactlyElementsOf(Arrays.stream(
                OutboxController.OutboxMessage.class.getRecordComponents()).map(RecordComponent::getName).toList());
    }
}
