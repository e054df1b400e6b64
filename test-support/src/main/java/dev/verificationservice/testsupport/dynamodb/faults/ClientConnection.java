package dev.verificationservice.testsupport.dynamodb.faults;

import java.io.Closeable;
import java.io.IOException;
import java.net.Socket;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/** A client connection of the {@link DynamoDbFaultProxy}, its connection to the engine, and the thread serving them. */
final class ClientConnection {

    final Socket client;
    final Upstream upstream;
    private final CountDownLatch end = new CountDownLatch(1);
    private Thread thread; // guarded by this

    ClientConnection(Socket client, Upstream upstream) {
        this.client = client;
        this.upstream = upstream;
    }

    synchronized void bind(Thread serving) {
        thread = serving;
    }

    /** Called when serving ends; clears an interrupt from {@link #abort()} before the pool reuses the thread. */
    synchronized void unbind() {
        thread = null;
        Thread.interrupted();
    }

    /** Marks the connection as no longer served: its thread has left every socket call. */
    void ended() {
        end.countDown();
    }

    /** Whether the connection ended within {@code nanos}. */
    boolean awaitEnd(long nanos) throws InterruptedException {
        return end.await(Math.max(0, nanos), TimeUnit.NANOSECONDS);
    }

    /** Closes both sides and wakes the serving thread if it sleeps in a delay. */
    synchronized void abort() {
        closeQuietly(client);
        upstream.close();
        if (thread != null && thread != Thread.currentThread()) {
            thread.interrupt();
        }
    }

    /** Closes the client connection with a TCP RST instead of a FIN. */
    void reset() {
        try {
            client.setSoLinger(true, 0);
        } catch (IOException ignored) {
            // closing is what matters
        }
        closeQuietly(client);
    }

    static void closeQuietly(Closeable closeable) {
        if (closeable == null) {
            return;
        }
        try {
            closeable.close();
        } catch (IOException ignored) {
            // closing is all that is wanted
        }
    }
}
