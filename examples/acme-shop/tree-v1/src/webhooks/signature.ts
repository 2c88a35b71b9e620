import { createHmac, timingSafeEqual } from "node:crypto";

export class InvalidSignatureError extends Error {
  constructor(reason: string) {
    super(`webhook signature rejected: ${reason}`);
    this.name = "InvalidSignatureError";
  }
}

export function computeSignature(secret: string, timestamp: string, body: string): string {
  return createHmac("sha256", secret).update(`${timestamp}.${body}`).digest("hex");
}

/** Constant-time comparison of the `Acme-Signature` header against our own HMAC. */
export function verifySignature(secret: string, header: string, body: string, toleranceSeconds = 300): void {
  const parts = Object.fromEntries(header.split(",").map((p) => p.split("=", 2)));
  const timestamp = parts["t"];
  const given = parts["v1"];
  if (!timestamp || !given) {
    throw new InvalidSignatureError("malformed header");
  }
  if (Math.abs(Date.now() / 1000 - Number(timestamp)) > toleranceSeconds) {
    throw new InvalidSignatureError("timestamp outside tolerance");
  }
  const expected = computeSignature(secret, timestamp, body);
  if (!timingSafeEqual(Buffer.from(expected), Buffer.from(given))) {
    throw new InvalidSignatureError("digest mismatch");
  }
}
