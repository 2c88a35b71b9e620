import { describe, expect, it } from "vitest";
import { parse, formatDay } from "../../src/dates/parse";

describe("date parse", () => {
  it("parses a plain date as UTC midnight", () => {
    expect(formatDay(parse("2024-02-29"))).toBe("2024-02-29");
  });

  it("rejects a non-ISO date", () => {
    expect(() => parse("29/02/2024")).toThrow(RangeError);
  });
});
