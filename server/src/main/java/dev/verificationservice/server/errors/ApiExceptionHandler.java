package dev.verificationservice.server.errors;

import dev.verificationservice.spring.logging.RefusalLog;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.validation.InvalidInputException;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Map;
import java.util.stream.Collectors;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.HttpMediaTypeNotAcceptableException;
import org.springframework.web.HttpMediaTypeNotSupportedException;
import org.springframework.web.HttpRequestMethodNotSupportedException;
import org.springframework.web.bind.MissingServletRequestParameterException;
import org.springframework.web.bind.annotation.ExceptionHandler;
import org.springframework.web.bind.annotation.RestControllerAdvice;
import org.springframework.web.method.annotation.MethodArgumentTypeMismatchException;
import org.springframework.web.servlet.resource.NoResourceFoundException;
import org.springframework.http.converter.HttpMessageNotReadableException;
import tools.jackson.core.JacksonException;
import tools.jackson.core.exc.InputCoercionException;
import tools.jackson.databind.DatabindException;
import tools.jackson.databind.exc.MismatchedInputException;

/**
 * Every failure becomes an RFC 9457 problem with a stable {@code code}; bad input names its {@code field}.
 * Malformed input of any kind is a 4xx: a 500 means a bug, and is logged as one.
 */
@RestControllerAdvice
public class ApiExceptionHandler {

    private final RefusalLog refusalLog;

    public ApiExceptionHandler(RefusalLog refusalLog) {
        this.refusalLog = refusalLog;
    }

    @ExceptionHandler(ApiProblem.class)
    ResponseEntity<ProblemDetail> apiProblem(ApiProblem problem) {
        ResponseEntity.BodyBuilder response = ResponseEntity.status(problem.status());
        Object retryAfter = problem.properties().get("retryAfterSeconds");
        if (retryAfter != null) {
            response.header(HttpHeaders.RETRY_AFTER, retryAfter.toString());
        }
        return response.body(Problems.of(problem.status(), problem.code(), problem.getMessage(), problem.properties()));
    }

    @ExceptionHandler(InvalidInputException.class)
    ResponseEntity<ProblemDetail> invalidInput(InvalidInputException e) {
        return ResponseEntity.badRequest().body(Problems.invalidInput(e.field(), e.getMessage()));
    }

    @ExceptionHandler(HttpMessageNotReadableException.class)
    ResponseEntity<ProblemDetail> unreadable(HttpMessageNotReadableException e) {
        if (RequestBodyLimitFilter.isTooLarge(e)) {
            return tooLarge();
        }
        Throwable cause = e.getCause();
        if (cause instanceof MismatchedInputException mismatch && mismatch.getPath().isEmpty()) {
            return ResponseEntity.badRequest().body(Problems.of(HttpStatus.BAD_REQUEST, "MALFORMED_JSON",
                    "The body must be a JSON object.", Map.of()));
        }
        String field = fieldOf(cause);
        if (field != null) {
            return ResponseEntity.badRequest().body(Problems.invalidInput(field,
                    field + ": has the wrong type or is out of range; see the API document at /v3/api-docs"));
        }
        String detail = cause instanceof JacksonException
                ? "The body is not valid JSON: " + ((JacksonException) cause).getOriginalMessage()
                : "A JSON object body is required.";
        return ResponseEntity.badRequest().body(Problems.of(HttpStatus.BAD_REQUEST, "MALFORMED_JSON", detail, Map.of()));
    }

    /** The JSON field a Jackson failure is about: from the databind path, or the parser's current name. */
    private static String fieldOf(Throwable cause) {
        if (cause instanceof DatabindException databind && !databind.getPath().isEmpty()) {
            return databind.getPath().stream()
                    .map(reference -> reference.getPropertyName() != null ? reference.getPropertyName()
                            : "[" + reference.getIndex() + "]")
                    .collect(Collectors.joining("."));
        }
        if (cause instanceof InputCoercionException coercion && coercion.processor() != null) {
            return coercion.processor().currentName();
        }
        return null;
    }

