package dev.verificationservice.client;

import java.util.Map;

/** 401 {@code UNAUTHORIZED}: the API key is missing or not one of the service's keys. */
public class UnauthorizedException extends ProblemException {

    public UnauthorizedException(int status, String code, String title, String detail, Map<String, Object> properties) {
        super(status, code, title, detail, properties);
    }
}
