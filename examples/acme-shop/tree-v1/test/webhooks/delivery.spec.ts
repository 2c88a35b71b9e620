import { describe, expect, it, vi } from "vitest";
import { deliver } from "../../src/webhooks/delivery";
import { RetryPolicy } from "../../src/retry/policy";

describe("deliver", () => {
  it("retries a merchant endpoint that fails once", async () => {
    const fetchMock = vi.fn().mockRejectedValueOnce(new Error("ECONNRESET")).mockResolvedValue({ ok: true });
    vi.stubGlobal("fetch", fetchMock);
    await deliver("https://merchant.example/hook", "{}", new RetryPolicy(2, 0, 0));
    expect(fetchMock).toHaveBeenCalledTimes(2);
  });
});
