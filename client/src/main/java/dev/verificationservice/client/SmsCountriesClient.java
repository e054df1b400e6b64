package dev.verificationservice.client;

import java.util.List;
import java.util.Objects;

/**
 * SMS countries over the operator API ({@code /v1/admin/sms/countries}): from {@link VerificationClient#smsCountries()}
 * of a client built with an <b>admin key</b>; an application key gets a {@link ProblemException} with code
 * {@code FORBIDDEN}. A country that is no ISO region in capitals (nor {@code 001}) is an
 * {@link InvalidInputException} naming {@code country}.
 */
public final class SmsCountriesClient {

    private static final String PATH = "/v1/admin/sms/countries";

    private final Transport transport;

    SmsCountriesClient(Transport transport) {
        this.transport = transport;
    }

    /** {@code GET /v1/admin/sms/countries}: the countries whose breaker is open, the latest to close first. */
    public List<SmsCountry> openBreakers() {
        return transport.get(Operation.SMS_COUNTRIES, PATH).json().objects("openBreakers").stream()
                .map(row -> new SmsCountry(row.text("country"), row.number("sent"), row.number("verified"),
                        row.instant("openedAt"), row.instant("openUntil"))).toList();
    }

    /** {@code DELETE .../{country}/breaker}: its breaker lifted and its figures forgotten; whether it was open. */
    public boolean liftBreaker(String country) {
        Objects.requireNonNull(country, "country");
        return transport.delete(Operation.LIFT_SMS_COUNTRY_BREAKER, PATH + "/" + Transport.segment(country) + "/breaker")
                .json().bool("wasOpen");
    }
}
