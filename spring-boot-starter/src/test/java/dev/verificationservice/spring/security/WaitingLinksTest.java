package dev.verificationservice.spring.security;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.spring.security.WaitingLinks.Refusal;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

/** The places one client may hold in the link sender's queue. */
class WaitingLinksTest {

    private final WaitingLinks waiting = new WaitingLinks(3);

    @Test
    void anAccountHasOnePlacePerAddressSoAStrangerAskingForItCannotTakeTheOwnersOwn() {
        assertThat(waiting.take("user-alice", "ip:203.0.113.66")).isEmpty();
        assertThat(waiting.take("user-alice", "ip:203.0.113.66")).contains(Refusal.ACCOUNT_WAITING);
        assertThat(waiting.take("user-alice", "ip:198.51.100.7")).as("alice's own address").isEmpty();

        waiting.release("user-alice", "ip:203.0.113.66");
        assertThat(waiting.take("user-alice", "ip:203.0.113.66")).as("once the first link's work ended").isEmpty();
    }

    @Test
    void anAddressHoldsAtMostItsPlacesWhateverTheAccountsAndGetsThemBack() {
        for (String user : List.of("user-a", "user-b", "user-c")) {
            assertThat(waiting.take(user, "ip:203.0.113.66")).as(user).isEmpty();
        }
        assertThat(waiting.take("user-d", "ip:203.0.113.66")).contains(Refusal.ADDRESS_FULL);
        assertThat(waiting.take("user-d", "ip:198.51.100.7")).as("another address").isEmpty();

        waiting.release("user-b", "ip:203.0.113.66");
        waiting.release("user-b", "ip:203.0.113.66");
        assertThat(waiting.take("user-d", "ip:203.0.113.66")).as("one place back, once").isEmpty();
        assertThat(waiting.take("user-e", "ip:203.0.113.66")).contains(Refusal.ADDRESS_FULL);
    }

    @Test
    void ofManyConcurrentRequestsFromOneAddressExactlyItsPlacesAreTaken() throws Exception {
        int requests = 200;
        CountDownLatch gate = new CountDownLatch(1);
        ExecutorService clients = Executors.newFixedThreadPool(8);
        try {
            List<Future<Optional<Refusal>>> answers = new ArrayList<>();
            for (int i = 0; i < requests; i++) {
                String user = "user-" + (i % 20);
                answers.add(clients.submit((Callable<Optional<Refusal>>) () -> {
                    gate.await();
                    return waiting.take(user, "ip:203.0.113.66");
                }));
            }
            gate.countDown();
            int taken = 0;
            for (Future<Optional<Refusal>> answer : answers) {
                taken += answer.get().isEmpty() ? 1 : 0;
            }
            assertThat(taken).isEqualTo(3);
        } finally {
            clients.shutdownNow();
        }
    }
}
