package dev.verificationservice.spring;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Supplier;

/**
 * The refused-start reasons of one start, collected instead of thrown one at a time: every rule that throws a
 * {@link StartupException} is run through {@link #run} or {@link #value}, so that the operator is told every missing
 * or wrong setting at once ({@link #throwIfAny}), not one per restart. The same rules serve the settings check that
 * runs before any bean is built and the beans themselves, which collect into a list of their own.
 */
public final class StartupProblems {

    private final List<StartupException> problems = new ArrayList<>();

    /** Runs {@code rule}; a {@link StartupException} it throws is kept, not thrown. */
    public void run(Runnable rule) {
        value(() -> {
            rule.run();
            return Boolean.TRUE;
        });
    }

    /** What {@code rule} makes, or empty when it refused (its {@link StartupException} then kept). */
    public <T> Optional<T> value(Supplier<T> rule) {
        try {
            return Optional.ofNullable(rule.get());
        } catch (StartupException problem) {
            add(problem);
            return Optional.empty();
        }
    }

    /** Keeps {@code problem}, unless the same reason is already kept (two parts may check one setting). */
    public void add(StartupException problem) {
        boolean known = problems.stream().anyMatch(kept -> kept.getMessage().equals(problem.getMessage()));
        if (!known) {
            problems.add(problem);
        }
    }

    public int size() {
        return problems.size();
    }

    public boolean isEmpty() {
        return problems.isEmpty();
    }

    public List<StartupException> list() {
        return List.copyOf(problems);
    }

    /** Nothing when no rule refused; the one problem as it is; several as one {@link StartupException} that lists them. */
    public void throwIfAny() {
        if (problems.size() == 1) {
            throw problems.get(0);
        }
        if (!problems.isEmpty()) {
            throw StartupException.listing(problems);
        }
    }
}
