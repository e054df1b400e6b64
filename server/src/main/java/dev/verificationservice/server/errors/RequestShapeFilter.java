package dev.verificationservice.server.errors;

import dev.verificationservice.server.config.FilterOrder;
import jakarta.servlet.DispatcherType;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.Charset;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.IllegalCharsetNameException;
import java.nio.charset.StandardCharsets;
import java.util.Enumeration;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;
import org.springframework.core.annotation.Order;
import org.springframework.http.HttpHeaders;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.stereotype.Component;
import org.springframework.web.filter.OncePerRequestFilter;

/**
 * Refuses, as a problem answer and before anything else reads the request, what the container or Spring
 * would otherwise turn into a 500 or an answer without a body. Found by the API fuzz test.
 * <ul>
 *   <li>A path with a {@code .} or {@code ..} segment (also percent-encoded): the container normalises it
 *   while Spring MVC routes on the raw path, so the two would disagree on which endpoint it is (the API key
 *   filter decides on the first). 400.</li>
 *   <li>A query string that is not valid percent-encoded UTF-8 ({@code ?cursor=%zz}), or has a parameter
 *   without a name ({@code ?=x}) or very many parameters: 400. The query string
 *   is checked as text: nothing here parses parameters, so no form body is ever read.</li>
 *   <li>An {@code Accept} header that cannot be parsed: Spring would fail again when writing the error
 *   answer and send it without a body. 406.</li>
 *   <li>Under {@code /actuator}, anything but the documented operations: the actuator answers those
 *   without a body. 404.</li>
 *   <li>A {@code Content-Type} the service cannot read a body by ({@link ContentTypeRule}): malformed, a
 *   wildcard or more than one, 400; multipart, which no endpoint takes, 415. On every path and method:
 *   Spring's parsers would answer such a header with a 500, even for a health probe. Also on the way to the
 *   error page, since a request the container refuses (TRACE) reaches no filter before.</li>
 * </ul>
 */
@Component
@Order(FilterOrder.REQUEST_SHAPE)
public class RequestShapeFilter extends OncePerRequestFilter {

    private static final Pattern DOT_SEGMENT = Pattern.compile("(^|/)(\\.|%2e){1,2}(/|;|$)", Pattern.CASE_INSENSITIVE);
    private static final Set<String> ACTUATOR_PATHS = Set.of("/actuator/health", "/actuator/health/liveness",
            "/actuator/health/readiness", "/actuator/prometheus");

    @Override
    protected void doFilterInternal(HttpServletRequest request, HttpServletResponse response, FilterChain chain)
            throws ServletException, IOException {
        if (request.getDispatcherType() == DispatcherType.ERROR) {
            // A request the container refused (TRACE) reaches the filters only here, on its way to
            // the error page; its path is then the error page's, but its Content-Type still breaks Spring's parsers.
            if (refusedContentType(request, response)) {
                return;
            }
            if (!isUsableCharset(request.getCharacterEncoding())) {
                // A charset Spring's parser lets through ("charset" without a value) that decoding the error
                // page's path would fail on: the error page reads no body, so UTF-8 is as good as any.
                request.setCharacterEncoding(StandardCharsets.UTF_8.name());
            }
            chain.doFilter(request, response);
            return;
        }
        if (DOT_SEGMENT.matcher(request.getRequestURI()).find()) {
            Problems.write(response, HttpStatus.BAD_REQUEST, "BAD_REQUEST",
                    "The path must not hold '.' or '..' segments; send the path of an endpoint as it is documented.");
            return;
        }
        if (!isValidQuery(request.getQueryString())) {
            Problems.write(response, HttpStatus.BAD_REQUEST, "MALFORMED_QUERY",
                    "The query string is not valid percent-encoded UTF-8.");
            return;
        }
        if (!acceptIsParseable(request)) {
            Problems.write(response, HttpStatus.NOT_ACCEPTABLE, "NOT_ACCEPTABLE",
                    "The Accept header cannot be parsed; this API answers application/json.");
            return;
        }
        if (refusedContentType(request, response)) {
            return;
        }
        String path = request.getServletPath() + (request.getPathInfo() == null ? "" : request.getPathInfo());
        if ((path.equals("/actuator") || path.startsWith("/actuator/")) && !ACTUATOR_PATHS.contains(path)) {
            Problems.write(response, HttpStatus.NOT_FOUND, "NOT_FOUND", "No such operation. The operations are "
                    + String.join(", ", ACTUATOR_PATHS.stream().sorted().toList()) + ".");
            return;
        }
        chain.doFilter(request, response);
    }

    @Override
    protected boolean shouldNotFilterErrorDispatch() {
        return false;
    }

    /** More parameters than any endpoint takes many times over; the container refuses far more anyway. */
    private static final int MAX_QUERY_PARAMETERS = 100;
    /** Spring refuses to sort more media types than this, and would then answer without a body. */
    private static final int MAX_ACCEPTED_TYPES = 50;

    /**
     * Every {@code %} starts two hex digits, the decoded bytes are UTF-8, and every parameter has a name
     * (the container refuses {@code ?=x} when a parameter is read, which would surface as a 500).
     */
    static boolean isValidQuery(String query) {
        if (query == null) {
            return true;
        }
        String[] parameters = query.split("&", -1);
        if (parameters.length > MAX_QUERY_PARAMETERS) {
            return false;
        }
        for (String parameter : parameters) {
            if (parameter.startsWith("=")) {
                return false;
            }
        }
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(query.length());
        for (int i = 0; i < query.length(); i++) {
            char c = query.charAt(i);
            if (c == '%') {
                if (i + 2 >= query.length() || Character.digit(query.charAt(i + 1), 16) < 0
                        || Character.digit(query.charAt(i + 2), 16) < 0) {
                    return false;
                }
                bytes.write(Integer.parseInt(query.substring(i + 1, i + 3), 16));
                i += 2;
            } else {
                byte[] encoded = String.valueOf(c).getBytes(StandardCharsets.UTF_8);
                bytes.write(encoded, 0, encoded.length);
            }
        }
        try {
            StandardCharsets.UTF_8.newDecoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(bytes.toByteArray()));
            return true;
        } catch (CharacterCodingException e) {
            return false;
        }
    }

    /** Answers a Content-Type {@link ContentTypeRule} refuses, naming the header; true when it did. */
    private static boolean refusedContentType(HttpServletRequest request, HttpServletResponse response)
            throws IOException {
        Optional<ContentTypeRule.Refusal> refusal = ContentTypeRule.check(request);
        if (refusal.isEmpty()) {
            return false;
        }
        Problems.write(response, refusal.get().status(), refusal.get().code(), refusal.get().detail(),
                HttpHeaders.CONTENT_TYPE);
        return true;
    }

    private static boolean isUsableCharset(String name) {
        try {
            return name == null || Charset.isSupported(name);
        } catch (IllegalCharsetNameException e) {
            return false;
        }
    }

    private static boolean acceptIsParseable(HttpServletRequest request) {
        Enumeration<String> values = request.getHeaders(HttpHeaders.ACCEPT);
        while (values != null && values.hasMoreElements()) {
            String value = values.nextElement();
            try {
                // The same parser Spring uses when it writes the answer (it also checks q is within 0 and 1).
                if (MediaType.parseMediaTypes(value).size() > MAX_ACCEPTED_TYPES) {
                    return false;
                }
            } catch (IllegalArgumentException e) {
                return false;
            }
        }
        return true;
    }
}
