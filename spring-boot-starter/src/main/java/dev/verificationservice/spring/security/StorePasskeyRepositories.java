package dev.verificationservice.spring.security;

import dev.verificationservice.passkeys.PasskeyRepository;
import dev.verificationservice.passkeys.PasskeyService;
import java.util.List;
import java.util.Optional;
import org.springframework.security.web.webauthn.api.Bytes;
import org.springframework.security.web.webauthn.api.CredentialRecord;
import org.springframework.security.web.webauthn.api.PublicKeyCredentialUserEntity;
import org.springframework.security.web.webauthn.management.PublicKeyCredentialUserEntityRepository;
import org.springframework.security.web.webauthn.management.UserCredentialRepository;

/**
 * Spring Security's user-entity and credential repositories on the store's passkey items. A user entity is the
 * user's random user handle (never the user id) with the username; a credential record is a stored passkey.
 * Passkeys are written only by {@link VerificationPasskeyOperations}, in the write that consumes their challenge, so
 * {@code save} is refused here; a delete (the registration page's) revokes through the core, audited.
 */
final class StorePasskeyRepositories {

    private final PasskeyRepository store;
    private final PasskeyService passkeys;
    private final PasskeyUsers users;

    StorePasskeyRepositories(PasskeyRepository store, PasskeyService passkeys, PasskeyUsers users) {
        this.store = store;
        this.passkeys = passkeys;
        this.users = users;
    }

    PublicKeyCredentialUserEntityRepository userEntities() {
        return new PublicKeyCredentialUserEntityRepository() {
            /** The signed-in user's entity, if {@code id} is their user handle ({@link PasskeyUsers}). */
            @Override
            public PublicKeyCredentialUserEntity findById(Bytes id) {
                return users.signedIn().flatMap(userId -> entity(userId)).filter(entity -> entity.getId().equals(id))
                        .orElse(null);
            }

            /** The user's entity once the user has a passkey; null before (nothing to list or sign in with). */
            @Override
            public PublicKeyCredentialUserEntity findByUsername(String username) {
                return users.userId(username).flatMap(userId -> entity(userId)).orElse(null);
            }

            /** Keeps the entity's id as the user's handle unless the user has one already (the stored one wins). */
            @Override
            public void save(PublicKeyCredentialUserEntity entity) {
                String userId = users.userId(entity.getName()).orElseThrow(() -> new IllegalArgumentException(
                        "no account for the username of this user entity"));
                store.userHandle(userId, entity.getId().toBase64UrlString());
            }

            @Override
            public void delete(Bytes id) {
                throw new UnsupportedOperationException("a user handle stays with its user; revoke the user's "
                        + "passkeys with PasskeyService.revokeAll");
            }
        };
    }

    UserCredentialRepository credentials() {
        return new UserCredentialRepository() {
            /** Revokes the passkey (audited as PASSKEY_REVOKED); Spring has checked that it is the caller's. */
            @Override
            public void delete(Bytes credentialId) {
                store.findPasskey(credentialId.toBase64UrlString()).ifPresent(passkey -> passkeys.revoke(
                        passkey.userId(), passkey.credentialId(), Clients.current()));
            }

            @Override
            public void save(CredentialRecord record) {
                throw new UnsupportedOperationException("passkeys are stored by VerificationPasskeyOperations, in "
                        + "the write that consumes their challenge; Spring's own relying party would store them "
                        + "outside it");
            }

            @Override
            public CredentialRecord findByCredentialId(Bytes credentialId) {
                return store.findPasskey(credentialId.toBase64UrlString()).map(SpringPasskeys::record).orElse(null);
            }

            /** The signed-in user's passkeys, if {@code userHandle} is theirs ({@link PasskeyUsers}). */
            @Override
            public List<CredentialRecord> findByUserId(Bytes userHandle) {
                return users.signedIn().map(store::findPasskeys).orElse(List.of()).stream()
                        .filter(passkey -> passkey.userHandle().equals(userHandle.toBase64UrlString()))
                        .map(SpringPasskeys::record).toList();
            }
        };
    }

    private Optional<PublicKeyCredentialUserEntity> entity(String userId) {
        Optional<String> username = users.username(userId);
        return username.flatMap(name -> store.findPasskeys(userId).stream().findFirst()
                .map(passkey -> SpringPasskeys.user(passkey.userHandle(), name)));
    }
}
