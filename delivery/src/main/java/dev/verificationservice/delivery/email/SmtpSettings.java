package dev.verificationservice.delivery.email;

import jakarta.mail.internet.AddressException;
import jakarta.mail.internet.InternetAddress;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.time.Duration;
import java.util.regex.Pattern;

/**
 * Where and how {@link SmtpCodeSender} sends: the server, its port, the protection of the connection, the login
 * (when {@code username} is set), the sender address and the connect, read and write timeout of one delivery.
 *
 * <p>{@link SmtpSecurity#NONE} sends every code in clear text: it is refused unless the host is this machine, and
 * with a username or password whatever the host (credentials would cross the wire in clear). The rule is here, in
 * the settings, so that an application without the starter cannot skip it.
 *
 * @throws SmtpSettingsException when {@code NONE} is combined with another host or with credentials
 */
public record SmtpSettings(String host, int port, SmtpSecurity security, String username, String password,
                           String from, Duration timeout) {

    private static final String OCTET = "(25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])";
    private static final Pattern IPV4_LITERAL = Pattern.compile(OCTET + "(\\." + OCTET + "){3}");
    private static final Pattern IPV6_LITERAL = Pattern.compile("[0-9A-Fa-f:.]+");

    public SmtpSettings {
        if (security == SmtpSecurity.NONE) {
            checkPlainText(host, username, password);
        }
    }

    /**
     * The sender address, parsed strictly (a display name is allowed: {@code ACME <no-reply@example.com>}).
     *
     * @throws SmtpSettingsException when {@code from} is not an email address
     */
    public InternetAddress fromAddress() {
        try {
            return new InternetAddress(from, true);
        } catch (AddressException | RuntimeException e) {
            throw new SmtpSettingsException("VERIFICATION_SMTP_FROM '" + from + "' is not an email address.",
                    "Set VERIFICATION_SMTP_FROM to the sender's address, for example no-reply@example.com or "
                            + "'ACME <no-reply@example.com>'.");
        }
    }

    /** Whether the sender logs in: only when a username is set. */
    public boolean authenticates() {
        return username != null && !username.isBlank();
    }

    private static void checkPlainText(String host, String username, String password) {
        boolean hasUsername = username != null && !username.isBlank();
        boolean hasPassword = password != null && !password.isEmpty();
        if (hasUsername || hasPassword) {
            throw new SmtpSettingsException("VERIFICATION_SMTP_SECURITY is NONE but VERIFICATION_SMTP_USERNAME or "
                    + "VERIFICATION_SMTP_PASSWORD is set: the credentials would be sent in clear text.",
                    "Set VERIFICATION_SMTP_SECURITY=STARTTLS (usually port 587) or SMTPS (usually port 465) to log in to "
                            + "the SMTP server, or remove VERIFICATION_SMTP_USERNAME and VERIFICATION_SMTP_PASSWORD for "
                            + "a local relay that needs no login.");
        }
        if (!isLoopbackHost(host)) {
            throw new SmtpSettingsException("VERIFICATION_SMTP_SECURITY is NONE but VERIFICATION_SMTP_HOST '"
                    + (host == null ? "" : host.trim()) + "' is not this machine: codes would cross the network in "
                    + "clear text.",
                    "Set VERIFICATION_SMTP_SECURITY=STARTTLS (usually port 587) or SMTPS (usually port 465). NONE is "
                            + "only for a relay on this machine: VERIFICATION_SMTP_HOST localhost, 127.0.0.1 or ::1.");
        }
    }

    /**
     * {@code localhost}, an IPv4 address in 127.0.0.0/8 or the IPv6 loopback address, written as literals: no name
     * is looked up, so neither DNS nor a hosts file can turn a remote host into an allowed one.
     */
    static boolean isLoopbackHost(String host) {
        if (host == null) {
            return false;
        }
        String value = host.trim();
        if (value.startsWith("[") && value.endsWith("]")) {
            value = value.substring(1, value.length() - 1);
        }
        if (value.equalsIgnoreCase("localhost")) {
            return true;
        }
        boolean ipv4Literal = IPV4_LITERAL.matcher(value).matches();
        boolean ipv6Literal = value.indexOf(':') >= 0 && IPV6_LITERAL.matcher(value).matches();
        if (!ipv4Literal && !ipv6Literal) {
            return false;
        }
        try {
            // A literal address is parsed, never resolved.
            return InetAddress.getByName(value).isLoopbackAddress();
        } catch (UnknownHostException e) {
            return false;
        }
    }

    @Override
    public String toString() {
        return "SmtpSettings[host=" + host + ", port=" + port + ", security=" + security + ", username=" + username
                + ", password=<redacted>, from=" + from + ", timeout=" + timeout + "]";
    }
}
