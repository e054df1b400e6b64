package dev.verificationservice.console;

import dev.verificationservice.server.config.KeyMaterial;

/**
 * A deliberately wrong class for the architecture test: it sits in the console's package and names an admin key by
 * the server's own rule, which the console may not see. It exists only in the server's test sources.
 */
public final class ServerInConsoleFixture {

    private ServerInConsoleFixture() {
    }

    public static String keyId(String adminKey) {
        return KeyMaterial.adminKeyId(adminKey);
    }
}
