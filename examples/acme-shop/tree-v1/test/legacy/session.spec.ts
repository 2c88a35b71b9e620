import { describe, expect, it, vi } from "vitest";
import { createSession } from "../../src/legacy/session";

vi.mock("../../src/db/connection", () => ({
  query: vi.fn().mockResolvedValue([{ user_id: "u1", expires_at: new Date("2020-01-01") }]),
}));

describe("legacy createSession", () => {
  it("still extends an expired token for 2.x clients", async () => {
    expect((await createSession("raw-token")).cookie).toMatch(/^sid=u1-/);
  });
});
