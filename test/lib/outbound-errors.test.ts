// An outbound failure as the error an action fails with: 400 BAD_REQUEST,
// told apart by details.code, the reason carried beside it.
import { describe, expect, it } from "vitest";
import { outboundRunError } from "../../src/lib/outbound/errors";
import { OutboundError } from "../../src/lib/outbound/types";

describe("outboundRunError", () => {
  it("answers a refused target with OUTBOUND_TARGET_REFUSED and the rule", () => {
    expect(outboundRunError(new OutboundError("refused", "10.0.0.1 is private-use (10.0.0.0/8)"))).toEqual({
      status: 400,
      code: "BAD_REQUEST",
      message: "The outbound target was refused: 10.0.0.1 is private-use (10.0.0.0/8)",
      details: { code: "OUTBOUND_TARGET_REFUSED", reason: "10.0.0.1 is private-use (10.0.0.0/8)" },
    });
  });

  it("gives each failure kind its own detail code, all 400 BAD_REQUEST", () => {
    const kinds = ["unresolved", "timeout", "connection", "redirects", "too-large"] as const;
    expect(kinds.map((kind) => outboundRunError(new OutboundError(kind, "r"))).map((e) => [e.status, e.code, e.details])).toEqual([
      [400, "BAD_REQUEST", { code: "OUTBOUND_UNRESOLVED", reason: "r" }],
      [400, "BAD_REQUEST", { code: "OUTBOUND_TIMEOUT", reason: "r" }],
      [400, "BAD_REQUEST", { code: "OUTBOUND_CONNECTION_FAILED", reason: "r" }],
      [400, "BAD_REQUEST", { code: "OUTBOUND_TOO_MANY_REDIRECTS", reason: "r" }],
      [400, "BAD_REQUEST", { code: "OUTBOUND_RESPONSE_TOO_LARGE", reason: "r" }],
    ]);
  });
});
