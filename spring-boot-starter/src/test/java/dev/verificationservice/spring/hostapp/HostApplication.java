package dev.verificationservice.spring.hostapp;

import org.springframework.boot.SpringApplication;
import org.springframework.boot.autoconfigure.SpringBootApplication;

/**
 * A host application as a team would write it: one dependency (the starter), {@code verification.*}
 * properties, and the {@code Verification} bean injected where it is needed ({@link EmailConfirmation}, whose
 * file is the README's "Embed it with the Spring Boot starter" example, exactly: {@code ReadmeSnippetTest}).
 */
@SpringBootApplication
public class HostApplication {

    public static void main(String[] args) {
        SpringApplication.run(HostApplication.class, args);
    }
}
