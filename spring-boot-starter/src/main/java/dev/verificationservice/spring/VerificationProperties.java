package dev.verificationservice.spring;

import dev.verificationservice.delivery.email.SmtpSecurity;
import dev.verificationservice.delivery.email.SmtpSettings;
import dev.verificationservice.store.dynamodb.DynamoDbTableAdmin;
import dev.verificationservice.store.dynamodb.GlobalTableMode;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.ConstructorBinding;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The settings of the domain, its store and its delivery channels, under {@code verification.*}: what the
 * starter's {@code Verification} needs, in a host application as in the server. Each is also an environment
 * variable (relaxed binding: {@code VERIFICATION_STORE} is {@code verification.store},
 * {@code VERIFICATION_SMTP_HOST} is {@code verification.smtp.host}). The README lists them all with their
 * defaults. (The server's own settings, its API keys and its console, are in the server's
 * {@code ServerProperties}.)
 *
 * @param store             where codes, devices, audit entries and counters live: {@code embedded} (a SQLite file in
 *                          {@code data-dir}) or {@code dynamodb}
 * @param dataDir           the embedded store's directory (its database and, when not configured, its generated
 *                          HMAC key)
 * @param embeddedLockWait  how long a write on the embedded store waits for SQLite's one writer before it fails
 * @param dynamodb          the DynamoDB store: table, endpoint, timeouts, retries
 * @param secretKeys        base64 HMAC keys of at least 32 bytes, current first (older ones still verify); generated
 *                          in {@code data-dir} on the embedded store when not set, required on DynamoDB
 * @param encryptionKeys    base64 AES-256 keys (exactly 32 bytes), current first, that TOTP secrets are encrypted with
 *                          (older ones still decrypt); generated in {@code data-dir} on the embedded store when not
 *                          set, required on DynamoDB
 * @param codeTtl           how long a code lives
 * @param deviceTtl         how long a remembered device lives after its last use
 * @param auditRetention    how long audit entries are kept: an ISO-8601 duration or {@code forever}
 * @param smtp              SMTP delivery of EMAIL codes (on when {@code host} is set)
 * @param sms               SMS delivery: {@code none}, {@code sns} or {@code webhook}
 * @param linkUrl           the URL of a LINK code; {@code {code}} is replaced by the code
 * @param outboxSize        how many messages the development outbox keeps
 * @param devOutbox         allow the development outbox on the DynamoDB store (test deployments only)
 * @param readinessTimeout  how long the store's health check may take before it reports the store down
 * @param limits            the rate limits and abuse controls
 * @param passkeys          the relying party of passkeys (WebAuthn)
 * @param smsSignals        the SMS pumping defence: each number range's breaker and the refused kinds of number
 * @param templates         message overrides, {@code verification.templates.[<locale>.]<key>}
 */
