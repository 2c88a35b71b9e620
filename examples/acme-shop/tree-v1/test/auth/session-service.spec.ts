import { describe, expect, it } from "vitest";
import { SessionService } from "../../src/auth/session-service";
import { RefreshTokenExpiredError } from "../../src/auth/errors";
import { hashToken } from "../../src/auth/tokens";

function storeWith(expiresAt: Date) {
  return {
    findRefreshToken: async (hash: string) =>
      hash === hashToken("rt-1") ? { userId: "u1", tokenHash: hash, expiresAt, revoked: false } : undefined,
    saveSession: async () => {},
    revokeSessions: async () => 0,
  };
}

describe("SessionService.createSession", () => {
  it("issues a session for a valid refresh token", async () => {
    const service = new SessionService(storeWith(new Date("2030-01-01")), "secret");
    const session = await service.createSession("rt-1", new Date("2029-01-01"));
    expect(session.userId).toBe("u1");
  });

  it("rejects an expired refresh token", async () => {
    const service = new SessionService(storeWith(new Date("2020-01-01")), "secret");
    await expect(service.createSession("rt-1", new Date("2021-01-01"))).rejects.toBeInstanceOf(
      RefreshTokenExpiredError,
    );
  });
});
