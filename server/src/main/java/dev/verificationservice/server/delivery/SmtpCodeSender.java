package dev.verificationservice.server.delivery;

import dev.verificationservice.codes.CodeSender;
import dev.verificationservice.codes.DeliveryException;
import dev.verificationservice.codes.OutgoingCode;
import dev.verificationservice.server.config.VerificationProperties;
import jakarta.mail.MessagingException;
import jakarta.mail.internet.InternetAddress;
import jakarta.mail.internet.MimeMessage;
import java.nio.charset.StandardCharsets;
import java.util.Properties;
import org.springframework.mail.MailException;
import org.springframework.mail.javamail.JavaMailSenderImpl;
import org.springframework.mail.javamail.MimeMessageHelper;

/**
 * EMAIL codes over SMTP with Angus Mail: STARTTLS (required, not opportunistic), SMTPS (TLS from the first
 * byte) or NONE (a relay on this machine, without a login: {@link DeliveryConfiguration} refuses NONE to any
 * other host and with credentials), with authentication when a username is set, and timeouts.
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
        MessageRenderer.RenderedMessage rendered = renderer.render(message);
        try {
            MimeMessage mime = mail.createMimeMessage();
            MimeMessageHelper helper = new MimeMessageHelper(mime, StandardCharsets.UTF_8.name());
            helper.setFrom(from);
            helper.setTo(message.deliveryTarget());
            helper.setSubject(rendered.subject());
            helper.setText(rendered.body());
            mail.send(mime);
        } catch (MailException | MessagingException e) {
            // The exception text may echo the full address; the caller and the audit log get a safe summary.
            throw new DeliveryException("the SMTP server did not accept the message ("
                    + e.getClass().getSimpleName() + ")", e);
        }
    }
}
