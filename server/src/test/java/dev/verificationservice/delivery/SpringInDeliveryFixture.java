package dev.verificationservice.delivery;

import org.springframework.context.ApplicationContext;

/**
 * A deliberately wrong class for the architecture test: it sits in a package of the delivery module and uses
 * Spring, which an application without Spring could then not load. It exists only in the server's test sources.
 */
public final class SpringInDeliveryFixture {

    private SpringInDeliveryFixture() {
    }

    public static Object sender(ApplicationContext context) {
        return context.getBean("verificationCodeSender");
    }
}
