import { validateRefreshToken } from "./refresh";
import { signAccessToken } from "./tokens";
import type { SessionStore } from "./session-store";

export interface Session {
  userId: string;
  accessToken: string;
  expiresInSeconds: number;
}

export class SessionService {
  constructor(
    private readonly store: SessionStore,
    private readonly signingSecret: string,
  ) {}

  /**
   * Exchanges a refresh token for a new session. Expiry and revocation are decided by
   * validateRefreshToken; its errors propagate unchanged to the HTTP layer.
   */
  async createSession(refreshToken: string, now: Date = new Date()): Promise<Session> {
    const record = await validateRefreshToken(this.store, refreshToken, now);
    const accessToken = signAccessToken(record.userId, this.signingSecret);
    await this.store.saveSession(record.userId, accessToken);
    return { userId: record.userId, accessToken, expiresInSeconds: 900 };
  }

  async endAllSessions(userId: string): Promise<number> {
    return this.store.revokeSessions(userId);
  }
}
