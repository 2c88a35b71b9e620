import { describe, expect, it, vi } from "vitest";
import { OrderService } from "../../src/orders/order-service";
import { PaymentClient } from "../../src/payments/payment-client";
import { RetryPolicy } from "../../src/retry/policy";
import { parse as loadFixture } from "../fixtures/json";

vi.mock("../../src/db/connection", () => ({ query: vi.fn().mockResolvedValue([]), withTransaction: (f: () => unknown) => f() }));
vi.mock("../../src/inventory/stock", () => ({ reserveStock: vi.fn() }));

describe("OrderService.placeOrder", () => {
  it("charges the discounted total", async () => {
    const api = { createCharge: vi.fn().mockResolvedValue({ id: "ch_9", amountCents: 4054 }) };
    const service = new OrderService(new PaymentClient(api as never, RetryPolicy.none()));
    await service.placeOrder(loadFixture("order.json"));
    expect(api.createCharge).toHaveBeenCalledWith({ customerId: "cus_7", amountCents: 4054 });
  });
});
