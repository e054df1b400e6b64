package dev.verificationservice.server;

import static org.assertj.core.api.Assertions.assertThat;

import dev.verificationservice.console.ConsoleFilter;
import dev.verificationservice.server.config.FilterOrder;
import dev.verificationservice.server.errors.RefusalLogFilter;
import dev.verificationservice.server.errors.RequestBodyLimitFilter;
import dev.verificationservice.server.errors.RequestShapeFilter;
import dev.verificationservice.server.idempotency.IdempotencyFilter;
import dev.verificationservice.server.security.ApiKeyFilter;
import dev.verificationservice.server.security.NoStoreFilter;
import jakarta.servlet.Filter;
import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

/**
 * The running server's own filters, the console's among them, come in the order {@link FilterOrder} declares, with no
 * two on one place.
 */
class FilterOrderTest extends ApiTestSupport {

    @DynamicPropertySource
    static void dataDirectory(DynamicPropertyRegistry registry) throws IOException {
        String directory = Files.createTempDirectory("verification-filter-order").toString();
        registry.add("verification.data-dir", () -> directory);
    }

    // Spring hands a list of beans over in the order it registers filters by (their @Order).
    @Autowired
    List<Filter> filters;

    @Test
    void theServersFiltersRunInTheDeclaredOrder() {
        List<Class<?>> ours = filters.stream()
                .<Class<?>>map(Object::getClass)
                .filter(type -> type.getPackageName().startsWith("dev.verificationservice.server")
                        || type.getPackageName().equals(ConsoleFilter.class.getPackageName()))
                .toList();

        assertThat(ours).containsExactly(RefusalLogFilter.class, NoStoreFilter.class, RequestShapeFilter.class,
                ApiKeyFilter.class, ConsoleFilter.class, RequestBodyLimitFilter.class, IdempotencyFilter.class);
        assertThat(List.of(FilterOrder.REFUSAL_LOG, FilterOrder.NO_STORE, FilterOrder.REQUEST_SHAPE,
                FilterOrder.API_KEY, FilterOrder.CONSOLE, FilterOrder.BODY_LIMIT, FilterOrder.IDEMPOTENCY))
                .doesNotHaveDuplicates().isSorted();
    }
}
