import { describe, expect, it } from "vitest";
import { parse } from "../../src/cli/args";

describe("cli args parse", () => {
  it("splits flags from positional arguments", () => {
    expect(parse(["reindex", "--dry-run", "shop"])).toEqual({
      command: "reindex",
      flags: { "dry-run": true },
      positional: ["shop"],
    });
  });
});
