package dev.verificationservice.server.errors;

import java.io.IOException;
import java.io.Writer;
import jakarta.servlet.http.HttpServletResponse;
import java.nio.charset.StandardCharsets;
import org.apache.catalina.connector.Request;
import org.apache.catalina.connector.Response;
import org.apache.catalina.valves.ErrorReportValve;
import org.springframework.http.MediaType;

/**
 * Tomcat's own error page, for requests Tomcat refuses before any servlet sees them (an encoded slash or
 * NUL in the path, a header over the limit): written as a problem instead of an HTML page, without
 * Tomcat's version or a stack trace.
 */
public class ProblemErrorReportValve extends ErrorReportValve {

    @Override
    protected void report(Request request, Response response, Throwable throwable) {
        int status = response.getStatus();
        if (status < 400 || response.getContentWritten() > 0 || !response.setErrorReported()) {
            return;
        }
        if (status == HttpServletResponse.SC_NOT_IMPLEMENTED) {
            // The container implements no such method (CONNECT): for a client that is a method not allowed here.
            response.setStatus(HttpServletResponse.SC_METHOD_NOT_ALLOWED);
            status = HttpServletResponse.SC_METHOD_NOT_ALLOWED;
        }
        String body = Problems.json(status, Problems.codeForContainerStatus(status), "The request was refused before it reached the service: "
                + "check the path (no encoded '/', '\\' or NUL) and the size of the URL and headers.");
        try {
            response.setHeader("Cache-Control", "no-store");
            response.setContentType(MediaType.APPLICATION_PROBLEM_JSON_VALUE);
            response.setCharacterEncoding(StandardCharsets.UTF_8.name());
            Writer writer = response.getReporter();
            if (writer != null) {
                writer.write(body);
                response.finishResponse();
            }
        } catch (IOException | IllegalStateException e) {
            // The connection is gone; nothing more to say.
        }
    }
}
