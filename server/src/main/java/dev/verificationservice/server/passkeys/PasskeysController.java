package dev.verificationservice.server.passkeys;

import static io.swagger.v3.oas.annotations.media.Schema.RequiredMode.REQUIRED;

import com.fasterxml.jackson.annotation.JsonInclude;
import dev.verificationservice.Verification;
import dev.verificationservice.audit.ClientContext;
import dev.verificationservice.passkeys.CredentialDescriptor;
import dev.verificationservice.passkeys.PasskeyCapReachedException;
import dev.verificationservice.passkeys.PasskeyRegistration;
import dev.verificationservice.passkeys.PasskeyService;
import dev.verificationservice.passkeys.PasskeySummary;
import dev.verificationservice.passkeys.PasskeyVerification;
import dev.verificationservice.passkeys.RegistrationOptions;
import dev.verificationservice.passkeys.SignInOptions;
import dev.verificationservice.server.config.JsonTimes;
import dev.verificationservice.server.config.Requests;
import dev.verificationservice.server.errors.ApiProblem;
import dev.verificationservice.validation.InvalidInputException;
import io.swagger.v3.oas.annotations.Operation;
import io.swagger.v3.oas.annotations.media.Schema;
import io.swagger.v3.oas.annotations.tags.Tag;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.springframework.http.HttpStatus;
import org.springframework.http.MediaType;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;
import tools.jackson.databind.json.JsonMapper;

/**
 * Passkeys (WebAuthn): registration and sign-in options, their verification, and the user's passkeys. The rules are
 * the core's {@link PasskeyService}; this class only translates. The options are the JSON a browser's
 * {@code PublicKeyCredential.parseCreationOptionsFromJSON} / {@code parseRequestOptionsFromJSON} take, and a
 * response is the JSON of {@code PublicKeyCredential.toJSON()}, passed on as it came: the relying application's
 * server relays both, so the browser never holds the API key. Malformed input is a 400 naming the field, with
 * nothing stored; a response the service checked and refused is a 409 problem document ({@value #REFUSED}) naming
 * the field and the check (a 429 once the attempts are spent): nothing is stored but the refusal's audit entry and
 * counted attempt, which is why it is no 400, whose rule is that the store is as it was.
 */
@RestController
@RequestMapping(produces = MediaType.APPLICATION_JSON_VALUE)
@Tag(name = "passkeys", description = "Passkeys (WebAuthn): registration, sign-in, and the user's passkeys")
public class PasskeysController {

    /** The problem code of a registration or sign-in the service refused. */
    public static final String REFUSED = "PASSKEY_REFUSED";
    private static final JsonMapper JSON = JsonMapper.builder().build();

    public record RegistrationOptionsBody(@Schema(requiredMode = REQUIRED) String userId,
                                          @Schema(description = "The account name the browser shows; default: "
                                                  + "the userId", maxLength = PasskeyService.MAX_LABEL_LENGTH)
                                          String userName,
                                          @Schema(description = "The person's name the browser shows; default: "
                                                  + "userName", maxLength = PasskeyService.MAX_LABEL_LENGTH)
                                          String displayName) {
    }

    public record RelyingParty(@Schema(requiredMode = REQUIRED) String id, @Schema(requiredMode = REQUIRED) String name) {
    }

    public record UserEntity(@Schema(requiredMode = REQUIRED, description = "The user handle, base64url: random, "
                                     + "never the userId") String id,
                             @Schema(requiredMode = REQUIRED) String name,
                             @Schema(requiredMode = REQUIRED) String displayName) {
    }

    public record CredentialParameters(@Schema(requiredMode = REQUIRED, allowableValues = "public-key") String type,
                                       @Schema(requiredMode = REQUIRED, description = "A COSE algorithm: -7 ES256, "
                                               + "-8 EdDSA, -257 RS256") long alg) {
    }

