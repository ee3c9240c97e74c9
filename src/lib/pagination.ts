// The two ways a list pages (docs/api.md, Envelopes and formats), each built
// here and nowhere else: offset paging answers `{ data, pagination }` with the
// total; keyset paging answers `next_cursor`, only when the page came back
// full.
import { encodeCursor } from "./cursor";

export interface Page {
  page: number;
  limit: number;
}

export interface Pagination extends Page {
  total: number;
  total_pages: number;
}

export function pageOf(query: { page?: number; limit?: number } | undefined): Page {
  return { page: query?.page ?? 1, limit: query?.limit ?? 100 };
}

export function offsetOf(p: Page): number {
  return (p.page - 1) * p.limit;
}

/** The `pagination` object of an offset-paged answer. */
export function paginationOf(p: Page, total: number): Pagination {
  return { page: p.page, limit: p.limit, total, total_pages: Math.ceil(total / p.limit) };
}

export function paginated<T>(data: T[], p: Page, total: number) {
  return { data, pagination: paginationOf(p, total) };
}

/**
 * The `next_cursor` of a keyset-paged answer: the signed order keys of the
 * page's last row, only when `size` rows filled the `limit` (a short page is
 * the last, so it has none). Spread into the answer.
 */
export async function keysetPaging(secret: string, scope: string, size: number, limit: number, lastKeys: unknown[] | null): Promise<{ next_cursor?: string }> {
  if (size !== limit || !lastKeys) return {};
  return { next_cursor: await encodeCursor(secret, scope, lastKeys) };
}
