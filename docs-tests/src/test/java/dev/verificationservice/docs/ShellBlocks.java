package dev.verificationservice.docs;

import java.io.IOException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

/**
 * Runs a {@code sh} block of the documentation as a reader would paste it into bash, in a directory that holds
 * the started server's {@code data/} (so {@code cat data/api-key} reads its key), with one substitution: the
 * server's address for {@code http://localhost:8080}, since the tests never take a fixed port.
 */
final class ShellBlocks {

    static final String DOCUMENTED_ADDRESS = "http://localhost:8080";
    /** The operator API's key of the server the blocks run against ({@code VERIFICATION_ADMIN_API_KEYS}). */
    static final String ADMIN_KEY = "docs-admin-key-0123456789abcdefghijklmnop";
    private static final long TIMEOUT_SECONDS = 120;

    private ShellBlocks() {
    }

    /** What a run printed (standard output and error, in order) and how it ended. */
    record Run(int exitCode, List<String> lines) {
    }

    static Run run(Markdown.Block block, Path workingDirectory, URI server) throws IOException, InterruptedException {
        return run(block, workingDirectory, server, TIMEOUT_SECONDS);
    }

    /** As above, with {@code timeoutSeconds} bounding a block that hangs. */
    static Run run(Markdown.Block block, Path workingDirectory, URI server, long timeoutSeconds)
            throws IOException, InterruptedException {
        String script = block.text().replace(DOCUMENTED_ADDRESS, server.toString().replaceAll("/$", ""));
        // The output goes to a file, so that a block that never ends cannot block the read: the timeout holds.
        Path output = Files.createTempFile("markdown-sh", ".out");
        try {
            // In a session of its own (setsid), so that everything the block started, a receiver in the
            // background too, is in one process group and ends with it, however the block ended.
            ProcessBuilder builder = new ProcessBuilder("setsid", "bash", "-e", "-o", "pipefail", "-c", script)
                    .directory(workingDirectory.toFile()).redirectErrorStream(true)
                    .redirectOutput(output.toFile());
            // The admin key a reader exports before the events tour, as the test's server has it.
            builder.environment().put("ADMIN_KEY", ADMIN_KEY);
            Process process = builder.start();
            try {
                process.getOutputStream().close();
                if (!process.waitFor(timeoutSeconds, TimeUnit.SECONDS)) {
                    throw new AssertionError(block.where() + ": still running after " + timeoutSeconds + " s; it "
                            + "printed:\n" + Files.readString(output, StandardCharsets.UTF_8));
                }
                return new Run(process.exitValue(), Files.readString(output, StandardCharsets.UTF_8).lines()
                        .map(String::stripTrailing).toList());
            } finally {
                endProcessGroup(process.pid());
                process.destroyForcibly();
            }
        } finally {
            Files.deleteIfExists(output);
        }
    }

    /**
     * Ends every process left in the group {@code leader} leads (setsid made the block's shell its leader) and
     * waits until they have ended, so that no block leaves a receiver or a server running after its test.
     */
    static void endProcessGroup(long leader) throws IOException, InterruptedException {
        List<ProcessHandle> members = processGroup(leader);
        new ProcessBuilder("kill", "-KILL", "--", "-" + leader).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start().waitFor();
        for (ProcessHandle member : members) {
            try {
                member.onExit().get(30, TimeUnit.SECONDS); // bounds a hang; a killed process ends at once
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                throw new AssertionError("process " + member.pid() + " of a shell block did not end when killed", e);
            }
        }
    }

    /** The running processes of the group {@code leader} leads, read from /proc (a zombie counts as ended). */
    static List<ProcessHandle> processGroup(long leader) throws IOException {
        try (var processes = Files.list(Path.of("/proc"))) {
            return processes.filter(p -> p.getFileName().toString().chars().allMatch(Character::isDigit))
                    .filter(p -> inGroup(p, leader))
                    .flatMap(p -> ProcessHandle.of(Long.parseLong(p.getFileName().toString())).stream())
                    .toList();
        }
    }

    private static boolean inGroup(Path process, long leader) {
        try {
            String stat = Files.readString(process.resolve("stat"));
            // pid (comm) state ppid pgrp ...: comm may hold spaces and parentheses, so read after the last ')'.
            String[] fields = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return !fields[0].equals("Z") && Long.parseLong(fields[2]) == leader;
        } catch (IOException | RuntimeException gone) {
            return false;
        }
    }

    /**
     * The differences between what the block printed and its {@code output} block: empty when every line
     * matches ({@code …} in the expected line stands for any text within the line).
     */
    static List<String> differences(Markdown.Block expected, List<String> printed) {
        List<String> wanted = expected.text().lines().map(String::stripTrailing).toList();
        List<String> differences = new ArrayList<>();
        for (int i = 0; i < Math.max(wanted.size(), printed.size()); i++) {
            String want = i < wanted.size() ? wanted.get(i) : "(nothing)";
            String got = i < printed.size() ? printed.get(i) : "(nothing)";
            if (i >= wanted.size() || i >= printed.size() || !matches(want, got)) {
                differences.add(expected.where() + " line " + (i + 1) + ": expected " + want + "\n    printed  " + got);
            }
        }
        return differences;
    }

    static boolean matches(String expected, String printed) {
        StringBuilder regex = new StringBuilder();
        for (String part : expected.split("…", -1)) {
            if (!regex.isEmpty()) {
                regex.append(".*");
            }
            regex.append(Pattern.quote(part));
        }
        return Pattern.compile(regex.toString(), Pattern.DOTALL).matcher(printed).matches();
    }
}
