/**
 * Events out: an audit entry of a type some endpoint subscribes to ({@link dev.verificationservice.events.EventSubscriptions})
 * is an event, written in the same atomic step as the entry (the stores mark the entry itself as undelivered, so the
 * outbox costs no extra item), fanned out by the
 * {@link dev.verificationservice.events.WebhookRelay} to the operator's endpoints as Standard Webhooks 1.0 signed
 * requests, retried on the {@link dev.verificationservice.events.RetrySchedule}, and shared between service
 * instances by leases written conditionally. {@link dev.verificationservice.events.Webhooks} is the domain service
 * of the operator API; {@link dev.verificationservice.events.WebhookRepository} the SPI the stores implement.
 */
package dev.verificationservice.events;