    public record Descriptor(@Schema(requiredMode = REQUIRED, allowableValues = "public-key") String type,
                             @Schema(requiredMode = REQUIRED, description = "The credential id, base64url") String id,
                             @Schema(requiredMode = REQUIRED) List<String> transports) {
        static Descriptor of(CredentialDescriptor descriptor) {
            return new Descriptor("public-key", descriptor.id(), descriptor.transports().stream().sorted().toList());
        }
    }

    public record AuthenticatorSelection(@Schema(requiredMode = REQUIRED) String residentKey,
                                         @Schema(requiredMode = REQUIRED) boolean requireResidentKey,
                                         @Schema(requiredMode = REQUIRED) String userVerification) {
    }

    /** {@code PublicKeyCredentialCreationOptionsJSON}, and when its challenge lapses. */
    public record RegistrationOptionsResponse(@Schema(requiredMode = REQUIRED) String challenge,
                                              @Schema(requiredMode = REQUIRED) RelyingParty rp,
                                              @Schema(requiredMode = REQUIRED) UserEntity user,
                                              @Schema(requiredMode = REQUIRED)
                                              List<CredentialParameters> pubKeyCredParams,
                                              @Schema(requiredMode = REQUIRED) List<Descriptor> excludeCredentials,
                                              @Schema(requiredMode = REQUIRED)
                                              AuthenticatorSelection authenticatorSelection,
                                              @Schema(requiredMode = REQUIRED, allowableValues = "none")
                                              String attestation,
                                              @Schema(requiredMode = REQUIRED) long timeout,
                                              @Schema(requiredMode = REQUIRED) String expiresAt) {
        static RegistrationOptionsResponse of(RegistrationOptions options) {
            return new RegistrationOptionsResponse(options.challenge(),
                    new RelyingParty(options.rpId(), options.rpName()),
                    new UserEntity(options.userHandle(), options.userName(), options.displayName()),
                    options.algorithms().stream().map(alg -> new CredentialParameters("public-key", alg)).toList(),
                    options.excludeCredentials().stream().map(Descriptor::of).toList(),
                    new AuthenticatorSelection(options.residentKey(), false, options.userVerification()),
                    options.attestation(), options.timeoutMillis(), JsonTimes.format(options.expiresAt()));
        }
    }

    public record RegistrationBody(@Schema(requiredMode = REQUIRED) String userId,
                                   @Schema(requiredMode = REQUIRED, description = "The JSON of the browser's "
                                           + "PublicKeyCredential.toJSON() for the registration")
                                   Map<String, Object> credential,
                                   @Schema(description = "What the user calls this passkey; default: Passkey",
                                           maxLength = PasskeyService.MAX_LABEL_LENGTH) String label,
                                   String ipAddress, String userAgent) {
    }

    public record SignInOptionsBody(@Schema(description = "The user who is signing in; absent for a username-less "
                                            + "sign-in or conditional UI (autofill)") String userId) {
    }

    /** {@code PublicKeyCredentialRequestOptionsJSON}, and when its challenge lapses. */
    public record SignInOptionsResponse(@Schema(requiredMode = REQUIRED) String challenge,
                                        @Schema(requiredMode = REQUIRED) String rpId,
                                        @Schema(requiredMode = REQUIRED, description = "The user's passkeys; for a "
                                                + "user without any, one that is nobody's, so both answers look "
                                                + "alike; empty without a userId") List<Descriptor> allowCredentials,
                                        @Schema(requiredMode = REQUIRED) String userVerification,
                                        @Schema(requiredMode = REQUIRED) long timeout,
                                        @Schema(requiredMode = REQUIRED) String expiresAt) {
        static SignInOptionsResponse of(SignInOptions options) {
            return new SignInOptionsResponse(options.challenge(), options.rpId(),
                    options.allowCredentials().stream().map(Descriptor::of).toList(), options.userVerification(),
                    options.timeoutMillis(), JsonTimes.format(options.expiresAt()));
        }
    }

