package dev.verificationservice.spring.security;

import java.util.HashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The links waiting for the link sender's threads, by whom they came from, so that one client cannot take every
 * place of the bounded queue: at most one waiting link per account and client address, and at most
 * {@code perAddress} per client address. A place is held from the hand-over until the link's work ends. The place
 * per account is per address too: one held across addresses would let anyone who knows a username hold it and
 * drop the owner's own request. Only links handed over are here, so the memory is bounded by the queue.
 */
final class WaitingLinks {

    /** Why {@link #take} refused a place. */
    enum Refusal {
        /** The account has a link waiting from this address already. */
        ACCOUNT_WAITING,
        /** The address has every place it may have. */
        ADDRESS_FULL
    }

    private record Place(String userId, String address) {
    }

    private final int perAddress;
    private final Set<Place> places = new HashSet<>();
    private final Map<String, Integer> byAddress = new HashMap<>();

    WaitingLinks(int perAddress) {
        this.perAddress = perAddress;
    }

    /** Takes a place for a link of {@code userId} asked for from {@code address}; else why not. */
    synchronized Optional<Refusal> take(String userId, String address) {
        Place place = new Place(userId, address);
        if (places.contains(place)) {
            return Optional.of(Refusal.ACCOUNT_WAITING);
        }
        if (byAddress.getOrDefault(address, 0) >= perAddress) {
            return Optional.of(Refusal.ADDRESS_FULL);
        }
        places.add(place);
        byAddress.merge(address, 1, Integer::sum);
        return Optional.empty();
    }

    /** Gives back the place {@link #take} took. */
    synchronized void release(String userId, String address) {
        if (places.remove(new Place(userId, address))) {
            byAddress.computeIfPresent(address, (key, count) -> count == 1 ? null : count - 1);
        }
    }
}