    /** The container refused a query parameter while it was read; the query filter lets none through, but be safe. */
    @ExceptionHandler(org.apache.tomcat.util.http.InvalidParameterException.class)
    ResponseEntity<ProblemDetail> invalidParameter(RuntimeException e) {
        return ResponseEntity.badRequest().body(Problems.of(HttpStatus.BAD_REQUEST, "MALFORMED_QUERY",
                "The query string is not valid: every parameter needs a name and valid percent-encoded UTF-8.", Map.of()));
    }

    @ExceptionHandler(MethodArgumentTypeMismatchException.class)
    ResponseEntity<ProblemDetail> typeMismatch(MethodArgumentTypeMismatchException e) {
        return ResponseEntity.badRequest().body(Problems.invalidInput(e.getName(), e.getName() + ": has the wrong type"));
    }

    @ExceptionHandler(MissingServletRequestParameterException.class)
    ResponseEntity<ProblemDetail> missingParameter(MissingServletRequestParameterException e) {
        return ResponseEntity.badRequest().body(Problems.invalidInput(e.getParameterName(),
                e.getParameterName() + ": is required"));
    }

    @ExceptionHandler(HttpRequestMethodNotSupportedException.class)
    ResponseEntity<ProblemDetail> methodNotAllowed(HttpRequestMethodNotSupportedException e) {
        ResponseEntity.BodyBuilder response = ResponseEntity.status(HttpStatus.METHOD_NOT_ALLOWED);
        if (e.getSupportedHttpMethods() != null) {
            response.allow(e.getSupportedHttpMethods().toArray(new org.springframework.http.HttpMethod[0]));
        }
        return response.body(Problems.of(HttpStatus.METHOD_NOT_ALLOWED, "METHOD_NOT_ALLOWED",
                e.getMethod() + " is not allowed here; allowed: " + e.getSupportedHttpMethods(), Map.of()));
    }

    @ExceptionHandler(HttpMediaTypeNotSupportedException.class)
    ResponseEntity<ProblemDetail> unsupportedMediaType(HttpMediaTypeNotSupportedException e) {
        return ResponseEntity.status(HttpStatus.UNSUPPORTED_MEDIA_TYPE).body(Problems.of(HttpStatus.UNSUPPORTED_MEDIA_TYPE,
                "UNSUPPORTED_MEDIA_TYPE", "Send the body as application/json.", Map.of()));
    }

    @ExceptionHandler(HttpMediaTypeNotAcceptableException.class)
    ResponseEntity<ProblemDetail> notAcceptable(HttpMediaTypeNotAcceptableException e) {
        return ResponseEntity.status(HttpStatus.NOT_ACCEPTABLE).body(Problems.of(HttpStatus.NOT_ACCEPTABLE,
                "NOT_ACCEPTABLE", "This API answers application/json.", Map.of()));
    }

    @ExceptionHandler(NoResourceFoundException.class)
    ResponseEntity<ProblemDetail> notFound(NoResourceFoundException e, HttpServletRequest request) {
        return ResponseEntity.status(HttpStatus.NOT_FOUND).body(Problems.of(HttpStatus.NOT_FOUND, "NOT_FOUND",
                "No such endpoint: " + request.getMethod() + " " + request.getRequestURI()
                        + ". The API is described at /v3/api-docs.", Map.of()));
    }

    @ExceptionHandler(StoreException.class)
    ResponseEntity<ProblemDetail> storeUnavailable(StoreException e) {
        return StoreUnavailable.answer(e);
    }

    @ExceptionHandler(Exception.class)
    ResponseEntity<ProblemDetail> unexpected(Exception e) {
        // A bug, but one a client may be able to repeat at will: one stack trace a minute at most.
        refusalLog.failed(e);
        return ResponseEntity.status(HttpStatus.INTERNAL_SERVER_ERROR).body(Problems.of(HttpStatus.INTERNAL_SERVER_ERROR,
                "INTERNAL_ERROR", "An unexpected error occurred; it has been logged.", Map.of()));
    }

    static ResponseEntity<ProblemDetail> tooLarge() {
        return ResponseEntity.status(HttpStatus.CONTENT_TOO_LARGE).body(Problems.of(HttpStatus.CONTENT_TOO_LARGE,
                "BODY_TOO_LARGE", RequestBodyLimitFilter.TOO_LARGE_DETAIL, Map.of()));
    }
}
