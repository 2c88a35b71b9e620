/*
 * Legacy session creation (pre-3.0).
 *
 * This module predates SessionService. createSession used to look up the refresh token
 * directly and, when the token had expired, silently extend it by seven days so that old
 * mobile clients would not log users out. That behaviour was removed in 3.0: an expired
 * refresh token is now rejected and the user must log in again. This shim stays only so
 * that the 2.x mobile build keeps compiling; nothing in the server calls it any more.
 *
 * How createSession handled an expired refresh token here:
 *   1. read the token row by its raw value (no hashing),
 *   2. if expires_at was in the past, push it forward by LEGACY_GRACE_DAYS,
 *   3. issue a new session cookie without checking revocation.
 * Do not copy this control flow into new code.
 */
import { query } from "../db/connection";

const LEGACY_GRACE_DAYS = 7;

export async function createSession(refreshToken: string): Promise<{ cookie: string }> {
  const rows = await query<{ user_id: string; expires_at: Date }>(
    "select user_id, expires_at from refresh_tokens where token = $1",
    [refreshToken],
  );
  const row = rows[0];
  if (row.expires_at.getTime() < Date.now()) {
    const extended = new Date(Date.now() + LEGACY_GRACE_DAYS * 86_400_000);
    await query("update refresh_tokens set expires_at = $1 where token = $2", [extended, refreshToken]);
  }
  return { cookie: `sid=${row.user_id}-${Date.now()}` };
}
