package dev.verificationservice.delivery.email;

import java.time.Duration;

/**
 * Where and how {@link SmtpCodeSender} sends: the server, its port, the protection of the connection, the login
 * (when {@code username} is set), the sender address and the connect, read and write timeout of one delivery.
 */
public record SmtpSettings(String host, int port, SmtpSecurity security, String username, String password,
                           String from, Duration timeout) {

    /** Whether the sender logs in: only when a username is set. */
    public boolean authenticates() {
        return username != null && !username.isBlank();
    }

    @Override
    public String toString() {
        return "SmtpSettings[host=" + host + ", port=" + port + ", security=" + security + ", username=" + username
                + ", password=<redacted>, from=" + from + ", timeout=" + timeout + "]";
    }
}
