import { RefreshTokenExpiredError, RefreshTokenRevokedError } from "./errors";
import { hashToken } from "./tokens";
import type { SessionStore } from "./session-store";

export interface RefreshTokenRecord {
  userId: string;
  tokenHash: string;
  expiresAt: Date;
  revoked: boolean;
}

/**
 * Checks a refresh token against the store. Expired tokens are rejected with
 * RefreshTokenExpiredError so the client knows to send the user back to login.
 */
export async function validateRefreshToken(
  store: SessionStore,
  refreshToken: string,
  now: Date = new Date(),
): Promise<RefreshTokenRecord> {
  const record = await store.findRefreshToken(hashToken(refreshToken));
  if (record === undefined || record.revoked) {
    throw new RefreshTokenRevokedError();
  }
  if (record.expiresAt.getTime() <= now.getTime()) {
    throw new RefreshTokenExpiredError(record.expiresAt);
  }
  return record;
}
