package dev.verificationservice.sms;

/** A range's sends and verifications over the current window and the one before it. */
public record SmsFigures(long sent, long verified) {

    /** Verified over sent; 1 when nothing was sent. */
    public double conversion() {
        return sent == 0 ? 1 : (double) verified / sent;
    }
}
