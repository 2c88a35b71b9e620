import { describe, expect, it } from "vitest";
import { validateRefreshToken } from "../../src/auth/refresh";
import { RefreshTokenRevokedError } from "../../src/auth/errors";

describe("validateRefreshToken", () => {
  it("treats an unknown token as revoked", async () => {
    const store = { findRefreshToken: async () => undefined, saveSession: async () => {}, revokeSessions: async () => 0 };
    await expect(validateRefreshToken(store, "nope")).rejects.toBeInstanceOf(RefreshTokenRevokedError);
  });
});
