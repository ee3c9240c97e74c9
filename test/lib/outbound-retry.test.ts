// Which outbound outcomes are retried (the back-off: test/lib/backoff.test.ts).
import { describe, expect, it } from "vitest";
import { isRetryable } from "../../src/lib/outbound/retry";
import { OutboundError } from "../../src/lib/outbound/types";

describe("isRetryable", () => {
  it("retries 408, 425, 429 and every 5xx, and no other status", () => {
    const statuses = [200, 201, 204, 301, 304, 400, 401, 403, 404, 405, 408, 409, 410, 413, 422, 425, 429, 499, 500, 501, 502, 503, 504, 599, 600];
    expect(statuses.filter((status) => isRetryable({ status }))).toEqual([408, 425, 429, 500, 501, 502, 503, 504, 599]);
  });

  it("retries a failed connection and no other failure", () => {
    const kinds = ["refused", "unresolved", "timeout", "connection", "redirects", "too-large"] as const;
    expect(kinds.filter((kind) => isRetryable(new OutboundError(kind, "why")))).toEqual(["connection"]);
  });
});
