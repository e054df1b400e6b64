package dev.verificationservice.server.errors;

import dev.verificationservice.spring.logging.RefusalLog;
import java.time.Clock;
import org.slf4j.LoggerFactory;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** The server's refused and failed requests, summarised: the one log {@link RefusalLogFilter} and the handler share. */
@Configuration(proxyBeanMethods = false)
public class RefusalLogConfiguration {

    @Bean
    public RefusalLog refusalLog(Clock clock) {
        return new RefusalLog(clock, LoggerFactory.getLogger(RefusalLogFilter.class), "Refused requests");
    }
}
