package dev.verificationservice.codes;

/**
 * What a code looks like. A {@link #NUMERIC} code is typed by a person, so it is short and only ever
 * verified together with its userId and codeType (both are inside its digest); a {@link #LINK} code
 * carries 256 random bits and is verified by itself.
 */
public enum CodeFormat {
    NUMERIC,
    LINK;

    public static final int DEFAULT_NUMERIC_LENGTH = 6;
    public static final int MIN_NUMERIC_LENGTH = 6;
    public static final int MAX_NUMERIC_LENGTH = 10;
}