@ConfigurationProperties(prefix = "verification")
public record VerificationProperties(
        @DefaultValue("embedded") StoreKind store,
        @DefaultValue("./data") Path dataDir,
        @DefaultValue("PT5S") Duration embeddedLockWait,
        @DefaultValue Dynamodb dynamodb,
        List<String> secretKeys,
        List<String> encryptionKeys,
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
        @DefaultValue Passkeys passkeys,
        @DefaultValue SmsSignalSettings smsSignals) {

    public enum StoreKind { EMBEDDED, DYNAMODB }

    /**
     * The SMS pumping defence ({@code VERIFICATION_SMS_SIGNALS_*}): a number range (calling code and leading
     * national digits) whose SMS are seldom verified is refused for a cool-off. The defaults never trip on a range
     * whose codes are mostly verified, nor on a small deployment's traffic.
     *
     * @param enabled                  read each SMS's range breaker and count sends and verifications
     * @param monitorOnly              count and report an opening breaker, never refuse (learn the traffic first)
     * @param window                   the counters' window; a range is judged on the current one and the one before
     * @param minSends                 sends to a range over those two windows before it is judged at all
     * @param minConversion            the share of them that must be verified (0 to 1); below it the breaker opens
     * @param coolOff                  once open, the breaker refuses for the rest of this window and the next one
     * @param countryShards            items each country's send count is split over
     * @param rangeDigits              leading national digits of a range
     * @param rangeDigitsByCallingCode other lengths by calling code, {@code <code>=<digits>} ({@code 1=6}: NANP
     *                                 area code and exchange)
     * @param refusedNumberTypes       kinds of number (libphonenumber's) no SMS goes to
     * @param countryMinSends          sends to a country over the two windows before its conversion is judged
     * @param countryMinConversion     the share of them that must be verified; below it the country's breaker opens
     * @param countryRefresh           how often each instance reads a country's figures and breaker
     */
    public record SmsSignalSettings(@DefaultValue("true") boolean enabled, @DefaultValue("false") boolean monitorOnly,
                                    @DefaultValue("PT1H") Duration window, @DefaultValue("50") int minSends,
                                    @DefaultValue("0.25") double minConversion, @DefaultValue("PT1H") Duration coolOff,
                                    @DefaultValue("8") int countryShards, @DefaultValue("4") int rangeDigits,
                                    @DefaultValue("1=6") List<String> rangeDigitsByCallingCode,
                                    @DefaultValue({"FIXED_LINE", "TOLL_FREE", "PREMIUM_RATE", "SHARED_COST", "VOIP",
                                            "PERSONAL_NUMBER", "PAGER", "UAN", "VOICEMAIL", "UNKNOWN"})
                                    List<String> refusedNumberTypes,
                                    @DefaultValue("1000") int countryMinSends,
                                    @DefaultValue("0.1") double countryMinConversion,
                                    @DefaultValue("PT10S") Duration countryRefresh) {
    }

    /**
     * Every limit, each {@code <count>/<ISO-8601 window>} ({@code 5/PT15M}); the SMS budget may be
     * {@code off}; the SMS countries are ISO 3166 alpha-2 region codes, empty for all.
     *
     * @param send           code requests per user and code type ({@code VERIFICATION_LIMITS_SEND})
     * @param verify         failed verifications per user and code type ({@code VERIFICATION_LIMITS_VERIFY})
     * @param target         sends to one delivery target, whatever the user ({@code VERIFICATION_LIMITS_TARGET})
     * @param ip             sends per client IP address ({@code VERIFICATION_LIMITS_IP})
     * @param resendCooldown a new code for the same user and type is refused this long after the last
     * @param smsBudget      SMS per window across all users, or {@code off}
     * @param smsBudgetShards counter items the SMS budget is split over ({@code VERIFICATION_LIMITS_SMS_BUDGET_SHARDS}):
     *                       each takes its share of the sends, so one item (one partition key) no longer takes
     *                       them all (8 keep 2,000 SMS a second under DynamoDB's 1,000 writes a second per key);
     *                       at most the budget itself; a budget above 80000 per window needs one per 10000
     * @param smsCountries   regions SMS may go to ({@code VERIFICATION_LIMITS_SMS_COUNTRIES=GB,IE}), empty: all
     * @param smsNonGeographic country calling codes of the international networks SMS may go to, which belong to
     *                       no country: satellite phones and global services
     *                       ({@code VERIFICATION_LIMITS_SMS_NON_GEOGRAPHIC=870,881}); empty: none
     * @param deviceMaxLife  a device must register again this long after it first did
     * @param subaddressDomains domains whose {@code +tag} the target limit drops, besides the big providers' own
     *                       rules ({@code VERIFICATION_LIMITS_SUBADDRESS_DOMAINS}): {@code *} every domain,
     *                       {@code none} the providers only
     */
    public record Limits(@DefaultValue("5/PT15M") String send, @DefaultValue("5/PT15M") String verify,
                         @DefaultValue("5/PT1H") String target, @DefaultValue("20/PT1H") String ip,
                         @DefaultValue("PT30S") Duration resendCooldown, @DefaultValue("off") String smsBudget,
                         @DefaultValue("8") int smsBudgetShards, List<String> smsCountries, List<String> smsNonGeographic,
                         @DefaultValue("P365D") Duration deviceMaxLife,
                         @DefaultValue("*") List<String> subaddressDomains) {
    }

    /**
     * Passkeys (WebAuthn): the relying party the browser binds each credential to, checked at start.
     *
     * @param rpId                     the RP ID, a host name ({@code VERIFICATION_PASSKEYS_RP_ID}): empty is
     *                                 {@code localhost} on the embedded store and passkeys off on DynamoDB
     * @param rpName                   the name a browser shows when it asks to create a passkey
     * @param origins                  the origins of the pages that call WebAuthn, each the RP ID or a host under
     *                                 it, https (http only on localhost); empty is {@code http://localhost:8080}
     *                                 when the RP ID is {@code localhost}
     * @param challengeLifetime        how long the options of one registration or sign-in can be answered
     * @param maxPerUser               how many passkeys one user may hold
     * @param userVerificationRequired refuse assertions without user verification (a PIN or biometric)
     */
    public record Passkeys(String rpId, @DefaultValue("Verification Service") String rpName, List<String> origins,
                           @DefaultValue("PT5M") Duration challengeLifetime, @DefaultValue("10") int maxPerUser,
                           @DefaultValue("false") boolean userVerificationRequired) {
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
     * @param globalTable    which global tables the start accepts ({@code VERIFICATION_DYNAMODB_GLOBAL_TABLE}):
     *                       {@code none} (a table with replicas in other Regions stops the start), or
     *                       {@code single-writer} (an MREC global table the service writes in one Region only
     *                       at any time); MRSC never (docs/multi-region.md)
     * @param warmWriteUnits write units a second {@code create-table} pre-warms a new table and its indexes to;
     *                       null: none sent (a new on-demand table starts at 4,000)
     * @param warmReadUnits  read units a second, likewise (a new on-demand table starts at 12,000)
     */
    public record Dynamodb(@DefaultValue("verification") String table, String endpoint,
                           @DefaultValue("true") boolean requireTtl,
                           @DefaultValue("PT3S") Duration callTimeout,
                           @DefaultValue("PT1S") Duration attemptTimeout,
                           @DefaultValue("3") int maxAttempts,
                           @DefaultValue("none") GlobalTableMode globalTable,
                           Long warmWriteUnits, Long warmReadUnits) {

        /** As written before global tables were checked: a table of one Region, created without warm throughput. */
        public Dynamodb(String table, String endpoint, boolean requireTtl, Duration callTimeout, Duration attemptTimeout,
                        int maxAttempts) {
            this(table, endpoint, requireTtl, callTimeout, attemptTimeout, maxAttempts, GlobalTableMode.NONE, null, null);
        }

        /** DynamoDB's own rule for table names, checked here so that a typo fails at start, not on first use. */
        @ConstructorBinding
        public Dynamodb {
            if (table == null || !table.matches("[A-Za-z0-9_.-]{3,255}")) {
                throw new StartupException("VERIFICATION_DYNAMODB_TABLE must be 3 to 255 characters of "
                        + "letters, digits, '_', '-' and '.'.", "Set VERIFICATION_DYNAMODB_TABLE to the table's name, "
                        + "for example verification (the default).");
            }
            if (callTimeout.isNegative() || callTimeout.isZero() || attemptTimeout.isNegative() || attemptTimeout.isZero()
                    || attemptTimeout.compareTo(callTimeout) > 0) {
                throw new StartupException("VERIFICATION_DYNAMODB_ATTEMPT_TIMEOUT and VERIFICATION_DYNAMODB_CALL_TIMEOUT "
                        + "must be positive, the attempt timeout no longer than the call timeout.", "Set them to "
                        + "durations such as PT1S and PT3S (the defaults), the attempt's no longer than the call's.");
            }
            if (maxAttempts < 1 || maxAttempts > 10) {
                throw new StartupException("VERIFICATION_DYNAMODB_MAX_ATTEMPTS must be between 1 and 10.",
                        "Set VERIFICATION_DYNAMODB_MAX_ATTEMPTS to a whole number from 1 to 10, for example 3 (the default).");
            }
            checkWarm("VERIFICATION_DYNAMODB_WARM_WRITE_UNITS", warmWriteUnits, null);
            checkWarm("VERIFICATION_DYNAMODB_WARM_READ_UNITS", null, warmReadUnits);
        }

        private static void checkWarm(String setting, Long writeUnits, Long readUnits) {
            try {
                DynamoDbTableAdmin.warmThroughput(writeUnits, readUnits);
            } catch (IllegalArgumentException e) {
                throw new StartupException(setting + ": " + e.getMessage() + ".", "Leave " + setting + " unset (a new "
                        + "table starts warm enough for most), or set it to the peak a second the table must serve "
                        + "from its first minute (docs/deployment.md).");
            }
        }

        public boolean hasEndpoint() {
            return endpoint != null && !endpoint.isBlank();
        }
    }

    /**
     * SMTP delivery of EMAIL codes; enabled when {@code host} is set.
     *
     * @param host     the SMTP server; empty: no email channel
     * @param port     the SMTP port (587 for STARTTLS, 465 for SMTPS)
     * @param username the login, when the server wants one
     * @param password the login's password
     * @param security {@code STARTTLS}, {@code SMTPS}, or {@code NONE} (only to a relay on this machine, without login)
     * @param from     the sender address of every email
     * @param timeout  connect, read and write timeout of one delivery
     */
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

        /** What the email sender of verification-delivery, which knows nothing of Spring's binding, is given. */
        public SmtpSettings settings() {
            return new SmtpSettings(host, port, security, username, password, from, timeout);
        }
    }

    /**
     * SMS delivery: {@code provider} is {@code none}, {@code sns} or {@code webhook}.
     *
     * @param provider       {@code none}, {@code sns} (Amazon SNS, credentials and region from the AWS default chains)
     *                       or {@code webhook}
     * @param webhookUrl     the https URL that receives each SMS as a signed JSON request ({@code webhook})
     * @param webhookSecret  the HMAC secret the webhook's requests are signed with, at least 32 characters
     * @param webhookTimeout how long one webhook request may take
     * @param snsSenderId    the SNS sender id shown where the country allows one
     * @param webotpDomain   a host name: every NUMERIC SMS then ends with the WebOTP line {@code @<domain> #<code>}
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

    /** Settings are printed without their secrets: HMAC and encryption keys, the SMTP password, the webhook secret. */
    @Override
    public String toString() {
        return "VerificationProperties[store=" + store + ", dataDir=" + dataDir + ", dynamodb=" + dynamodb
                + ", secretKeys=" + redacted(secretKeys) + ", encryptionKeys=" + redacted(encryptionKeys)
                + ", codeTtl=" + codeTtl
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
