import { describe, expect, it } from "vitest";
import { RetryPolicy } from "../../src/retry/policy";

describe("RetryPolicy", () => {
  it("doubles the delay up to the ceiling", () => {
    const policy = new RetryPolicy(5, 100, 300);
    expect([1, 2, 3, 4].map((n) => policy.delayFor(n))).toEqual([100, 200, 300, 300]);
  });

  it("refuses zero attempts", () => {
    expect(() => new RetryPolicy(0, 100, 300)).toThrow(RangeError);
  });
});
