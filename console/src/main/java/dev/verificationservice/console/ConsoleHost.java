package dev.verificationservice.console;

/**
 * What the console needs from the application it runs in, which implements this as a bean: the admin keys an
 * operator signs in with, where the console's gate stands among the application's servlet filters, and how long a
 * session lives. The console never sees a configured key, only what a presented one is.
 */
public interface ConsoleHost {

    /** True when at least one admin key is configured; without one the console is off (every path answers 404). */
    boolean operatorKeysConfigured();

    /**
     * What the key typed into the sign-in form is. The host compares it with every configured key of every role in
     * constant time, so that neither its content nor its role leaks through timing.
     */
    PresentedKey identify(String presentedKey);

    /**
     * The order of {@link ConsoleFilter} among the host's filters: after whatever checks the API's keys (which
     * leaves the console's paths to it, {@link ConsoleFilter#handles}), before anything reads a request's body.
     */
    int filterOrder();

    /** How long a signed-in session lives. */
    ConsoleSettings settings();

    /** A key presented at sign-in: an admin key (with the id the audit log records), an application key, or neither. */
    sealed interface PresentedKey {
    }

    /** An admin key: it signs in, and its id ({@code adm-...}, never the key) names the operator in the audit log. */
    record AdminKey(String keyId) implements PresentedKey {
    }

    /** A key of the application API: refused, with a word on which key the console needs. */
    record ApplicationKey() implements PresentedKey {
    }

    /** No configured key. */
    record UnknownKey() implements PresentedKey {
    }
}
