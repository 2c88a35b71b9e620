import { describe, expect, it, vi } from "vitest";
import { PaymentClient } from "../../src/payments/payment-client";
import { RetryPolicy } from "../../src/retry/policy";

describe("PaymentClient", () => {
  it("retries a transient charge failure", async () => {
    const api = { createCharge: vi.fn().mockRejectedValueOnce(new Error("503")).mockResolvedValue({ id: "ch_1", amountCents: 500 }) };
    const client = new PaymentClient(api as never, new RetryPolicy(2, 0, 0));
    expect((await client.charge("cus_1", 500)).id).toBe("ch_1");
  });
});
