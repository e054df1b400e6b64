package dev.verificationservice.store.contract;

import dev.verificationservice.Verification;
import dev.verificationservice.VerificationSettings;
import dev.verificationservice.VerificationStore;
import dev.verificationservice.codes.CodeSender;
import dev.verificationservice.codes.DevelopmentOutbox;
import dev.verificationservice.security.EncryptionKeyRing;
import dev.verificationservice.security.SecretKeyRing;
import dev.verificationservice.testsupport.junit.SkipReasonReporter;
import dev.verificationservice.testsupport.time.MutableClock;
import java.lang.reflect.Method;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The one contract every store provider passes: the whole domain (codes, devices, audit, rate limits) run
 * against a real store. A provider's test extends this class and says how to open a fresh store, how to open
 * another instance on its table or file, how to write a raw item, and how to list every stored item.
 *
 * <p>The tests live in one {@code @Nested} part per concept ({@link CodeContract}, {@link DeviceContract}, ...),
 * each in its own file and run on this class's fixture: a fresh store before each test, closed after it.
 *
 * <p>Expired items are deliberately left in the store (nothing here deletes them): the tests move the
 * clock past their ttl and show that every read and conditional write refuses them anyway.
 */
@ExtendWith(SkipReasonReporter.class)
public abstract class AbstractVerificationStoreContractTest implements ContractFixture {

    private static final SecureRandom RANDOM = new SecureRandom();

    protected MutableClock clock;
    protected VerificationStore store;
    protected DevelopmentOutbox outbox;
    protected String keyBase64;
    protected SecretKeyRing keys;
    protected String encryptionKeyBase64;
    protected EncryptionKeyRing encryption;
    protected Verification verification;

    /** A new, empty store on its own table (or file). */
    protected abstract VerificationStore openStore(MutableClock clock);

    /** Another store object on the table (or file) of the store {@link #openStore} opened last. */
    protected abstract VerificationStore openAnotherInstance(MutableClock clock);

    private final List<VerificationStore> otherInstances = new ArrayList<>();

    @Override
    public VerificationStore anotherInstance() {
        VerificationStore other = openAnotherInstance(clock);
        otherInstances.add(other);
        return other;
    }

    @Override
    public void indexCatchesUp() {
    }

    @Override
    public Optional<String> missingTransactions() {
        return Optional.empty();
    }

    @BeforeEach
    void openFreshStore() {
        clock = new MutableClock(START);
        store = openStore(clock);
        outbox = new DevelopmentOutbox(clock);
        keyBase64 = SecretKeyRing.generateBase64Key(RANDOM);
        keys = SecretKeyRing.fromBase64(List.of(keyBase64));
        encryptionKeyBase64 = EncryptionKeyRing.generateBase64Key(RANDOM);
        encryption = EncryptionKeyRing.fromBase64(List.of(encryptionKeyBase64));
        verification = build(keys, outbox, VerificationSettings.defaults());
    }

    @AfterEach
    void closeStore() {
        otherInstances.forEach(VerificationStore::close);
        otherInstances.clear();
        store.close();
    }

    /**
     * The domain on this store. Every provider runs device registration's transaction itself (dynalite through
     * the test proxy that emulates TransactWriteItems), so the domain gets the store as it is.
     */
    @Override
    public Verification build(SecretKeyRing ring, CodeSender sender, VerificationSettings settings) {
        return Verification.builder().store(store).keys(ring).encryption(encryption).sender(sender).clock(clock)
                .settings(settings).build();
    }

    @Override
    public MutableClock clock() {
        return clock;
    }

    @Override
    public VerificationStore store() {
        return store;
    }

    @Override
    public DevelopmentOutbox outbox() {
        return outbox;
    }

    @Override
    public String keyBase64() {
        return keyBase64;
    }

    @Override
    public SecretKeyRing keys() {
        return keys;
    }

    @Override
    public String encryptionKeyBase64() {
        return encryptionKeyBase64;
    }

    @Override
    public Verification verification() {
        return verification;
    }

    /** The names of the contract's tests in every part: a provider that skips some by name checks they exist. */
    public static Set<String> contractTestNames() {
        Set<String> names = new HashSet<>();
        for (Class<?> part : AbstractVerificationStoreContractTest.class.getDeclaredClasses()) {
            for (Class<?> type = part; type != null; type = type.getSuperclass()) {
                for (Method method : type.getDeclaredMethods()) {
                    if (method.isAnnotationPresent(Test.class)) {
                        names.add(method.getName());
                    }
                }
            }
        }
        return names;
    }

    // The parts: inner classes, so that JUnit runs each on an instance of the provider's test.

    @Nested
    class Codes extends CodeContract {
        Codes() {
            super(AbstractVerificationStoreContractTest.this);
        }
    }

    @Nested
    class Messages extends MessageContract {
        Messages() {
            super(AbstractVerificationStoreContractTest.this);
        }
    }

    @Nested
    class LockOut extends LockOutContract {
        LockOut() {
            super(AbstractVerificationStoreContractTest.this);
        }
    }

    @Nested
    class Devices extends DeviceContract {
        Devices() {
            super(AbstractVerificationStoreContractTest.this);
        }
    }

    @Nested
    class Audit extends AuditContract {
        Audit() {
            super(AbstractVerificationStoreContractTest.this);
        }
    }

    @Nested
    class RateLimits extends RateLimitContract {
        RateLimits() {
            super(AbstractVerificationStoreContractTest.this);
        }
    }

    @Nested
    class SmsBudget extends SmsBudgetContract {
        SmsBudget() {
            super(AbstractVerificationStoreContractTest.this);
        }
    }

    @Nested
    class SmsBreaker extends SmsBreakerContract {
        SmsBreaker() {
            super(AbstractVerificationStoreContractTest.this);
        }
    }

    @Nested
    class Idempotency extends IdempotencyContract {
        Idempotency() {
            super(AbstractVerificationStoreContractTest.this);
        }
    }

    @Nested
    class Operator extends OperatorContract {
        Operator() {
            super(AbstractVerificationStoreContractTest.this);
        }
    }

    @Nested
    class UnitsOfWork extends UnitOfWorkContract {
        UnitsOfWork() {
            super(AbstractVerificationStoreContractTest.this);
        }
    }

    @Nested
    class Retries extends RetryContract {
        Retries() {
            super(AbstractVerificationStoreContractTest.this);
        }
    }

    @Nested
    class CountedAttempts extends CountedAttemptsContract {
        CountedAttempts() {
            super(AbstractVerificationStoreContractTest.this);
        }
    }

    @Nested
    class Authenticators extends TotpContract {
        Authenticators() {
            super(AbstractVerificationStoreContractTest.this);
        }
    }

    @Nested
    class Events extends EventsContract {
        Events() {
            super(AbstractVerificationStoreContractTest.this);
        }
    }

    @Nested
    class OutboxRule extends OutboxRuleContract {
        OutboxRule() {
            super(AbstractVerificationStoreContractTest.this);
        }
    }

    @Nested
    class Passkeys extends PasskeyContract {
        Passkeys() {
            super(AbstractVerificationStoreContractTest.this);
        }
    }
}
