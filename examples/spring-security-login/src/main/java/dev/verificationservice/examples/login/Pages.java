package dev.verificationservice.examples.login;

import dev.verificationservice.spring.VerificationProperties;
import dev.verificationservice.spring.security.DeviceRememberMeServices;
import jakarta.servlet.http.HttpServletRequest;
import java.security.Principal;
import org.springframework.http.MediaType;
import org.springframework.security.web.csrf.CsrfToken;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RestController;
import org.springframework.web.util.HtmlUtils;

/** The example's own pages: who is signed in, the page after asking for a link, and revoke-all. */
@RestController
class Pages {

    private final DeviceRememberMeServices rememberMe;
    private final VerificationProperties properties;

    Pages(DeviceRememberMeServices rememberMe, VerificationProperties properties) {
        this.rememberMe = rememberMe;
        this.properties = properties;
    }

    @GetMapping(value = "/", produces = MediaType.TEXT_HTML_VALUE)
    String home(Principal principal, CsrfToken csrf) {
        return page("Signed in as <span id=\"user\">" + HtmlUtils.htmlEscape(principal.getName()) + "</span>",
                "<p><a id=\"passkeys\" href=\"/webauthn/register\">Passkeys</a></p>"
                        + "<form method=\"post\" action=\"/devices/revoke-all\">" + hidden(csrf)
                        + "<button id=\"revoke-all\">Sign out every remembered browser</button></form>"
                        + "<form method=\"post\" action=\"/logout\">" + hidden(csrf)
                        + "<button id=\"logout\">Sign out</button></form>");
    }

    /** The same page whether the username exists or not, and whether a limit held the link back. */
    @GetMapping(value = "/ott/sent", produces = MediaType.TEXT_HTML_VALUE)
    String sent() {
        return page("Check your email", "<p id=\"sent\">If the username has an account, a sign-in link is on its way."
                + " If none arrives, wait " + properties.limits().resendCooldown().toSeconds()
                + " seconds before asking again: a new request within that time sends nothing.</p>"
                + "<p><a href=\"/login\">Back to sign-in</a></p>");
    }

    @PostMapping(value = "/devices/revoke-all", produces = MediaType.TEXT_HTML_VALUE)
    String revokeAll(Principal principal, HttpServletRequest request) {
        int revoked = rememberMe.revokeAll(principal.getName(), request);
        return page("Remembered browsers signed out", "<p id=\"revoked\">" + revoked
                + " remembered browser(s) will have to sign in again.</p><p><a href=\"/\">Home</a></p>");
    }

    private static String hidden(CsrfToken csrf) {
        return "<input type=\"hidden\" name=\"" + csrf.getParameterName() + "\" value=\""
                + HtmlUtils.htmlEscape(csrf.getToken()) + "\">";
    }

    private static String page(String title, String body) {
        return "<!doctype html><html lang=\"en\"><head><meta charset=\"utf-8\"><title>" + title.replaceAll("<[^>]*>", "")
                + "</title></head><body><h1>" + title + "</h1>" + body + "</body></html>";
    }
}
