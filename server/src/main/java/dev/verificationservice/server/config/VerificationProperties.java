package dev.verificationservice.server.config;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Every setting of the service. Each is an environment variable (relaxed binding: {@code VERIFICATION_STORE}
 * is {@code verification.store}, {@code VERIFICATION_SMTP_HOST} is {@code verification.smtp.host}) and may
 * also be given as a property. The README lists them all with their defaults.
 */
@ConfigurationProperties(prefix = "verification")
public record VerificationProperties(
        @DefaultValue("embedded") StoreKind store,
        @DefaultValue("./data") Path dataDir,
        @DefaultValue("PT5S") Duration embeddedLockWait,
        @DefaultValue Dynamodb dynamodb,
        List<String> apiKeys,
        List<String> adminApiKeys,
        List<String> secretKeys,
        @DefaultValue("PT15M") Duration codeTtl,
        @DefaultValue("P30D") Duration deviceTtl,
        @DefaultValue("P90D") String auditRetention,
        @DefaultValue Smtp smtp,
        @DefaultValue Sms sms,
        @DefaultValue("http://localhost:8080/reset-password?code={code}") String linkUrl,
        @DefaultValue("100") int outboxSize,
        @DefaultValue("false") boolean devOutbox,
        @DefaultValue("PT2S") Duration readinessTimeout,
        @DefaultValue Limits limits,
        Map<String, String> templates,
        @DefaultValue Console console) {

    public enum StoreKind { EMBEDDED, DYNAMODB }

    /**
     * Every limit (SPEC §5, §10), each {@code <count>/<ISO-8601 window>} ({@code 5/PT15M}); the SMS budget may be
     * {@code off}; the SMS countries are ISO 3166 alpha-2 region codes, empty for all.
     *
     * @param send           code requests per user and code type ({@code VERIFICATION_LIMITS_SEND})
     * @param verify         failed verifications per user and code type ({@code VERIFICATION_LIMITS_VERIFY})
     * @param target         sends to one delivery target, whatever the user ({@code VERIFICATION_LIMITS_TARGET})
     * @param ip             sends per client IP address ({@code VERIFICATION_LIMITS_IP})
     * @param resendCooldown a new code for the same user and type is refused this long after the last
     * @param smsBudget      SMS per window across all users, or {@code off}
     * @param smsCountries   regions SMS may go to ({@code VERIFICATION_LIMITS_SMS_COUNTRIES=GB,IE}), empty: all
     * @param deviceMaxLife  a device must register again this long after it first did
     */
    public record Limits(@DefaultValue("5/PT15M") String send, @DefaultValue("5/PT15M") String verify,
                         @DefaultValue("5/PT1H") String target, @DefaultValue("20/PT1H") String ip,
                         @DefaultValue("PT30S") Duration resendCooldown, @DefaultValue("off") String smsBudget,
                         List<String> smsCountries, @DefaultValue("P365D") Duration deviceMaxLife) {
    }

    /**
     * @param table       table name
     * @param endpoint    empty for AWS; a URL for a DynamoDB-compatible endpoint
     * @param requireTtl  refuse to start unless TTL is enabled on {@code ttl}; turn off only for local engines
     *                    without TTL (validity never depends on TTL, only cleanup does)
     * @param callTimeout    the longest one store operation may take, all SDK retries included
     * @param attemptTimeout the longest one HTTP attempt may take (connect, send, answer)
     * @param maxAttempts    attempts per operation, the first included (the SDK's standard retry strategy,
     *                       with backoff and jitter, for throttling, 5xx, timeouts and broken connections)
     */
    public record Dynamodb(@DefaultValue("verification") String table, String endpoint,
                           @DefaultValue("true") boolean requireTtl,
                           @DefaultValue("PT3S") Duration callTimeout,
                           @DefaultValue("PT1S") Duration attemptTimeout,
                           @DefaultValue("3") int maxAttempts) {

        /** DynamoDB's own rule for table names, checked here so that a typo fails at start, not on first use. */
        public Dynamodb {
            if (table == null || !table.matches("[A-Za-z0-9_.-]{3,255}")) {
                throw new IllegalArgumentException("VERIFICATION_DYNAMODB_TABLE must be 3 to 255 characters of "
                        + "letters, digits, '_', '-' and '.'");
            }
            if (callTimeout.isNegative() || callTimeout.isZero() || attemptTimeout.isNegative() || attemptTimeout.isZero()
                    || attemptTimeout.compareTo(callTimeout) > 0) {
                throw new IllegalArgumentException("VERIFICATION_DYNAMODB_ATTEMPT_TIMEOUT and VERIFICATION_DYNAMODB_CALL_TIMEOUT "
                        + "must be positive, the attempt timeout no longer than the call timeout");
            }
            if (maxAttempts < 1 || maxAttempts > 10) {
                throw new IllegalArgumentException("VERIFICATION_DYNAMODB_MAX_ATTEMPTS must be between 1 and 10");
            }
        }

        public boolean hasEndpoint() {
            return endpoint != null && !endpoint.isBlank();
        }
    }

    /**
     * The support console ({@code /console}): how long a signed-in session lives.
     *
     * @param idleTimeout    a session unused this long ends ({@code VERIFICATION_CONSOLE_IDLE_TIMEOUT})
     * @param maxSessionAge  a session ends this long after sign-in however busy
     *                       ({@code VERIFICATION_CONSOLE_MAX_SESSION_AGE})
     */
    public record Console(@DefaultValue("PT15M") Duration idleTimeout, @DefaultValue("PT8H") Duration maxSessionAge) {
        public Console {
            if (idleTimeout.isNegative() || idleTimeout.isZero() || maxSessionAge.compareTo(idleTimeout) < 0) {
                throw new IllegalArgumentException("VERIFICATION_CONSOLE_IDLE_TIMEOUT must be positive and no longer "
                        + "than VERIFICATION_CONSOLE_MAX_SESSION_AGE");
            }
        }
    }

    /** SMTP delivery of EMAIL codes; enabled when {@code host} is set. */
    public record Smtp(String host, @DefaultValue("587") int port, String username, String password,
                       @DefaultValue("STARTTLS") SmtpSecurity security, @DefaultValue("no-reply@localhost") String from,
                       @DefaultValue("PT10S") Duration timeout) {
        @Override
        public String toString() {
            return "Smtp[host=" + host + ", port=" + port + ", username=" + username + ", password=<redacted>, security="
                    + security + ", from=" + from + "]";
        }

        public boolean enabled() {
            return host != null && !host.isBlank();
        }
    }

    public enum SmtpSecurity { STARTTLS, SMTPS, NONE }

    /**
     * SMS delivery: {@code provider} is {@code none}, {@code sns} or {@code webhook}. {@code webotpDomain}
     * ({@code VERIFICATION_SMS_WEBOTP_DOMAIN}), a host name, ends every NUMERIC SMS with the WebOTP line
     * {@code @<domain> #<code>}.
     */
    public record Sms(@DefaultValue("none") SmsProvider provider, String webhookUrl, String webhookSecret,
                      @DefaultValue("PT10S") Duration webhookTimeout, String snsSenderId, String webotpDomain) {
        @Override
        public String toString() {
            return "Sms[provider=" + provider + ", webhookUrl=" + webhookUrl + ", webhookSecret=<redacted>, webotpDomain="
                    + webotpDomain + "]";
        }
    }

    public enum SmsProvider { NONE, SNS, WEBHOOK }

    /** Settings are printed without their secrets: API keys, admin keys, HMAC keys, the SMTP password, the webhook secret. */
    @Override
    public String toString() {
        return "VerificationProperties[store=" + store + ", dataDir=" + dataDir + ", dynamodb=" + dynamodb
                + ", apiKeys=" + redacted(apiKeys) + ", adminApiKeys=" + redacted(adminApiKeys) + ", secretKeys="
                + redacted(secretKeys) + ", codeTtl=" + codeTtl
                + ", deviceTtl=" + deviceTtl + ", auditRetention=" + auditRetention + ", smtp.host=" + smtp.host()
                + ", sms.provider=" + sms.provider() + ", linkUrl=" + linkUrl + "]";
    }

    private static String redacted(List<String> values) {
        return values == null ? "[]" : "[" + values.size() + " redacted]";
    }

    public boolean anyDeliveryChannel() {
        return smtp.enabled() || sms.provider() != SmsProvider.NONE;
    }

    /**
     * The development outbox runs only when no channel is configured, and then only on the embedded store or
     * when asked for explicitly: on DynamoDB a forgotten SMTP variable must stop the service, not turn it into
     * one that answers 202 and delivers nothing while showing every code to any key holder.
     */
    public boolean outboxAllowed() {
        return !anyDeliveryChannel() && (store == StoreKind.EMBEDDED || devOutbox);
    }
}
