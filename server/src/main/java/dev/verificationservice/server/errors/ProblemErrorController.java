package dev.verificationservice.server.errors;

import jakarta.servlet.RequestDispatcher;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import org.springframework.boot.webmvc.error.ErrorController;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code /error}, where the container sends what never reached a controller (a TRACE request, an error
 * during dispatch): answered as a problem like everything else. Called directly, it is a 404. The answer is
 * written directly, not through content negotiation: the request that ended here may carry an Accept header
 * Spring cannot parse, and the problem must still have its body.
 */
@RestController
public class ProblemErrorController implements ErrorController {

    @RequestMapping("/error")
    public void error(HttpServletRequest request, HttpServletResponse response) throws IOException {
        Object code = request.getAttribute(RequestDispatcher.ERROR_STATUS_CODE);
        HttpStatus status = code instanceof Integer value && HttpStatus.resolve(value) != null
                ? HttpStatus.valueOf(value) : HttpStatus.NOT_FOUND;
        String detail = status == HttpStatus.NOT_FOUND && code == null
                ? "No such endpoint. The API is described at /v3/api-docs."
                : status.getReasonPhrase() + ".";
        response.resetBuffer();
        Problems.write(response, status, Problems.codeForContainerStatus(status.value()), detail);
    }
}
