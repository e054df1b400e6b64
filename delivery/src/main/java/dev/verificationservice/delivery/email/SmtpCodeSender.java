package dev.verificationservice.delivery.email;

import dev.verificationservice.codes.CodeSender;
import dev.verificationservice.codes.DeliveryException;
import dev.verificationservice.codes.OutgoingCode;
import dev.verificationservice.delivery.messages.MessageRenderer;
import jakarta.mail.MessagingException;
import jakarta.mail.Session;
import jakarta.mail.Transport;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeBodyPart;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeMultipart;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.Date;
import java.util.Properties;

/**
 * EMAIL codes over SMTP with Angus Mail: STARTTLS (required, not opportunistic), SMTPS (TLS from the first
 * byte) or NONE (a relay on this machine, without a login: {@link SmtpSettings} refuses NONE to any other host and
 * with credentials), with authentication when a username is set, and timeouts. Angus Mail is used directly, so that an
 * application without Spring can send with it; each delivery opens, uses and closes one connection. Each message is
 * {@code multipart/alternative}: a plain-text part, then the HTML part (which mail programs prefer), both UTF-8,
 * with {@code Content-Language} set to the message's language.
 */
public final class SmtpCodeSender implements CodeSender {

    private final SmtpSettings smtp;
    private final Session session;
    private final String protocol;
    private final InternetAddress from;
    private final MessageRenderer renderer;
    private final Clock clock;

    /** @throws SmtpSettingsException (an IllegalArgumentException) when {@code smtp.from()} is not an email address */
    public SmtpCodeSender(SmtpSettings smtp, MessageRenderer renderer, Clock clock) {
        this.smtp = smtp;
        this.renderer = renderer;
        this.clock = clock;
        this.protocol = smtp.security() == SmtpSecurity.SMTPS ? "smtps" : "smtp";
        Properties properties = new Properties();
        String prefix = "mail." + protocol + ".";
        String timeout = Long.toString(smtp.timeout().toMillis());
        properties.put(prefix + "auth", Boolean.toString(smtp.authenticates()));
        properties.put(prefix + "connectiontimeout", timeout);
        properties.put(prefix + "timeout", timeout);
        properties.put(prefix + "writetimeout", timeout);
        if (smtp.security() == SmtpSecurity.STARTTLS) {
            properties.put(prefix + "starttls.enable", "true");
            properties.put(prefix + "starttls.required", "true");
        }
        if (smtp.security() != SmtpSecurity.NONE) {
            properties.put(prefix + "ssl.checkserveridentity", "true");
        }
        // Its own Session, never the JVM-wide default one, which the first caller's properties would fix for all.
        this.session = Session.getInstance(properties);
        this.from = smtp.fromAddress();
    }

    @Override
    public void send(OutgoingCode message) throws DeliveryException {
        MessageRenderer.RenderedEmail rendered = renderer.renderEmail(message);
        try (Transport transport = session.getTransport(protocol)) {
            MimeMessage mime = mimeMessage(message, rendered);
            transport.connect(smtp.host(), smtp.port(), smtp.authenticates() ? smtp.username() : null,
                    smtp.authenticates() ? smtp.password() : null);
            transport.sendMessage(mime, mime.getAllRecipients());
        } catch (MessagingException e) {
            // The exception text may echo the full address; the caller and the audit log get a safe summary.
            throw new DeliveryException("the SMTP server did not accept the message ("
                    + e.getClass().getSimpleName() + ")", e);
        }
    }

    private MimeMessage mimeMessage(OutgoingCode message, MessageRenderer.RenderedEmail rendered)
            throws MessagingException {
        MimeMessage mime = new MimeMessage(session);
        mime.setFrom(from);
        mime.setSentDate(Date.from(clock.instant()));
        InternetAddress[] to = InternetAddress.parse(message.deliveryTarget(), true);
        if (to.length != 1) {
            throw new jakarta.mail.internet.AddressException("not one address");
        }
        mime.setRecipients(jakarta.mail.Message.RecipientType.TO, to);
        mime.setSubject(rendered.subject(), StandardCharsets.UTF_8.name());
        mime.setContentLanguage(new String[] {rendered.locale().toLanguageTag()});
        MimeBodyPart text = new MimeBodyPart();
        text.setText(rendered.text(), StandardCharsets.UTF_8.name(), "plain");
        MimeBodyPart html = new MimeBodyPart();
        html.setText(rendered.html(), StandardCharsets.UTF_8.name(), "html");
        // The richest last: mail programs show the last part they can display.
        MimeMultipart alternative = new MimeMultipart("alternative", text, html);
        mime.setContent(alternative);
        // Writes the MIME headers of the parts (Transport.sendMessage, unlike Transport.send, does not).
        mime.saveChanges();
        return mime;
    }
}
