package dev.verificationservice.server;

import dev.verificationservice.VerificationStore;
import dev.verificationservice.recovery.RecoveryCodeRepository;
import dev.verificationservice.testsupport.concurrency.MeetingPoints;
import dev.verificationservice.testsupport.proxies.Interposed;
import org.springframework.beans.factory.config.BeanPostProcessor;

/**
 * Lets a test make requests meet at the store: each read of a user's recovery codes waits, once {@link #meet} armed
 * the user, until that many have arrived (so two issues read the same set before either writes).
 */
public class RecoveryCodeReads implements BeanPostProcessor {

    private final MeetingPoints points = new MeetingPoints();

    /** The next {@code parties} reads of the user's recovery codes wait for one another. */
    public void meet(String userId, int parties) {
        points.meet(userId, parties);
    }

    @Override
    public Object postProcessAfterInitialization(Object bean, String beanName) {
        return bean instanceof VerificationStore store
                ? Interposed.withPort(VerificationStore.class, store, "recoveryCodes", points.around(
                        RecoveryCodeRepository.class, store.recoveryCodes(), "findRecoveryCodes", args -> args[0]))
                : bean;
    }
}
