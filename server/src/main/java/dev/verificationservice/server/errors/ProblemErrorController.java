package dev.verificationservice.server.errors;

import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import java.util.Map;
import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.http.HttpStatus;
import org.springframework.http.ProblemDetail;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code /error}, where the container sends what never reached a controller (a TRACE request, an error
 * during dispatch): answered as a problem like everything else. Called directly, it is a 404.
 */
@RestController
public class ProblemErrorController implements ErrorController {

    @RequestMapping("/error")
    public ResponseEntity<ProblemDetail> error(HttpServletRequest request) {
        Object code = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
        HttpStatus status = code instanceof Integer value && HttpStatus.resolve(value) != null
                ? HttpStatus.valueOf(value) : HttpStatus.NOT_FOUND;
        String problemCode = Problems.codeForContainerStatus(status.value());
        String detail = status == HttpStatus.NOT_FOUND && code == null
                ? "No such endpoint. The API is described at /v3/api-docs."
                : status.getReasonPhrase() + ".";
        return ResponseEntity.status(status).body(Problems.of(status, problemCode, detail, Map.of()));
    }
}
