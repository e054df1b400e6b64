/**
 * What every part of the storage SPI shares and that depends on no domain concept: {@link
 * dev.verificationservice.store.StoreException}, the one exception a store throws when it fails. The SPI's
 * interfaces live with their domain ({@code codes.CodeRepository}, {@code devices.DeviceRepository}, ...) and are
 * gathered in {@code dev.verificationservice.VerificationStore}, beside {@code Verification}, which is built on
 * it; keeping the exception apart lets every domain package throw and catch it without a package cycle.
 */
package dev.verificationservice.store;
