package dev.verificationservice.bench;

import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The server jar in a process of its own, started the way the README starts it. Times readiness from the
 * moment the process is started, by polling {@code /actuator/health/readiness}, and reads its memory and CPU
 * time from {@code /proc}.
 */
final class ServerProcess implements AutoCloseable {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();

    private final Process process;
    private final long startedNanos;
    private final int port;
    private long readyNanos = -1;
    private double cpuSecondsAtReady = -1;

    private ServerProcess(Process process, long startedNanos, int port) {
        this.process = process;
        this.startedNanos = startedNanos;
        this.port = port;
    }

    /** Starts {@code command} with the environment added, logging to {@code log}. */
    static ServerProcess start(List<String> command, Map<String, String> environment, int port, Path log) {
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile());
        builder.environment().keySet().removeIf(name -> name.startsWith("VERIFICATION_") || name.equals("SERVER_PORT"));
        builder.environment().putAll(environment);
        builder.environment().put("SERVER_PORT", Integer.toString(port));
        try {
            Files.createDirectories(log.getParent());
            long started = System.nanoTime();
            return new ServerProcess(builder.start(), started, port);
        } catch (IOException e) {
            throw new IllegalStateException("cannot start " + command, e);
        }
    }

    int port() {
        return port;
    }

    String base() {
        return "http://127.0.0.1:" + port;
    }

    /** Polls readiness every 10 ms until it answers 200; the time from the process start. */
    Duration awaitReady(Duration timeout) {
        HttpRequest request = HttpRequest.newBuilder(URI.create(base() + "/actuator/health/readiness"))
                .timeout(Duration.ofSeconds(2)).build();
        long deadline = startedNanos + timeout.toNanos();
        while (System.nanoTime() < deadline) {
            if (!process.isAlive()) {
                throw new IllegalStateException("the server exited with " + process.exitValue() + " before it was ready");
            }
            try {
                if (HTTP.send(request, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    readyNanos = System.nanoTime();
                    cpuSecondsAtReady = cpuSeconds();
                    return Duration.ofNanos(readyNanos - startedNanos);
                }
            } catch (IOException e) {
                // not listening yet
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new IllegalStateException(e);
            }
            sleep(10);
        }
        throw new IllegalStateException("the server was not ready within " + timeout);
    }

    /**
     * Fails when the process has exited: a server whose port another process took between {@link #freePort} and its
     * start fails to start, and whatever then answered on the port (readiness included) was that other process.
     */
    void requireAlive() {
        if (!process.isAlive()) {
            throw new IllegalStateException("the server exited (" + process.exitValue() + "): another process answered "
                    + "on port " + port + ", so the figures are not the server's; see its log");
        }
    }

    double cpuSecondsAtReady() {
        return cpuSecondsAtReady;
    }

    /** Resident set size now, from /proc/&lt;pid&gt;/status (VmRSS), in MB. */
    double rssMegabytes() {
        return procField("status", "VmRSS") / 1024.0;
    }

    /** User plus system CPU time of the process so far (/proc/&lt;pid&gt;/stat, clock ticks of 1/100 s). */
    double cpuSeconds() {
        try {
            String stat = Files.readString(Path.of("/proc/" + process.pid() + "/stat"));
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(fields[11]) + Long.parseLong(fields[12])) / 100.0;
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * Bytes the process has handed to write calls so far (/proc/&lt;pid&gt;/io, {@code wchar}): on the embedded store
     * nearly all of it is the write-ahead log and its checkpoints.
     */
    long bytesWritten() {
        return procField("io", "wchar");
    }

    /** The number on the line {@code name:} of /proc/&lt;pid&gt;/{@code file} (a unit after it ignored). */
    private long procField(String file, String name) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/" + process.pid() + "/" + file))) {
                if (line.startsWith(name + ":")) {
                    return Long.parseLong(line.substring(name.length() + 1).replaceAll("[^0-9]", ""));
                }
            }
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
        throw new IllegalStateException("no " + name + " in /proc/" + process.pid() + "/" + file);
    }

    static int freePort() {
        try (java.net.ServerSocket socket = new java.net.ServerSocket(0)) {
            return socket.getLocalPort();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                process.waitFor(10, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
