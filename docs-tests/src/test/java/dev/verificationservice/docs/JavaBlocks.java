package dev.verificationservice.docs;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.MalformedURLException;
import java.net.URI;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import javax.tools.Diagnostic;
import javax.tools.DiagnosticCollector;
import javax.tools.JavaCompiler;
import javax.tools.JavaFileObject;
import javax.tools.SimpleJavaFileObject;
import javax.tools.StandardJavaFileManager;
import javax.tools.StandardLocation;
import javax.tools.ToolProvider;

/**
 * Compiles a Java block of the documentation exactly as a reader pastes it: one compilation unit (its own
 * imports, no package or any package), against the project's jars (this module's test classpath: the server,
 * the starter, the core, both stores, the client), for Java 17.
 */
final class JavaBlocks {

    private static final Pattern TOP_LEVEL_TYPE = Pattern.compile(
            "^(?:public\\s+)?(?:final\\s+|abstract\\s+|sealed\\s+)*(?:class|record|interface|enum)\\s+(\\w+)",
            Pattern.MULTILINE);
    private static final Pattern PACKAGE = Pattern.compile("^package\\s+([\\w.]+)\\s*;", Pattern.MULTILINE);

    private JavaBlocks() {
    }

    /** The block compiled, or the compiler's errors, each with the Markdown file and line it comes from. */
    sealed interface Compiled {
        record Classes(Markdown.Block block, Path directory, String mainType) implements Compiled {

            /** A class loader for the block's classes, beside the project's. */
            ClassLoader loader() {
                try {
                    return new URLClassLoader(new URL[] {directory.toUri().toURL()}, JavaBlocks.class.getClassLoader());
                } catch (MalformedURLException e) {
                    throw new IllegalStateException(e);
                }
            }

            Class<?> type(String simpleName) throws ClassNotFoundException {
                String packageName = packageOf(block.text());
                return loader().loadClass(packageName.isEmpty() ? simpleName : packageName + "." + simpleName);
            }
        }

        record Errors(Markdown.Block block, List<String> messages) implements Compiled {
        }
    }

    static Compiled compile(Markdown.Block block) {
        String source = block.text();
        Matcher type = TOP_LEVEL_TYPE.matcher(source);
        if (!type.find()) {
            return new Compiled.Errors(block, List.of(block.where()
                    + ": no top-level class, record, interface or enum: a Java block must be a whole file"));
        }
        String mainType = type.group(1);
        JavaCompiler compiler = ToolProvider.getSystemJavaCompiler();
        DiagnosticCollector<JavaFileObject> diagnostics = new DiagnosticCollector<>();
        try (StandardJavaFileManager files = compiler.getStandardFileManager(diagnostics, Locale.ROOT, null)) {
            Path output = Files.createTempDirectory("markdown-java");
            files.setLocation(StandardLocation.CLASS_OUTPUT, List.of(output.toFile()));
            List<String> options = List.of("--release", "17", "-proc:none", "-classpath",
                    System.getProperty("java.class.path"), "-d", output.toString());
            boolean compiled = compiler.getTask(null, files, diagnostics, options, null,
                    List.of(new Source(mainType, source))).call();
            if (compiled) {
                return new Compiled.Classes(block, output, mainType);
            }
            return new Compiled.Errors(block, diagnostics.getDiagnostics().stream()
                    .filter(diagnostic -> diagnostic.getKind() == Diagnostic.Kind.ERROR)
                    .map(diagnostic -> Markdown.ROOT.relativize(block.file()) + ":"
                            + (block.line() + diagnostic.getLineNumber()) + ": " + diagnostic.getMessage(Locale.ROOT))
                    .collect(Collectors.toList()));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static String packageOf(String source) {
        Matcher matcher = PACKAGE.matcher(source);
        return matcher.find() ? matcher.group(1) : "";
    }

    /** The block's text as the source file {@code <MainType>.java}, as the reader would save it. */
    private static final class Source extends SimpleJavaFileObject {
        private final String text;

        Source(String mainType, String text) {
            super(URI.create("string:///" + mainType.replace('.', File.separatorChar) + Kind.SOURCE.extension),
                    Kind.SOURCE);
            this.text = text;
        }

        @Override
        public CharSequence getCharContent(boolean ignoreEncodingErrors) {
            return text;
        }
    }
}
