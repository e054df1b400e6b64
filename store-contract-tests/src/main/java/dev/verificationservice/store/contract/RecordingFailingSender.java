package dev.verificationservice.store.contract;

import dev.verificationservice.codes.CodeSender;
import dev.verificationservice.codes.DeliveryException;
import dev.verificationservice.codes.OutgoingCode;
import java.util.ArrayList;
import java.util.List;

/** A channel that is down: it keeps what it was asked to send (so a test can try the code) and fails. */
final class RecordingFailingSender implements CodeSender {

    final List<OutgoingCode> attempted = new ArrayList<>();

    @Override
    public synchronized void send(OutgoingCode message) throws DeliveryException {
        attempted.add(message);
        throw new DeliveryException("SMTP server refused the connection");
    }
}
