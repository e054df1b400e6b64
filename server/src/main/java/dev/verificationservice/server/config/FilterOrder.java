package dev.verificationservice.server.config;

import org.springframework.core.Ordered;

/**
 * The server's servlet filters, outermost first: the one place their order is declared. Each filter names its
 * constant in {@code @Order}, but the console's, whose module cannot see this class: the server hands it
 * {@link #CONSOLE} as its host ({@code ServerConsoleHost}). {@code FilterOrderTest} holds the running chain to this
 * list.
 *
 * <ol>
 *   <li>{@link #REFUSAL_LOG}: around everything, so it counts every refusal, whoever wrote it.</li>
 *   <li>{@link #NO_STORE}: the cache headers are set before any later filter can answer.</li>
 *   <li>{@link #REQUEST_SHAPE}: a request Spring cannot parse is refused before any filter reads it.</li>
 *   <li>{@link #API_KEY}: without a valid key nothing of the body is read.</li>
 *   <li>{@link #CONSOLE}: the console's own session and CSRF rules, on its paths only.</li>
 *   <li>{@link #BODY_LIMIT}: after the key check, and before anything reads the body.</li>
 *   <li>{@link #IDEMPOTENCY}: last, reading the body through the limit; Spring Security's chain follows.</li>
 * </ol>
 */
public final class FilterOrder {

    public static final int REFUSAL_LOG = Ordered.HIGHEST_PRECEDENCE;
    public static final int NO_STORE = REFUSAL_LOG + 1;
    public static final int REQUEST_SHAPE = NO_STORE + 1;
    public static final int API_KEY = REQUEST_SHAPE + 1;
    public static final int CONSOLE = API_KEY + 1;
    public static final int BODY_LIMIT = CONSOLE + 1;
    public static final int IDEMPOTENCY = BODY_LIMIT + 1;

    private FilterOrder() {
    }
}
