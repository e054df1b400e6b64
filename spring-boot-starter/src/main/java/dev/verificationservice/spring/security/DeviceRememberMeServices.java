package dev.verificationservice.spring.security;

import dev.verificationservice.devices.DeviceRegistration;
import dev.verificationservice.devices.DeviceService;
import dev.verificationservice.devices.DeviceVerification;
import dev.verificationservice.devices.RegisteredDevice;
import dev.verificationservice.security.SecureTokens;
import dev.verificationservice.store.StoreException;
import dev.verificationservice.validation.InvalidInputException;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;
import java.time.Clock;
import java.time.Duration;
import java.util.HexFormat;
import java.util.Optional;
import org.springframework.security.core.Authentication;
import org.springframework.security.core.userdetails.UserDetails;
import org.springframework.security.core.userdetails.UserDetailsService;
import org.springframework.security.web.authentication.rememberme.AbstractRememberMeServices;
import org.springframework.security.web.authentication.rememberme.InvalidCookieException;
import org.springframework.security.web.authentication.rememberme.RememberMeAuthenticationException;

/**
 * Spring Security's remember-me on this store's remembered devices: a login that asks to be remembered registers
 * the browser as a device (the core keeps only the HMAC of its 256-bit secret, with a {@code DEVICE_ADDED} entry)
 * and the cookie carries the device id and the secret. A later visit without a session presents them: a valid
 * use slides the device's expiry (and the cookie's) by the device lifetime, within its maximum life; a revoke-all
 * (for example on a password change, {@link #revokeAll}) refuses every remembered browser of the user from then
 * on; logging out forgets this browser.
 *
 * <p>The secret does not change on use, so a stolen cookie stays as good as the owner's until the device expires
 * or is revoked: unlike Spring's persistent tokens nothing detects the theft when both go on using it; each use
 * is audited ({@code DEVICE_VERIFIED}, with the client's address and user agent), which is where it shows.
 */
public final class DeviceRememberMeServices extends AbstractRememberMeServices {

    /** The device type browsers are registered with; an application can list them apart from its apps. */
    public static final String DEVICE_TYPE = "browser";

    private final DeviceService devices;
    private final LoginAccounts accounts;
    private final SecureTokens tokens;
    private final Clock clock;

    public DeviceRememberMeServices(DeviceService devices, LoginAccounts accounts, UserDetailsService users,
                                    Duration deviceTtl, Clock clock) {
        // The key only ties the tokens this object makes to Spring's provider in this process: the cookie never
        // carries it, so a random one per start is enough.
        super(new SecureTokens().randomToken(), users);
        this.devices = devices;
        this.accounts = accounts;
        this.tokens = new SecureTokens();
        this.clock = clock;
        setTokenValiditySeconds((int) Math.min(Integer.MAX_VALUE, deviceTtl.toSeconds()));
    }

    @Override
    protected void onLoginSuccess(HttpServletRequest request, HttpServletResponse response,
                                  Authentication authentication) {
        Optional<LoginAccount> account = accounts.findByUsername(authentication.getName());
        if (account.isEmpty()) {
            logger.debug("Remember-me skipped: the username has no account in LoginAccounts");
            return;
        }
        String deviceId = DEVICE_TYPE + "-" + HexFormat.of().formatHex(randomBytes());
        RegisteredDevice device = devices.register(new DeviceRegistration(account.get().userId(), deviceId,
                DEVICE_TYPE, Optional.empty(), Optional.empty(), Clients.of(request)));
        setCookie(new String[] {device.deviceId(), device.secret()}, getTokenValiditySeconds(), request, response);
    }

    private byte[] randomBytes() {
        byte[] bytes = new byte[16];
        tokens.random().nextBytes(bytes);
        return bytes;
    }

    @Override
    protected UserDetails processAutoLoginCookie(String[] cookie, HttpServletRequest request,
                                                 HttpServletResponse response) {
        if (cookie.length != 2) {
            throw new InvalidCookieException("A remember-me cookie holds a device id and its secret");
        }
        DeviceVerification result;
        try {
            result = devices.verify(cookie[0], cookie[1], Clients.of(request));
        } catch (InvalidInputException malformed) {
            throw new InvalidCookieException("Not a remembered device: " + malformed.getMessage());
        }
        if (!(result instanceof DeviceVerification.Valid valid)) {
            throw new RememberMeAuthenticationException("The browser is no longer remembered");
        }
        String username = accounts.usernameOf(valid.userId())
                .orElseThrow(() -> new RememberMeAuthenticationException("The device's user has no username"));
        // The device's expiry slid: so does the cookie's.
        long seconds = Duration.between(clock.instant(), valid.expiresAt()).toSeconds();
        setCookie(cookie, (int) Math.max(1, Math.min(Integer.MAX_VALUE, seconds)), request, response);
        return getUserDetailsService().loadUserByUsername(username);
    }

    /**
     * Forgets this browser: its device is revoked, not only its cookie dropped. The cookie's secret is checked
     * first (logout runs before remember-me, so there may be no authentication yet): only its holder revokes it.
     */
    @Override
    public void logout(HttpServletRequest request, HttpServletResponse response, Authentication authentication) {
        String cookie = extractRememberMeCookie(request);
        if (cookie != null) {
            try {
                String[] parts = decodeCookie(cookie);
                if (parts.length == 2 && devices.verify(parts[0], parts[1], Clients.of(request))
                        instanceof DeviceVerification.Valid valid) {
                    devices.revoke(valid.userId(), valid.deviceId(), Clients.of(request));
                }
            } catch (InvalidCookieException | InvalidInputException ignored) {
                // Nothing of ours to revoke: the cookie is dropped below all the same.
            } catch (StoreException unavailable) {
                // The logout itself must not fail with the store: Spring runs the handlers that end the session
                // after this one, so a throw here would leave the person signed in. The device stays remembered
                // until revoke-all; the cookie goes all the same.
                logger.warn("Logout could not revoke the remembered device (" + unavailable.kind()
                        + "); the session ends and the cookie is dropped, revoke-all ends the device");
            }
        }
        super.logout(request, response, authentication);
    }

    /**
     * Ends every remembered browser of {@code username} (for example when its password changes); the sessions
     * already open stay until they end. Answers how many devices were revoked.
     */
    public int revokeAll(String username, HttpServletRequest request) {
        return accounts.findByUsername(username)
                .map(account -> devices.revokeAll(account.userId(), Clients.of(request)))
                .orElse(0);
    }
}