    public record SignInBody(@Schema(requiredMode = REQUIRED, description = "The JSON of the browser's "
                                     + "PublicKeyCredential.toJSON() for the sign-in") Map<String, Object> credential,
                             @Schema(description = "The user the options named, if they named one") String userId,
                             String ipAddress, String userAgent) {
    }

    public record SignInResponse(@Schema(requiredMode = REQUIRED) boolean valid,
                                 @Schema(requiredMode = REQUIRED) String userId,
                                 @Schema(requiredMode = REQUIRED) String credentialId) {
    }

    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record PasskeyView(@Schema(requiredMode = REQUIRED) String credentialId,
                              @Schema(requiredMode = REQUIRED) String label,
                              @Schema(requiredMode = REQUIRED) List<String> transports,
                              @Schema(requiredMode = REQUIRED) boolean backupEligible,
                              @Schema(requiredMode = REQUIRED) boolean backedUp,
                              @Schema(requiredMode = REQUIRED) String aaguid,
                              @Schema(requiredMode = REQUIRED) String createdAt, String lastUsedAt) {
        public static PasskeyView of(PasskeySummary passkey) {
            return new PasskeyView(passkey.credentialId(), passkey.label(), passkey.transports().stream().sorted()
                    .toList(), passkey.backupEligible(), passkey.backedUp(), passkey.aaguid(),
                    JsonTimes.format(passkey.createdAt()), passkey.lastUsedAt().map(JsonTimes::format).orElse(null));
        }
    }

    public record PasskeysResponse(@Schema(requiredMode = REQUIRED) List<PasskeyView> passkeys) {
    }

    public record RenameBody(@Schema(requiredMode = REQUIRED, maxLength = PasskeyService.MAX_LABEL_LENGTH)
                             String label) {
    }

    public record RenamedResponse(@Schema(requiredMode = REQUIRED, description = "1 when the user has the passkey, "
            + "else 0") int renamed) {
    }

    public record RevokedResponse(@Schema(requiredMode = REQUIRED) int revoked) {
    }

    private final Verification verification;

    public PasskeysController(Verification verification) {
        this.verification = verification;
    }

