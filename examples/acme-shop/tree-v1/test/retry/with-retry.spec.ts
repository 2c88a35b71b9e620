import { describe, expect, it, vi } from "vitest";
import { RetryPolicy } from "../../src/retry/policy";
import { withRetry } from "../../src/retry/with-retry";

describe("withRetry", () => {
  it("stops after maxAttempts", async () => {
    const call = vi.fn().mockRejectedValue(new Error("boom"));
    await expect(withRetry(call, new RetryPolicy(3, 0, 0))).rejects.toThrow("boom");
    expect(call).toHaveBeenCalledTimes(3);
  });

  it("does not retry errors the policy rejects", async () => {
    const call = vi.fn().mockRejectedValue(new TypeError("bad input"));
    const policy = new RetryPolicy(3, 0, 0, (e) => !(e instanceof TypeError));
    await expect(withRetry(call, policy)).rejects.toThrow("bad input");
    expect(call).toHaveBeenCalledTimes(1);
  });
});
