// A paged source's window (`$http` with `paged`, `$query` with `paged: true`)
// and a paged `$http` source's total. The grid bound to the source
// keeps its paging in `page.widgets.<gridId>.state.data_grid` (`page`
// 1-based, `pageSize`, `sorting[0].id` and `.desc`, `filters`); the source's
// smart values see it as `paging`, with the page clamped to at least 1 and
// the page size 20 unless the grid says otherwise. The rows the source
// answers are that page, and its total is what the grid shows as the count.
import { isTruthy, valueAt } from "../../../lib/smart-values";
import { isObject } from "../../../lib/is-object";

export const DEFAULT_PAGE_SIZE = 20;

/** What a paged source's smart values see as `paging`. */
export interface Paging {
  page: number;
  pageSize: number;
  /** (page - 1) * pageSize. */
  offset: number;
  /** The column the grid sorts by, or null. */
  sortBy: string | null;
  desc: boolean;
  /** The grid's filters by column. */
  filters: Record<string, unknown>;
}

/** How a paged source finds its total in the upstream answer. */
export interface PagedSpec {
  totalPath?: string;
  hasNextPath?: string;
}

type Obj = Record<string, unknown>;

/** A whole number of at least 1 from what the host posted, or `fallback`. */
function positive(value: unknown, fallback: number): number {
  const n = typeof value === "number" ? value : typeof value === "string" && value.trim() !== "" ? Number(value) : NaN;
  return Number.isFinite(n) ? Math.max(1, Math.floor(n)) : fallback;
}

/**
 * The paging of the grid `gridId` from the page scope
 * (`page.widgets.<gridId>.state.data_grid`); page 1 of 20 without one. A
 * `maxPageSize` caps the page size (a paged `$query`: the engine's limit).
 */
export function pagingOf(scope: Obj, gridId: string | undefined, maxPageSize = Infinity): Paging {
  const grid = gridId === undefined ? undefined : valueAt(scope, `page.widgets.${gridId}.state.data_grid`);
  const state = isObject(grid) ? grid : {};
  const page = positive(state.page, 1);
  const pageSize = Math.min(positive(state.pageSize, DEFAULT_PAGE_SIZE), maxPageSize);
  const sort = Array.isArray(state.sorting) && isObject(state.sorting[0]) ? state.sorting[0] : {};
  return {
    page,
    pageSize,
    offset: (page - 1) * pageSize,
    sortBy: typeof sort.id === "string" ? sort.id : null,
    desc: sort.desc === true,
    filters: isObject(state.filters) ? state.filters : {},
  };
}

/**
 * The total a paged source reports: the number at `totalPath` when it is
 * one; else, with `hasNextPath`, the rows so far plus one more page while the
 * value there is truthy; else the rows so far plus one more page while this
 * page is full.
 */
export function pagedTotal(paging: Paging, rowCount: number, body: unknown, paged: PagedSpec): number {
  if (paged.totalPath !== undefined) {
    const total = valueAt(body, paged.totalPath);
    if (typeof total === "number" && Number.isFinite(total)) return total;
  }
  const sofar = paging.offset + rowCount;
  const more = paged.hasNextPath !== undefined ? isTruthy(valueAt(body, paged.hasNextPath)) : rowCount >= paging.pageSize;
  return more ? sofar + paging.pageSize : sofar;
}
