package dev.verificationservice.table;

import java.time.Instant;
import java.time.LocalDateTime;
import java.time.YearMonth;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * Timestamps as the table stores them: ISO-8601 UTC with milliseconds and a fixed width
 * ({@code 2026-11-30T04:57:57.123Z}), so that comparing them as text compares them as times.
 */
public final class Timestamps {

    private static final DateTimeFormatter FIXED_WIDTH =
            DateTimeFormatter.ofPattern("uuuu-MM-dd'T'HH:mm:ss.SSS'Z'").withZone(ZoneOffset.UTC);
    /** {@code 2026-11-30T04:57:57.123Z}: the width of every timestamp the table writes. */
    private static final int WIDTH = 24;

    private Timestamps() {
    }

    /**
     * Every item the store writes carries several of these, and the embedded store builds items on its one writer
     * thread, where {@link DateTimeFormatter} was a measurable share of the time: years 0 to 9999 (every time the
     * service meets) are written digit by digit, the same text as {@link #FIXED_WIDTH}; any other year by it.
     */
    public static String format(Instant instant) {
        long seconds = instant.getEpochSecond();
        LocalDateTime time = LocalDateTime.ofEpochSecond(seconds, instant.getNano(), ZoneOffset.UTC);
        int year = time.getYear();
        if (year < 0 || year > 9999) {
            return FIXED_WIDTH.format(instant);
        }
        char[] text = new char[WIDTH];
        digits(text, 0, year, 4);
        text[4] = '-';
        digits(text, 5, time.getMonthValue(), 2);
        text[7] = '-';
        digits(text, 8, time.getDayOfMonth(), 2);
        text[10] = 'T';
        digits(text, 11, time.getHour(), 2);
        text[13] = ':';
        digits(text, 14, time.getMinute(), 2);
        text[16] = ':';
        digits(text, 17, time.getSecond(), 2);
        text[19] = '.';
        digits(text, 20, instant.getNano() / 1_000_000, 3);
        text[23] = 'Z';
        return new String(text);
    }

    /**
     * Reads a timestamp the table holds. The fixed-width form {@link #format} writes is read digit by digit (every
     * item read carries several); anything else, or a fixed-width text that names no valid time, goes to
     * {@link Instant#parse}, which reads every ISO-8601 instant and refuses the rest as it always did.
     */
    public static Instant parse(String text) {
        if (text.length() == WIDTH && text.charAt(4) == '-' && text.charAt(7) == '-' && text.charAt(10) == 'T'
                && text.charAt(13) == ':' && text.charAt(16) == ':' && text.charAt(19) == '.' && text.charAt(23) == 'Z') {
            int year = number(text, 0, 4);
            int month = number(text, 5, 2);
            int day = number(text, 8, 2);
            int hour = number(text, 11, 2);
            int minute = number(text, 14, 2);
            int second = number(text, 17, 2);
            int millis = number(text, 20, 3);
            if ((year | month | day | hour | minute | second | millis) >= 0 && month >= 1 && month <= 12 && day >= 1
                    && day <= YearMonth.of(year, month).lengthOfMonth() && hour <= 23 && minute <= 59 && second <= 59) {
                return LocalDateTime.of(year, month, day, hour, minute, second, millis * 1_000_000)
                        .toInstant(ZoneOffset.UTC);
            }
        }
        return Instant.parse(text);
    }

    private static void digits(char[] text, int at, int value, int width) {
        for (int i = at + width - 1; i >= at; i--) {
            text[i] = (char) ('0' + value % 10);
            value /= 10;
        }
    }

    /** The decimal number of {@code width} ASCII digits at {@code at}, or -1 when one is not a digit. */
    private static int number(String text, int at, int width) {
        int value = 0;
        for (int i = at; i < at + width; i++) {
            char c = text.charAt(i);
            if (c < '0' || c > '9') {
                return -1;
            }
            value = value * 10 + (c - '0');
        }
        return value;
    }
}
