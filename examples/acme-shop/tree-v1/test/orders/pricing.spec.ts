import { describe, expect, it } from "vitest";
import { calculateTotal } from "../../src/orders/pricing";
import { parse as loadFixture } from "../fixtures/json";

describe("calculateTotal", () => {
  it("applies WELCOME10", () => {
    expect(calculateTotal(loadFixture("order.json"))).toBe(4054);
  });
});
