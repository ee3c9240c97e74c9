// The one paging helper every list answers with: offset (page, limit, total,
// total_pages) and keyset (next_cursor only on a full page).
import { describe, expect, it } from "vitest";
import { decodeCursor } from "../../src/lib/cursor";
import { keysetPaging, offsetOf, pageOf, paginated, paginationOf } from "../../src/lib/pagination";

const SECRET = "test-secret";

describe("offset paging", () => {
  it("defaults to page 1 of 100 and skips the pages before", () => {
    expect(pageOf(undefined)).toEqual({ page: 1, limit: 100 });
    expect(pageOf({ page: 3, limit: 20 })).toEqual({ page: 3, limit: 20 });
    expect(offsetOf({ page: 3, limit: 20 })).toBe(40);
  });

  it("counts total_pages up, and zero for an empty list", () => {
    expect(paginationOf({ page: 2, limit: 10 }, 25)).toEqual({ page: 2, limit: 10, total: 25, total_pages: 3 });
    expect(paginationOf({ page: 1, limit: 10 }, 20)).toEqual({ page: 1, limit: 10, total: 20, total_pages: 2 });
    expect(paginationOf({ page: 1, limit: 100 }, 0)).toEqual({ page: 1, limit: 100, total: 0, total_pages: 0 });
  });

  it("serialises the envelope in one key order: data, then page, limit, total, total_pages", () => {
    expect(JSON.stringify(paginated(["a"], { page: 1, limit: 1 }, 2))).toBe('{"data":["a"],"pagination":{"page":1,"limit":1,"total":2,"total_pages":2}}');
  });
});

describe("keyset paging", () => {
  it("gives a cursor to the last row's keys only when the page is full", async () => {
    const full = await keysetPaging(SECRET, "scope-a", 2, 2, ["2024-01-01T00:00:00Z", "id-2"]);
    expect(Object.keys(full)).toEqual(["next_cursor"]);
    expect(await decodeCursor(SECRET, "scope-a", full.next_cursor!)).toEqual(["2024-01-01T00:00:00Z", "id-2"]);
    expect(await keysetPaging(SECRET, "scope-a", 1, 2, ["2024-01-01T00:00:00Z", "id-1"])).toEqual({});
    expect(await keysetPaging(SECRET, "scope-a", 0, 2, null)).toEqual({});
  });

  it("binds the cursor to its scope", async () => {
    const { next_cursor } = await keysetPaging(SECRET, "scope-a", 1, 1, [1]);
    await expect(decodeCursor(SECRET, "scope-b", next_cursor!)).rejects.toMatchObject({ code: "VALIDATION_FAILED" });
  });
});
