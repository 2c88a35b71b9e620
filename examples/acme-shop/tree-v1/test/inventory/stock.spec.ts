import { describe, expect, it, vi } from "vitest";
import { OutOfStockError, reserveStock } from "../../src/inventory/stock";
import { RetryPolicy } from "../../src/retry/policy";
import { withRetry } from "../../src/retry/with-retry";

vi.mock("../../src/db/connection", () => ({ query: vi.fn().mockResolvedValue([]), withTransaction: (f: () => unknown) => f() }));

describe("reserveStock", () => {
  it("reports the first missing sku and is not retried", async () => {
    const policy = new RetryPolicy(3, 0, 0, (e) => !(e instanceof OutOfStockError));
    await expect(withRetry(() => reserveStock([{ sku: "MUG-01", quantity: 1, unitPriceCents: 1 }]), policy)).rejects.toBeInstanceOf(OutOfStockError);
  });
});
