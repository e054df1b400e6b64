package dev.verificationservice.codes;

import dev.verificationservice.Verification;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.security.SecureTokens;
import dev.verificationservice.store.memory.MemoryVerificationStore;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link CodeDigests#storedDigest}, the public way to the digest a code is stored under, is the digest issuing
 * stores, and a code written under it by an application that knows its clear text is found valid.
 */
class CodeDigestsTest {

    private static final Instant NOW = Instant.parse("2026-12-01T10:00:00Z");

    private final Clock clock = Clock.fixed(NOW, ZoneOffset.UTC);
    private final MemoryVerificationStore store = new MemoryVerificationStore();
    private final SecureTokens tokens = new SecureTokens();
    private final DevelopmentOutbox outbox = new DevelopmentOutbox(clock);
    private final SecretKeyRing keys = SecretKeyRing.fromBase64(
            List.of(SecretKeyRing.generateBase64Key(new SecureRandom())));
    private final CodeService codes = Verification.builder().store(store).keys(keys).sender(outbox).clock(clock).build()
            .codes();

    private void assertStoredUnderItsStoredDigest(CodeRequest request, CodeFormat format, Optional<String> context) {
        assertThat(codes.issue(request)).isInstanceOf(IssueResult.Issued.class);
        DevelopmentOutbox.Message sent = outbox.messages().get(0);

        String expected = CodeDigests.storedDigest(keys, format, request.userId(), request.codeType(), sent.code(),
                context);

        assertThat(store.codes().findCode(expected)).as("the issued %s code, found by its stored digest", format)
                .hasValueSatisfying(code -> assertThat(code.userId()).isEqualTo(request.userId()));
    }

    @Test
    void anIssuedNumericCodeIsStoredUnderItsStoredDigest() {
        assertStoredUnderItsStoredDigest(
                CodeRequest.of("ada", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL, "ada@example.com"),
                CodeFormat.NUMERIC, Optional.empty());
    }

    @Test
    void anIssuedLinkCodeIsStoredUnderItsStoredDigest() {
        assertStoredUnderItsStoredDigest(
                CodeRequest.of("ada", CodeType.PASSWORD_RESET, DeliveryMethod.EMAIL, "ada@example.com"),
                CodeFormat.LINK, Optional.empty());
    }

    @Test
    void anIssuedCodeWithAContextIsStoredUnderItsStoredDigestWithThatContext() {
        assertStoredUnderItsStoredDigest(
                CodeRequest.of("ada", CodeType.EMAIL_VERIFICATION, DeliveryMethod.EMAIL, "ada@example.com")
                        .withContext("pay 10 EUR to Bob"),
                CodeFormat.NUMERIC, Optional.of("pay 10 EUR to Bob"));
    }

    @Test
    void aCodeWrittenUnderItsStoredDigestChecksValid() {
        String code = "482913";
        String digest = CodeDigests.storedDigest(keys, CodeFormat.NUMERIC, "bob", CodeType.EMAIL_VERIFICATION, code,
                Optional.empty());
        store.codes().placeCode(new VerificationCode(digest, "bob", CodeType.EMAIL_VERIFICATION, CodeFormat.NUMERIC,
                DeliveryMethod.EMAIL, "b***@example.com", false, NOW, NOW.plus(Duration.ofMinutes(15))),
                tokens.attemptId());

        assertThat(codes.verify(VerifyRequest.numeric(code, "bob", CodeType.EMAIL_VERIFICATION)))
                .isInstanceOf(VerificationResult.Valid.class);
    }
}
