package dev.verificationservice.docs;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * One Markdown file as the documentation tests read it: its fenced code blocks, its links (inline, reference
 * definitions and HTML {@code href}/{@code src}) and the anchors its headings make (as GitHub makes them).
 *
 * <p>Two conventions, both invisible once rendered:
 * <ul>
 *   <li>an HTML comment {@code <!-- not run here: <reason> -->} on the line right above a fence marks a block
 *   the tests must not run or compile (a command that needs AWS or a Docker engine, say); the tests print the
 *   reason as a skip;</li>
 *   <li>a block whose info string is {@code output}, following an {@code sh} block (prose may stand between),
 *   is what that block prints. A line of it matches the printed line when equal, where {@code …} stands for any
 *   text within the line.</li>
 * </ul>
 */
record Markdown(Path file, List<String> lines, List<Block> blocks, List<Link> links, Set<String> anchors) {

    /** The repository's root, where the tests find README.md and docs/. */
    static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

    private static final String NOT_RUN = "<!-- not run here: ";
    /** What is built, installed or checked out, not written: no file there is the repository's own. */
    private static final Set<String> NOT_WRITTEN = Set.of(".git", "target", "node_modules", "data");
    private static final Pattern FENCE = Pattern.compile("^(\\s*)```\\s*([^`\\s]*).*$");
    private static final Pattern LINK = Pattern.compile("(?<!!)\\[[^\\]]*\\]\\(([^)\\s]+)(?:\\s+\"[^\"]*\")?\\)");
    private static final Pattern IMAGE = Pattern.compile("!\\[[^\\]]*\\]\\(([^)\\s]+)\\)");
    /** A reference definition, {@code [label]: target "title"}, which reference-style links point through. */
    private static final Pattern REFERENCE = Pattern.compile("(?m)^ {0,3}\\[[^\\]]+\\]:[ \\t]*<?([^\\s>]+)>?");
    /** An HTML link or image written into the Markdown: {@code <a href="...">}, {@code <img src="...">}. */
    private static final Pattern HTML_LINK = Pattern.compile("<(?:a|img)\\s[^>]*?\\b(?:href|src)=\"([^\"]+)\"");
    private static final Pattern HEADING = Pattern.compile("^(#{1,6})\\s+(.*?)\\s*#*\\s*$");
    private static final Pattern HTML_ID = Pattern.compile("<a\\s+(?:id|name)=\"([^\"]+)\"");

    /** A fenced block: its language (info string's first word), its text, and where it starts (1-based). */
    record Block(Path file, int line, String language, String text, Optional<String> notRunReason,
                 Optional<Block> output) {

        String where() {
            return ROOT.relativize(file) + ":" + line;
        }
    }

    /** A link or image target as written, and the line it is on. */
    record Link(Path file, int line, String target) {

        String where() {
            return ROOT.relativize(file) + ":" + line;
        }
    }

