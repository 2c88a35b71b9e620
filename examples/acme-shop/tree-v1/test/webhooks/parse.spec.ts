import { describe, expect, it } from "vitest";
import { parse } from "../../src/webhooks/parse";
import { computeSignature, InvalidSignatureError } from "../../src/webhooks/signature";
import { parse as loadFixture } from "../fixtures/json";

describe("webhook parse", () => {
  const body = JSON.stringify(loadFixture("webhook-event.json", ["id", "type"]));

  it("accepts a correctly signed event", () => {
    const t = String(Math.floor(Date.now() / 1000));
    const header = `t=${t},v1=${computeSignature("whsec", t, body)}`;
    expect(parse(body, header, "whsec").id).toBe("evt_1001");
  });

  it("rejects a forged signature", () => {
    const t = String(Math.floor(Date.now() / 1000));
    expect(() => parse(body, `t=${t},v1=deadbeef`, "whsec")).toThrow(InvalidSignatureError);
  });
});
