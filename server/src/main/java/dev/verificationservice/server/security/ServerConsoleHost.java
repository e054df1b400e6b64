package dev.verificationservice.server.security;

import dev.verificationservice.console.ConsoleHost;
import dev.verificationservice.console.ConsoleSettings;
import dev.verificationservice.server.config.FilterOrder;
import dev.verificationservice.server.config.ServiceProperties;
import org.springframework.stereotype.Component;

/**
 * The server as the console's host: an operator signs in with one of the server's admin keys, compared by
 * {@link AccessKeys} like every key of the API; the console's gate stands at {@link FilterOrder#CONSOLE}; its
 * sessions live as {@code verification.console.*} says.
 */
@Component
public class ServerConsoleHost implements ConsoleHost {

    private final AccessKeys keys;
    private final ConsoleSettings settings;

    public ServerConsoleHost(AccessKeys keys, ServiceProperties properties) {
        this.keys = keys;
        this.settings = properties.console();
    }

    @Override
    public boolean operatorKeysConfigured() {
        return keys.operatorKeysConfigured();
    }

    @Override
    public PresentedKey identify(String presentedKey) {
        AccessKeys.Match match = keys.match(presentedKey);
        return switch (match.role()) {
            case ADMIN -> new AdminKey(match.keyId().orElseThrow());
            case APPLICATION -> new ApplicationKey();
            case NONE -> new UnknownKey();
        };
    }

    @Override
    public int filterOrder() {
        return FilterOrder.CONSOLE;
    }

    @Override
    public ConsoleSettings settings() {
        return settings;
    }
}
