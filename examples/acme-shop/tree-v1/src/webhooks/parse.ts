import { verifySignature } from "./signature";

export interface WebhookEvent {
  id: string;
  type: "payment.succeeded" | "payment.failed" | "refund.created";
  data: Record<string, unknown>;
}

/**
 * Parses an inbound payment-provider webhook. The signature is checked before the body
 * is trusted: a bad or stale signature throws InvalidSignatureError.
 */
export function parse(rawBody: string, signatureHeader: string, secret: string): WebhookEvent {
  verifySignature(secret, signatureHeader, rawBody);
  const event = JSON.parse(rawBody) as WebhookEvent;
  if (typeof event.id !== "string" || typeof event.type !== "string") {
    throw new TypeError("webhook body is not an event");
  }
  return event;
}
