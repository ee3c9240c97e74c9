// Unit tests of the closed set of `details.code` values (docs/api.md, Detail
// codes): each code answers with one top-level code and status, and carries its
// details as given.
import { describe, expect, it } from "vitest";
import { ApiError, errorBody, errorCodeOf, type Detail, type DetailCode, type ErrorCode } from "../../src/lib/errors";

// Written out by hand, as docs/api.md states it: a code added to the union
// without a row here fails to compile.
const expected: Record<DetailCode, [ErrorCode, number]> = {
  LINK_MALFORMED: ["UNAUTHORIZED", 401],
  LINK_SIGNATURE_INVALID: ["UNAUTHORIZED", 401],
  LINK_EXPIRED: ["UNAUTHORIZED", 401],
  ALREADY_CONFIRMED: ["CONFLICT", 409],
  CONCURRENT_MODIFICATION: ["CONFLICT", 409],
  CARDINALITY_VIOLATION: ["CONFLICT", 409],
  LINK_EXISTS: ["CONFLICT", 409],
  IDEMPOTENCY_IN_PROGRESS: ["CONFLICT", 409],
  EMAIL_LINK_REFUSED: ["CONFLICT", 409],
  EXTERNAL_USER_INACTIVE: ["CONFLICT", 409],
  IDEMPOTENCY_KEY_REUSED: ["UNPROCESSABLE_ENTITY", 422],
  CARDINALITY_VIOLATION_IGNORED: ["UNPROCESSABLE_ENTITY", 422],
  MERGE_CARDINALITY_EXCEEDED: ["UNPROCESSABLE_ENTITY", 422],
  SIZE_MISMATCH: ["UNPROCESSABLE_ENTITY", 422],
  NOT_UPLOADED: ["UNPROCESSABLE_ENTITY", 422],
  CHECKSUM_MISMATCH: ["UNPROCESSABLE_ENTITY", 422],
  STATEMENT_TIMEOUT: ["SERVICE_UNAVAILABLE", 503],
  HTTP_AUTH_PROFILE_UNKNOWN: ["BAD_REQUEST", 400],
  HTTP_AUTH_SECRET_MISSING: ["BAD_REQUEST", 400],
  HTTP_AUTH_INVALID_CREDENTIAL: ["BAD_REQUEST", 400],
  HTTP_AUTH_CONFLICT: ["BAD_REQUEST", 400],
  HTTP_AUTH_TOKEN_EXCHANGE_FAILED: ["BAD_REQUEST", 400],
  HTTP_AUTH_TOKEN_CACHE_UNAVAILABLE: ["BAD_REQUEST", 400],
  HTTP_AUTH_ARM_NOT_PERSISTED: ["INTERNAL_ERROR", 500],
  OUTBOUND_TARGET_REFUSED: ["BAD_REQUEST", 400],
  OUTBOUND_UNRESOLVED: ["BAD_REQUEST", 400],
  OUTBOUND_TIMEOUT: ["BAD_REQUEST", 400],
  OUTBOUND_CONNECTION_FAILED: ["BAD_REQUEST", 400],
  OUTBOUND_TOO_MANY_REDIRECTS: ["BAD_REQUEST", 400],
  OUTBOUND_RESPONSE_TOO_LARGE: ["BAD_REQUEST", 400],
  JOB_UNBOUND: ["UNPROCESSABLE_ENTITY", 422],
  JOB_SLOT_UNBOUND: ["UNPROCESSABLE_ENTITY", 422],
  COMPONENT_CONFIG_INVALID: ["UNPROCESSABLE_ENTITY", 422],
  SECRET_REF_IN_DEFINITION: ["VALIDATION_FAILED", 422],
  SPEC_STRUCTURE_INVALID: ["VALIDATION_FAILED", 422],
};

describe("detail codes", () => {
  it("maps each of the 35 detail codes to its top-level code and status", () => {
    const codes = Object.keys(expected) as DetailCode[];
    expect(codes).toHaveLength(35);
    for (const code of codes) {
      const err = new ApiError({ code } as Detail, "m");
      expect([code, errorCodeOf(code), err.code, err.status]).toEqual([code, expected[code][0], expected[code][0], expected[code][1]]);
    }
  });

  it("renders a detail as the envelope's details, code first and fields in the order given", () => {
    const err = new ApiError({ code: "HTTP_AUTH_CONFLICT", conflict: "header", name: "X-Api-Key" }, "X-Api-Key is set by both the profile and the request");
    expect(JSON.stringify(errorBody(err, "req-1"))).toBe(
      '{"error":{"status":400,"code":"BAD_REQUEST","message":"X-Api-Key is set by both the profile and the request",' +
        '"details":{"code":"HTTP_AUTH_CONFLICT","conflict":"header","name":"X-Api-Key","request_id":"req-1"}}}',
    );
  });

  it("answers the unpersisted retry arm with 500 and its run, iteration and reason", () => {
    const err = new ApiError(
      { code: "HTTP_AUTH_ARM_NOT_PERSISTED", action_run_id: "ar-1", iteration: 3, reason: "storage full" },
      "Retry state could not be saved",
    );
    expect(errorBody(err, "req-2").error).toEqual({
      status: 500,
      code: "INTERNAL_ERROR",
      message: "Retry state could not be saved",
      details: { code: "HTTP_AUTH_ARM_NOT_PERSISTED", action_run_id: "ar-1", iteration: 3, reason: "storage full", request_id: "req-2" },
    });
  });

  it("keeps plain errors as before: the top-level code decides the status", () => {
    const err = new ApiError("TOO_MANY_REQUESTS", "Rate limit exceeded", { scope: "ip", limit: 8 });
    expect([err.code, err.status, err.details]).toEqual(["TOO_MANY_REQUESTS", 429, { scope: "ip", limit: 8 }]);
  });

  it("refuses a detail code outside the union, at compile time and at run time", () => {
    // @ts-expect-error an undeclared detail code does not compile
    expect(() => new ApiError({ code: "HTTP_AUTH_NOPE" }, "m")).toThrow("Unhandled detail code HTTP_AUTH_NOPE");
    // @ts-expect-error a declared code without its required details does not compile
    expect(new ApiError({ code: "HTTP_AUTH_SECRET_MISSING", profile: "crm" }, "m").status).toBe(400);
    // @ts-expect-error details.code cannot be a free string on a plain error
    expect(new ApiError("CONFLICT", "m", { code: "LINK_EXISTS" }).status).toBe(409);
  });
});
