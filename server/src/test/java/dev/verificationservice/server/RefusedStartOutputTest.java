package dev.verificationservice.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.verificationservice.testsupport.dynamodb.Dynalite;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

/**
 * What an operator sees when the service refuses to start on DynamoDB: the reason, last, and not a wall of
 * Tomcat warnings (one stack trace per AWS SDK thread) before it. Here: a reachable engine without the table,
 * the first thing a new DynamoDB deployment meets.
 */
@ExtendWith(OutputCaptureExtension.class)
class RefusedStartOutputTest {

    @RegisterExtension
    static final Dynalite.Extension DYNALITE = new Dynalite.Extension();

    @Test
    void aRefusedStartPrintsItsReasonLastWithoutTomcatsThreadWarnings(CapturedOutput output) {
        System.setProperty("aws.region", "us-east-1");
        System.setProperty("aws.accessKeyId", "test");
        System.setProperty("aws.secretAccessKey", "test");

        assertThatThrownBy(() -> new SpringApplicationBuilder(VerificationServerApplication.class).run(
                "--server.port=0", "--verification.store=dynamodb",
                "--verification.dynamodb.endpoint=" + DYNALITE.get().endpoint(),
                "--verification.dynamodb.table=refused-start", "--verification.dynamodb.require-ttl=false",
                "--verification.dev-outbox=true",
                "--verification.api-keys=refused-start-app-key-7Qx2mB9vKp4LzR8w",
                "--verification.secret-keys=q8Vv2pXh3bZr6Tn1Ls9Kd4Wm7Fc0Gy5Ju2Ea8Hi3Ox0=",
                "--verification.encryption-keys=6zNRoqN42GRIublz9bAf+g9uqpvm2DUFi1keiY/33xY=")).isInstanceOf(RuntimeException.class);

        List<String> lines = Arrays.stream(output.getAll().split("\\R")).filter(line -> !line.isBlank()).toList();
        assertThat(output.getAll()).doesNotContain("appears to have started a thread");
        // Spring Boot's failure report is the last thing printed: a banner, the description, the action.
        List<String> report = lines.subList(Math.max(0, lines.size() - 7), lines.size());
        assertThat(report.get(1)).isEqualTo("APPLICATION FAILED TO START");
        assertThat(report.get(3)).isEqualTo("Description:");
        assertThat(report.get(4)).contains("'refused-start'").contains("create-table");
        assertThat(report.get(5)).isEqualTo("Action:");
    }
}
