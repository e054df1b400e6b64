package dev.verificationservice.passkeys;

/**
 * Registration options refused because the user holds the most passkeys allowed. Unlike an
 * {@link dev.verificationservice.validation.InvalidInputException} it comes after the store was read (and the
 * challenge stored beside that read, which lapses unused), so an HTTP layer answers it as a refusal, not as bad input.
 */
public final class PasskeyCapReachedException extends RuntimeException {

    private final int cap;

    public PasskeyCapReachedException(int cap) {
        super("userId: has " + cap + " passkeys already; revoke one before registering another");
        this.cap = cap;
    }

    public int cap() {
        return cap;
    }
}
