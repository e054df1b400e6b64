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

    @Provide
    Arbitrary<String> invalidIds() {
        Arbitrary<String> anything = Arbitraries.strings().ofMinLength(0).ofMaxLength(200);
        Arbitrary<String> withHash = validIds().map(id -> id.substring(0, id.length() / 2) + "#" + id.substring(id.length() / 2));
        Arbitrary<String> tooLong = validIds().map(id -> id.repeat(129 / id.length() + 1));
        return Arbitraries.oneOf(anything, withHash, tooLong).filter(id -> !Inputs.IDENTIFIER.matcher(id).matches());
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
    void aUserIdAndAnActionNeverRunTogether(@ForAll("validIds") String a, @ForAll("validIds") String b,
                                            @ForAll CodeType type, @ForAll("instants") Instant at) {
        // RATELIMIT#<userId>#<action>: with no '#' in ids, "a" + "#SEND_X" can never equal "a#SEND" + "_X"-style splits.
        Assume.that(!a.equals(b));
        assertThat(TableKeys.rateLimitWindow(a, "VERIFY_" + type, at).pk())
                .isNotEqualTo(TableKeys.rateLimitWindow(b, "VERIFY_" + type, at).pk());
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
