package dev.verificationservice.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.verificationservice.audit.AuditRepository.AuditPosition;
import dev.verificationservice.codes.CodeType;
import dev.verificationservice.validation.InvalidInputException;
import dev.verificationservice.validation.Inputs;
import java.time.Instant;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Assume;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

/** Keys are injective over valid ids, and ids that could forge a key are refused naming their field. */
class TableKeysProperties {

    @Provide
    Arbitrary<String> validIds() {
        return Arbitraries.strings().withCharRange('a', 'z').withCharRange('A', 'Z').withCharRange('0', '9')
                .withChars('.', '_', '@', '+', ':', '-').ofMinLength(1).ofMaxLength(128);
    }

    /** The alphabet of ids, written out here independently of the production pattern it checks. */
    private static final String ID_ALPHABET =
            "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789._@+:-";

    /**
     * Ids that are invalid by construction (not by the production pattern, which is what is under test):
     * empty, too long, or holding at least one character outside the alphabet ({@code #} most of all).
     */
    @Provide
    Arbitrary<String> invalidIds() {
        Arbitrary<Character> foreign = Arbitraries.oneOf(
                Arbitraries.of('#', ' ', '/', '\\', '%', '\u0000', '\n', '\u00e9', '\u0130', '\uff03', '*', '|'),
                Arbitraries.chars().filter(c -> ID_ALPHABET.indexOf(c) < 0));
        Arbitrary<String> withForeign = Combinators.combine(validIds(), foreign, Arbitraries.integers().between(0, 128))
                .as((id, c, at) -> {
                    int position = Math.min(at, id.length());
                    String spliced = id.substring(0, position) + c + id.substring(position);
                    return spliced.length() > 128 ? spliced.substring(spliced.length() - 128) : spliced;
                })
                .filter(id -> id.chars().anyMatch(c -> ID_ALPHABET.indexOf(c) < 0));
        Arbitrary<String> tooLong = Arbitraries.strings().withChars(ID_ALPHABET.toCharArray()).ofMinLength(129)
                .ofMaxLength(400);
        return Arbitraries.oneOf(Arbitraries.just(""), withForeign, tooLong);
    }

    /** Rate-limit actions: the ones the service uses and any others of the same shape. */
    @Provide
    Arbitrary<String> actions() {
        Arbitrary<String> shaped = Arbitraries.strings().withCharRange('A', 'Z').withChars('_').ofMinLength(1).ofMaxLength(40);
        Arbitrary<String> used = Arbitraries.of(CodeType.class).flatMap(type -> Arbitraries.of("SEND_" + type, "VERIFY_" + type));
        return Arbitraries.oneOf(used, shaped);
    }

    @Provide
    Arbitrary<Instant> instants() {
        return Arbitraries.longs().between(0, 253_402_300_799_999L).map(Instant::ofEpochMilli);
    }

    @Property
    void differentUsersNeverShareAKey(@ForAll("validIds") String a, @ForAll("validIds") String b,
                                      @ForAll CodeType type, @ForAll("instants") Instant at) {
        Assume.that(!a.equals(b));
        assertThat(TableKeys.user(a)).isNotEqualTo(TableKeys.user(b));
        assertThat(TableKeys.codeIndex(a, type, at)).isNotEqualTo(TableKeys.codeIndex(b, type, at));
        assertThat(TableKeys.rateLimitWindow(a, "SEND_" + type, at)).isNotEqualTo(TableKeys.rateLimitWindow(b, "SEND_" + type, at));
        assertThat(TableKeys.auditEntry(a, at, "01")).isNotEqualTo(TableKeys.auditEntry(b, at, "01"));
    }

    @Property
    void differentDevicesNeverShareAKeyOrAPrefix(@ForAll("validIds") String a, @ForAll("validIds") String b,
                                                 @ForAll("validIds") String user) {
        Assume.that(!a.equals(b));
        assertThat(TableKeys.deviceToken(a, "t")).isNotEqualTo(TableKeys.deviceToken(b, "t"));
        assertThat(TableKeys.deviceIndex(user, a, "t").gsi1sk()).doesNotStartWith(TableKeys.deviceOfUserPrefix(b));
    }

    @Property
    void aUserIdAndAnActionNeverRunTogether(@ForAll("validIds") String userA, @ForAll("actions") String actionA,
                                            @ForAll("validIds") String userB, @ForAll("actions") String actionB,
                                            @ForAll("instants") Instant at) {
        // RATELIMIT#<userId>#<action>: with no '#' in ids or actions, two different pairs never give one key.
        Assume.that(!userA.equals(userB) || !actionA.equals(actionB));
        assertThat(TableKeys.rateLimitWindow(userA, actionA, at))
                .isNotEqualTo(TableKeys.rateLimitWindow(userB, actionB, at));
    }

    @Property
    void thePrefixesOfCodesAndOfSubjectsCoverTheirItemsAndNoOthers(@ForAll("validIds") String user,
                                                                   @ForAll("validIds") String deviceId,
                                                                   @ForAll("actions") String action,
                                                                   @ForAll("instants") Instant at) {
        String subjectPrefix = user.substring(0, 1 + user.length() / 2);
        assertThat(TableKeys.rateLimitWindow(user, action, at).pk())
                .startsWith(TableKeys.rateLimitPartitionsPrefix(subjectPrefix));
        assertThat(TableKeys.cooldown(user, action).pk()).startsWith(TableKeys.rateLimitPartitionsPrefix(user));
        assertThat(TableKeys.code(user).pk()).startsWith(TableKeys.codesPrefix());
        assertThat(java.util.List.of(TableKeys.user(user), TableKeys.deviceToken(deviceId, "t").pk(),
                TableKeys.idempotencyKey(user).pk(), TableKeys.rateLimitPartition(user, action)))
                .noneMatch(pk -> pk.startsWith(TableKeys.codesPrefix()));
    }

    @Property
    void auditSortKeysSortByTimeAndReadBack(@ForAll("instants") Instant earlier, @ForAll("instants") Instant later) {
        Assume.that(earlier.isBefore(later));
        String first = TableKeys.auditSortKey(earlier, "ffffffffffff");
        String second = TableKeys.auditSortKey(later, "000000000000");
        assertThat(first).isLessThan(second);
        assertThat(TableKeys.parseAuditSortKey(first)).isEqualTo(new AuditPosition(earlier, "ffffffffffff"));
        assertThat(second).isBetween(TableKeys.auditRangeStart(later), TableKeys.auditRangeEnd(later));
    }

    @Property
    void everyRejectedUserIdNamesTheField(@ForAll("invalidIds") String id) {
        assertThatThrownBy(() -> Inputs.userId(id)).isInstanceOfSatisfying(InvalidInputException.class,
                e -> assertThat(e.field()).isEqualTo("userId"));
    }

    @Property
    void everyRejectedDeviceIdNamesTheField(@ForAll("invalidIds") String id) {
        assertThatThrownBy(() -> Inputs.deviceId(id)).isInstanceOfSatisfying(InvalidInputException.class,
                e -> assertThat(e.field()).isEqualTo("deviceId"));
    }

    @Property
    void everyValidIdIsAcceptedUnchanged(@ForAll("validIds") String id) {
        assertThat(Inputs.userId(id)).isEqualTo(id);
        assertThat(Inputs.deviceId(id)).isEqualTo(id);
    }
}
