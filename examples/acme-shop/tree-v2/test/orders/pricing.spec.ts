import { describe, expect, it } from "vitest";
import { computeOrderTotal } from "../../src/orders/pricing";
import { parse as loadFixture } from "../fixtures/json";

describe("computeOrderTotal", () => {
  it("applies WELCOME10", () => {
    expect(computeOrderTotal(loadFixture("order.json"))).toBe(4054);
  });
});
