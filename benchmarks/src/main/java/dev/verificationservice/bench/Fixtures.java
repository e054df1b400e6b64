package dev.verificationservice.bench;

import dev.verificationservice.Verification;
import dev.verificationservice.codes.CodeDigests;
import dev.verificationservice.codes.CodeFormat;
import dev.verificationservice.codes.CodeSender;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.OutgoingCode;
import dev.verificationservice.codes.VerificationCode;
import dev.verificationservice.security.EncryptionKeyRing;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.security.SecureTokens;
import dev.verificationservice.VerificationStore;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/** Keys, codes whose clear text is known, and a sender that keeps what it would send: the benchmarks' data. */
public final class Fixtures {

    /** The HMAC key of every benchmark (and of the servers the load run starts); not a secret of anything. */
    public static final String HMAC_KEY = "YmVuY2htYXJrLWhtYWMta2V5LTAxMjM0NTY3ODlhYmNkZWY=";
    /** The AES-256 key TOTP secrets are sealed with (required on DynamoDB). */
    public static final String ENCRYPTION_KEY = "6zNRoqN42GRIublz9bAf+g9uqpvm2DUFi1keiY/33xY=";
    public static final String API_KEY = "bench-api-key-0123456789abcdefghijklmnop";
    public static final SecretKeyRing KEYS = SecretKeyRing.fromBase64(List.of(HMAC_KEY));
    public static final Duration CODE_TTL = Duration.ofMinutes(15);

    private static final SecureTokens TOKENS = new SecureTokens();

    private Fixtures() {
    }

    /** A code in clear text and the item that stores it. */
    public record KnownCode(String userId, CodeType type, CodeFormat format, String code, VerificationCode stored) {
    }

    /** A NUMERIC email-verification code of the user, valid for 15 minutes from now. */
    public static KnownCode numeric(String userId) {
        return code(userId, CodeType.EMAIL_VERIFICATION, CodeFormat.NUMERIC, TOKENS.numericCode(6));
    }

    /** A LINK password-reset code of the user, valid for 15 minutes from now. */
    public static KnownCode link(String userId) {
        return code(userId, CodeType.PASSWORD_RESET, CodeFormat.LINK, TOKENS.randomToken());
    }

    private static KnownCode code(String userId, CodeType type, CodeFormat format, String code) {
        Instant now = Instant.ofEpochMilli(System.currentTimeMillis());
        Instant expiresAt = Instant.ofEpochSecond(now.plus(CODE_TTL).getEpochSecond());
        String digest = CodeDigests.storedDigest(KEYS, format, userId, type, code, Optional.empty());
        return new KnownCode(userId, type, format, code, new VerificationCode(digest, userId, type, format,
                DeliveryMethod.EMAIL, "b***@example.com", false, now, expiresAt));
    }

    /**
     * A code item to fill a table with: the same attributes and sizes as a real one, with a random digest drawn
     * from a fast generator instead of an HMAC (nobody verifies it; it only makes the table as large as asked).
     */
    public static VerificationCode filler(String userId) {
        java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
        byte[] bytes = new byte[32];
        random.nextBytes(bytes);
        String digest = java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
        Instant now = Instant.ofEpochMilli(System.currentTimeMillis());
        return new VerificationCode(digest, userId, CodeType.EMAIL_VERIFICATION, CodeFormat.NUMERIC, DeliveryMethod.EMAIL,
                "b***@example.com", false, now, Instant.ofEpochSecond(now.plus(CODE_TTL).getEpochSecond()));
    }

    /** An issue id like the core's (32 hex digits), from a fast generator: for filling tables. */
    public static String fillerIssueId() {
        java.util.concurrent.ThreadLocalRandom random = java.util.concurrent.ThreadLocalRandom.current();
        return String.format("%016x%016x", random.nextLong(), random.nextLong());
    }

    public static String attemptId() {
        return TOKENS.attemptId();
    }

    /** The core on a store, with the default settings and a sender that keeps the last code per user. */
    public static Verification verification(VerificationStore store, KeepingSender sender) {
        return Verification.builder().store(store).keys(KEYS)
                .encryption(EncryptionKeyRing.fromBase64(List.of(ENCRYPTION_KEY))).sender(sender).build();
    }

    /** Delivers nothing; keeps the last code sent to each user, as the development outbox would show it. */
    public static final class KeepingSender implements CodeSender {
        private final Map<String, String> last = new ConcurrentHashMap<>();

        @Override
        public void send(OutgoingCode message) {
            last.put(message.userId(), message.code());
        }

        public String lastCode(String userId) {
            String code = last.get(userId);
            if (code == null) {
                throw new IllegalStateException("no code was sent to " + userId);
            }
            return code;
        }
    }
}
