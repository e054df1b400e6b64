package dev.verificationservice.spring.delivery;

import dev.verificationservice.codes.CodeSender;
import dev.verificationservice.codes.DeliveryException;
import dev.verificationservice.codes.OutgoingCode;
import dev.verificationservice.delivery.messages.MessageRenderer;
import dev.verificationservice.spring.VerificationProperties;
import jakarta.mail.MessagingException;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeBodyPart;
import jakarta.mail.internet.MimeMessage;
import jakarta.mail.internet.MimeMultipart;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import org.springframework.mail.MailException;
import org.springframework.mail.javamail.JavaMailSenderImpl;

/**
 * EMAIL codes over SMTP with Angus Mail: STARTTLS (required, not opportunistic), SMTPS (TLS from the first
 * byte) or NONE (a relay on this machine, without a login: {@link DeliveryAutoConfiguration} refuses NONE to any
 * other host and with credentials), with authentication when a username is set, and timeouts. Each message is
 * {@code multipart/alternative}: a plain-text part, then the HTML part (which mail programs prefer), both UTF-8,
 * with {@code Content-Language} set to the message's language.
 */
public final class SmtpCodeSender implements CodeSender {

    private final JavaMailSenderImpl mail;
    private final InternetAddress from;
    private final MessageRenderer renderer;

    public SmtpCodeSender(VerificationProperties.Smtp smtp, MessageRenderer renderer) {
        this.renderer = renderer;
        this.mail = new JavaMailSenderImpl();
        mail.setHost(smtp.host());
        mail.setPort(smtp.port());
        mail.setDefaultEncoding(StandardCharsets.UTF_8.name());
        boolean authenticate = smtp.username() != null && !smtp.username().isBlank();
        if (authenticate) {
            mail.setUsername(smtp.username());
            mail.setPassword(smtp.password());
        }
        String protocol = smtp.security() == VerificationProperties.SmtpSecurity.SMTPS ? "smtps" : "smtp";
        mail.setProtocol(protocol);
        Properties properties = mail.getJavaMailProperties();
        String prefix = "mail." + protocol + ".";
        String timeout = Long.toString(smtp.timeout().toMillis());
        properties.put(prefix + "auth", Boolean.toString(authenticate));
        properties.put(prefix + "connectiontimeout", timeout);
        properties.put(prefix + "timeout", timeout);
        properties.put(prefix + "writetimeout", timeout);
        if (smtp.security() == VerificationProperties.SmtpSecurity.STARTTLS) {
            properties.put(prefix + "starttls.enable", "true");
            properties.put(prefix + "starttls.required", "true");
        }
        if (smtp.security() != VerificationProperties.SmtpSecurity.NONE) {
            properties.put(prefix + "ssl.checkserveridentity", "true");
        }
        try {
            this.from = new InternetAddress(smtp.from(), true);
        } catch (jakarta.mail.internet.AddressException e) {
            throw new IllegalArgumentException("VERIFICATION_SMTP_FROM is not an email address", e);
        }
    }

    @Override
    public void send(OutgoingCode message) throws DeliveryException {
        MessageRenderer.RenderedEmail rendered = renderer.renderEmail(message);
        try {
            mail.send(mimeMessage(message, rendered));
        } catch (MailException | MessagingException e) {
            // The exception text may echo the full address; the caller and the audit log get a safe summary.
            throw new DeliveryException("the SMTP server did not accept the message ("
                    + e.getClass().getSimpleName() + ")", e);
        }
    }

    private MimeMessage mimeMessage(OutgoingCode message, MessageRenderer.RenderedEmail rendered)
            throws MessagingException {
        MimeMessage mime = mail.createMimeMessage();
        mime.setFrom(from);
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
        return mime;
    }
}