    @PostMapping(path = "/v1/passkeys/registration/options", consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(summary = "Creation options for a user's new passkey: a fresh single-use challenge, the user's random "
            + "user handle, their passkeys excluded; 409 PASSKEY_REFUSED (CAP_REACHED) at the cap")
    public RegistrationOptionsResponse registrationOptions(@RequestBody RegistrationOptionsBody body) {
        Requests.body(body);
        try {
            return RegistrationOptionsResponse.of(passkeys().registrationOptions(body.userId(),
                    Optional.ofNullable(body.userName()), Optional.ofNullable(body.displayName())));
        } catch (PasskeyCapReachedException atCap) {
            throw refused(HttpStatus.CONFLICT, PasskeyRegistration.Reason.CAP_REACHED.name(), "userId");
        }
    }

    @PostMapping(path = "/v1/passkeys/registration", consumes = MediaType.APPLICATION_JSON_VALUE)
    @ResponseStatus(HttpStatus.CREATED)
    @Operation(summary = "Verify a registration response against the user's open challenge and store the passkey "
            + "(PASSKEY_ADDED), the challenge used up in the same write")
    public PasskeyView register(@RequestBody RegistrationBody body) {
        Requests.body(body);
        PasskeyRegistration result = passkeys().register(body.userId(), credential(body.credential()),
                Optional.ofNullable(body.label()), ClientContext.of(body.ipAddress(), body.userAgent(), null));
        if (result instanceof PasskeyRegistration.Registered registered) {
            return PasskeyView.of(registered.passkey());
        }
        PasskeyRegistration.NotRegistered refused = (PasskeyRegistration.NotRegistered) result;
        throw refused(HttpStatus.CONFLICT, refused.reason().name(), refused.check());
    }

    @PostMapping(path = "/v1/passkeys/sign-in/options", consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(summary = "Request options for a sign-in: a fresh single-use challenge; with a userId the user's "
            + "passkeys (the same shape for a user without any), without one a username-less sign-in")
    public SignInOptionsResponse signInOptions(@RequestBody SignInOptionsBody body) {
        Requests.body(body);
        return SignInOptionsResponse.of(passkeys().signInOptions(Optional.ofNullable(body.userId())));
    }

    @PostMapping(path = "/v1/passkeys/sign-in", consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(summary = "Verify a sign-in assertion: signature, challenge (used at most once), origin, RP ID, flags "
            + "and sign count; a failed one counts in VERIFY_PASSKEY")
    public SignInResponse signIn(@RequestBody SignInBody body) {
        Requests.body(body);
        PasskeyVerification result = passkeys().verify(credential(body.credential()),
                Optional.ofNullable(body.userId()), ClientContext.of(body.ipAddress(), body.userAgent(), null));
        if (result instanceof PasskeyVerification.Valid valid) {
            return new SignInResponse(true, valid.userId(), valid.credentialId());
        }
        PasskeyVerification.Invalid invalid = (PasskeyVerification.Invalid) result;
        HttpStatus status = invalid.reason() == PasskeyVerification.Reason.TOO_MANY_ATTEMPTS
                ? HttpStatus.TOO_MANY_REQUESTS : HttpStatus.CONFLICT;
        throw refused(status, invalid.reason().name(), invalid.check());
    }

    @GetMapping("/v1/users/{userId}/passkeys")
    @Operation(summary = "The user's passkeys, oldest first; no key material")
    public PasskeysResponse list(@PathVariable String userId) {
        return new PasskeysResponse(passkeys().list(userId).stream().map(PasskeyView::of).toList());
    }

    @PostMapping(path = "/v1/users/{userId}/passkeys/{credentialId}/label", consumes = MediaType.APPLICATION_JSON_VALUE)
    @Operation(summary = "Rename one of the user's passkeys")
    public RenamedResponse rename(@PathVariable String userId, @PathVariable String credentialId,
                                  @RequestBody RenameBody body) {
        Requests.body(body);
        return new RenamedResponse(passkeys().rename(userId, credentialId, body.label()) ? 1 : 0);
    }

    @DeleteMapping("/v1/users/{userId}/passkeys/{credentialId}")
    @Operation(summary = "Revoke one of the user's passkeys (PASSKEY_REVOKED)")
    public RevokedResponse revoke(@PathVariable String userId, @PathVariable String credentialId) {
        return new RevokedResponse(passkeys().revoke(userId, credentialId, ClientContext.none()) ? 1 : 0);
    }

    @DeleteMapping("/v1/users/{userId}/passkeys")
    @Operation(summary = "Revoke every passkey of the user (PASSKEY_REVOKED each)")
    public RevokedResponse revokeAll(@PathVariable String userId) {
        return new RevokedResponse(passkeys().revokeAll(userId, ClientContext.none()));
    }

    private PasskeyService passkeys() {
        try {
            return verification.passkeys();
        } catch (IllegalStateException off) {
            throw new ApiProblem(HttpStatus.NOT_FOUND, "PASSKEYS_OFF", "Passkeys are off: set "
                    + "VERIFICATION_PASSKEYS_RP_ID and VERIFICATION_PASSKEYS_ORIGINS", Map.of());
        }
    }

    /** The response as the browser made it, for webauthn4j to parse; absent is the field's problem. */
    private static String credential(Map<String, Object> credential) {
        if (credential == null) {
            throw new InvalidInputException("credential", "is required: the JSON of PublicKeyCredential.toJSON()");
        }
        return JSON.writeValueAsString(credential);
    }

    private static ApiProblem refused(HttpStatus status, String reason, String check) {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("reason", reason);
        properties.put("field", fieldOf(check));
        properties.put("check", check);
        return new ApiProblem(status, REFUSED, "The passkey was refused: " + reason + " (" + check + ")", properties);
    }

    /** The request field a failed check is about. */
    private static String fieldOf(String check) {
        return "userId".equals(check) ? check : "credential";
    }
}