    static Markdown read(Path file) {
        try {
            return parse(file, Files.readAllLines(file));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** README.md, every Markdown file under docs/ and at the root, and each example's README.md. */
    static List<Markdown> all() {
        List<Path> files = new ArrayList<>();
        try (Stream<Path> root = Files.list(ROOT); Stream<Path> docs = Files.walk(ROOT.resolve("docs"));
             Stream<Path> examples = Files.list(ROOT.resolve("examples"))) {
            root.filter(path -> path.toString().endsWith(".md")).forEach(files::add);
            docs.filter(path -> path.toString().endsWith(".md")).forEach(files::add);
            examples.map(example -> example.resolve("README.md")).filter(Files::exists).forEach(files::add);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files.stream().sorted().map(Markdown::read).toList();
    }

    /**
     * The files under {@code root} whose name {@code fileName} accepts, outside what is built, installed or checked
     * out ({@code .git}, {@code target}, {@code node_modules}, {@code data}): what the repository's authors wrote.
     */
    static List<Path> writtenFiles(Path root, Predicate<String> fileName) {
        List<Path> files = new ArrayList<>();
        try {
            Files.walkFileTree(root, new SimpleFileVisitor<>() {
                @Override
                public FileVisitResult preVisitDirectory(Path directory, BasicFileAttributes attributes) {
                    return NOT_WRITTEN.contains(directory.getFileName().toString()) && !directory.equals(root)
                            ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
                }

                @Override
                public FileVisitResult visitFile(Path file, BasicFileAttributes attributes) {
                    if (fileName.test(file.getFileName().toString())) {
                        files.add(file);
                    }
                    return FileVisitResult.CONTINUE;
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return files;
    }

    /** A file's whole text; an unreadable file fails the test that asked. */
    static String text(Path file) {
        try {
            return Files.readString(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Markdown readme() {
        return read(ROOT.resolve("README.md"));
    }

    List<Block> blocks(String language) {
        return blocks.stream().filter(block -> block.language().equals(language)).toList();
    }

    private static Markdown parse(Path file, List<String> lines) {
        List<Block> blocks = new ArrayList<>();
        List<Link> links = new ArrayList<>();
        Set<String> anchors = new LinkedHashSet<>();
        Map<String, Integer> headingCounts = new HashMap<>();
        Block pendingShell = null;
        StringBuilder prose = new StringBuilder(); // every line outside fences, for the links
        List<Integer> proseLines = new ArrayList<>(); // the file's line number of each prose line
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            Matcher fence = FENCE.matcher(line);
            if (fence.matches()) {
                int start = i;
                StringBuilder text = new StringBuilder();
                String indent = fence.group(1);
                for (i = i + 1; i < lines.size() && !lines.get(i).strip().equals("```"); i++) {
                    String body = lines.get(i);
                    text.append(body.startsWith(indent) ? body.substring(indent.length()) : body).append('\n');
                }
                String language = fence.group(2).toLowerCase(Locale.ROOT);
                Optional<String> reason = start > 0 && lines.get(start - 1).strip().startsWith(NOT_RUN)
                        ? Optional.of(lines.get(start - 1).strip().substring(NOT_RUN.length()).replace("-->", "").strip())
                        : Optional.empty();
                Block block = new Block(file, start + 1, language, text.toString(), reason, Optional.empty());
                if (language.equals("output") && pendingShell != null) {
                    blocks.set(blocks.indexOf(pendingShell), new Block(file, pendingShell.line(),
                            pendingShell.language(), pendingShell.text(), pendingShell.notRunReason(),
                            Optional.of(block)));
                    pendingShell = null;
                } else {
                    pendingShell = language.equals("sh") ? block : null;
                }
                blocks.add(block);
                continue;
            }
            Matcher heading = HEADING.matcher(line);
            if (heading.matches()) {
                String anchor = anchorOf(heading.group(2));
                int seen = headingCounts.merge(anchor, 1, Integer::sum);
                anchors.add(seen == 1 ? anchor : anchor + "-" + (seen - 1));
            }
            Matcher id = HTML_ID.matcher(line);
            while (id.find()) {
                anchors.add(id.group(1));
            }
            prose.append(withoutCodeSpans(line)).append('\n');
            proseLines.add(i + 1);
        }
        // Links are found in the prose as a whole, so that one whose text wraps onto the next line counts too.
        String text = prose.toString();
        for (Pattern pattern : List.of(LINK, IMAGE, REFERENCE, HTML_LINK)) {
            Matcher link = pattern.matcher(text);
            while (link.find()) {
                int lineIndex = (int) text.substring(0, link.start()).chars().filter(c -> c == '\n').count();
                links.add(new Link(file, proseLines.get(lineIndex), link.group(1)));
            }
        }
        return new Markdown(file, lines, List.copyOf(blocks), List.copyOf(links), Set.copyOf(anchors));
    }

    /** Inline code is not a link, even when it looks like one. */
    private static String withoutCodeSpans(String line) {
        return line.replaceAll("`[^`]*`", "");
    }

    /**
     * GitHub's anchor for a heading: the text without Markdown, lower case, every character but letters, digits,
     * spaces, hyphens and underscores dropped, spaces made hyphens.
     */
    static String anchorOf(String heading) {
        String text = heading.replaceAll("\\[([^\\]]*)\\]\\([^)]*\\)", "$1").replace("`", "").replace("*", "");
        StringBuilder anchor = new StringBuilder();
        text.toLowerCase(Locale.ROOT).codePoints().forEach(c -> {
            if (Character.isLetterOrDigit(c) || c == '-' || c == '_') {
                anchor.appendCodePoint(c);
            } else if (c == ' ') {
                anchor.append('-');
            }
        });
        return anchor.toString();
    }
}
