import { createHash, createHmac } from "node:crypto";

export function hashToken(token: string): string {
  return createHash("sha256").update(token).digest("hex");
}

export function signAccessToken(userId: string, secret: string, ttlSeconds = 900): string {
  const payload = Buffer.from(JSON.stringify({ sub: userId, exp: Date.now() / 1000 + ttlSeconds }));
  const signature = createHmac("sha256", secret).update(payload).digest("base64url");
  return `${payload.toString("base64url")}.${signature}`;
}
