import type { RefreshTokenRecord } from "./refresh";
import { query } from "../db/connection";

export interface SessionStore {
  findRefreshToken(tokenHash: string): Promise<RefreshTokenRecord | undefined>;
  saveSession(userId: string, accessToken: string): Promise<void>;
  revokeSessions(userId: string): Promise<number>;
}

export class PgSessionStore implements SessionStore {
  async findRefreshToken(tokenHash: string): Promise<RefreshTokenRecord | undefined> {
    const rows = await query<RefreshTokenRecord>(
      "select user_id, token_hash, expires_at, revoked from refresh_tokens where token_hash = $1",
      [tokenHash],
    );
    return rows[0];
  }

  async saveSession(userId: string, accessToken: string): Promise<void> {
    await query("insert into sessions (user_id, access_token) values ($1, $2)", [userId, accessToken]);
  }

  async revokeSessions(userId: string): Promise<number> {
    const rows = await query("update sessions set revoked = true where user_id = $1 returning id", [userId]);
    return rows.length;
  }
}
