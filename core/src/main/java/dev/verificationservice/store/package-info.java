/**
 * What every part of the storage SPI shares and that depends on no domain concept: {@link
 * dev.verificationservice.store.StoreException}, the one exception a store throws when it fails, and {@link
 * dev.verificationservice.store.UnitOfWork}, how the steps of one operation run as a unit (one transaction on the
 * embedded store, separate requests on DynamoDB). The SPI's
 * interfaces live with their domain ({@code codes.CodeRepository}, {@code devices.DeviceRepository}, ...) and are
 * the ports of {@code dev.verificationservice.VerificationStore}, beside {@code Verification}, which is built on
 * it; keeping the exception apart lets every domain package throw and catch it without a package cycle.
 */
package dev.verificationservice.store;
