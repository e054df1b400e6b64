package dev.verificationservice.codes;

import java.util.List;

/** What {@link CodeRepository#placeCode} did with a new code. */
public sealed interface CodePlacement {

    /** Another code holds the new code's key, so nothing was written: generate another code. */
    record KeyTaken() implements CodePlacement {
    }

    /**
     * Stored and made the current code of its user and type, or stored and at once superseded by a newer one.
     *
     * @param deleted what the placement made unusable: the codes it replaced, or the new code itself when a newer
     *                one was current already; empty when there was nothing to replace
     */
    record Placed(List<VerificationCode> deleted) implements CodePlacement {

        public Placed {
            deleted = List.copyOf(deleted);
        }
    }
}
