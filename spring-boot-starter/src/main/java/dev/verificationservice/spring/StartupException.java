package dev.verificationservice.spring;

import java.util.List;

/** The service cannot start as configured; {@code action} tells the operator what to change. */
public final class StartupException extends RuntimeException {

    private final String action;
    private final List<StartupException> problems;

    public StartupException(String description, String action) {
        this(description, action, (Throwable) null);
    }

    public StartupException(String description, String action, Throwable cause) {
        super(description, cause);
        this.action = action;
        this.problems = List.of(this);
    }

    private StartupException(String description, String action, List<StartupException> problems) {
        super(description);
        this.action = action;
        this.problems = List.copyOf(problems);
    }

    /**
     * One refused start for several problems: the description numbers them, each with its own action under it, so
     * that one report says everything to set.
     */
    static StartupException listing(List<StartupException> problems) {
        StringBuilder description = new StringBuilder(problems.size()
                + " verification settings are missing or wrong; each is listed with what to set:\n");
        for (int i = 0; i < problems.size(); i++) {
            StartupException problem = problems.get(i);
            description.append('\n').append(i + 1).append(". ").append(problem.getMessage().strip())
                    .append("\n   ").append(problem.action().strip().replace("\n", "\n   "));
        }
        return new StartupException(description.toString(),
                "Set or correct each of the " + problems.size() + " settings above as its entry says, then start "
                        + "again. Every setting, its default and its valid values: docs/configuration.md.", problems);
    }

    public String action() {
        return action;
    }

    /** What this refused start is made of: this one problem, or each of those {@link #listing} numbers. */
    public List<StartupException> problems() {
        return problems;
    }

    /**
     * One line, also for several problems: Spring logs {@code "... cancelling refresh attempt: " + exception} at
     * WARN just before the failure report, which would otherwise print the whole list twice.
     */
    @Override
    public String toString() {
        if (problems.size() == 1) {
            return super.toString();
        }
        return getClass().getName() + ": " + problems.size() + " verification settings are missing or wrong (the "
                + "failure report lists each with what to set)";
    }
}
