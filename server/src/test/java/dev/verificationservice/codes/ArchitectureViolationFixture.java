package dev.verificationservice.codes;

import dev.verificationservice.table.TableKeys;

/**
 * A deliberately wrong class for the architecture test: it sits in a domain package and builds a key with
 * the table model, which the domain must never do. It exists only in the server's test sources.
 */
public final class ArchitectureViolationFixture {

    private ArchitectureViolationFixture() {
    }

    public static String keyOfUser(String userId) {
        return TableKeys.user(userId);
    }
}
