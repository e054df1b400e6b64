/**
 * What every part of the storage SPI shares and that depends on no domain concept: the one exception a
 * store throws when it fails. The SPI's interfaces live with their domain ({@code codes.CodeRepository},
 * {@code devices.DeviceRepository}, ...) and are gathered in {@code store.VerificationStore}; keeping the
 * exception here lets the domain throw and catch it without depending on that gathering interface.
 */
package dev.verificationservice.spi;
