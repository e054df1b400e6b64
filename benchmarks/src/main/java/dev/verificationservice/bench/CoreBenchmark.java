package dev.verificationservice.bench;

import dev.verificationservice.codes.DeliveryMethod;
import dev.verificationservice.codes.DeliveryTargets;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.security.SecureTokens;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/** The core's own CPU work on every request: HMAC of a code, new codes from SecureRandom, target normalising. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Fork(1)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
public class CoreBenchmark {

    private final SecretKeyRing keys = Fixtures.KEYS;
    private final SecureTokens tokens = new SecureTokens();

    /** The digest a NUMERIC code is stored and looked up under (HMAC-SHA-256, base64url). */
    @Benchmark
    public String hmacDigest() {
        return keys.currentDigest("NUMERIC|user-42|EMAIL_VERIFICATION|493027");
    }

    @Benchmark
    public String newNumericCode() {
        return tokens.numericCode(6);
    }

    @Benchmark
    public String newLinkCode() {
        return tokens.randomToken();
    }

    /** An SMS target parsed and validated with libphonenumber (mobile, allowed region). */
    @Benchmark
    public String normalizePhoneNumber() {
        return DeliveryTargets.normalize(DeliveryMethod.SMS, "+447700123456", Set.of(), Set.of());
    }
}
