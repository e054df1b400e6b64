package dev.verificationservice.events;

import dev.verificationservice.audit.AuditEventType;
import dev.verificationservice.validation.InvalidInputException;
import java.util.Arrays;
import java.util.Collection;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.Collectors;

/**
 * The event type of each audit entry type: lower case with dots, {@code CODE_VERIFIED} becomes
 * {@code code.verified}, so receivers see the names Standard Webhooks examples use while the audit log keeps its own.
 */
public final class EventTypes {

    private EventTypes() {
    }

    public static String of(AuditEventType type) {
        return type.name().toLowerCase(Locale.ROOT).replace('_', '.');
    }

    /** Every event type, sorted. */
    public static Set<String> all() {
        return Arrays.stream(AuditEventType.values()).map(EventTypes::of)
                .collect(Collectors.toCollection(TreeSet::new));
    }

    /**
     * An endpoint's subscription as asked for: empty means every type; an unknown name is refused naming
     * {@code eventTypes}, so a typo never silently subscribes to nothing.
     */
    public static Set<String> subscription(Collection<String> requested) {
        Set<String> known = all();
        Set<String> chosen = new TreeSet<>();
        for (String name : requested) {
            if (name == null || !known.contains(name)) {
                throw new InvalidInputException("eventTypes", "holds '" + name + "', which is not an event type; "
                        + "use some of " + known + ", or leave eventTypes out for all of them");
            }
            chosen.add(name);
        }
        return chosen;
    }
}
