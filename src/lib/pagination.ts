// Offset pagination: the `{ data, pagination }` envelope of SPEC.md 2.1.

export interface Page {
  page: number;
  limit: number;
}

export function pageOf(query: { page?: number; limit?: number } | undefined): Page {
  return { page: query?.page ?? 1, limit: query?.limit ?? 100 };
}

export function offsetOf(p: Page): number {
  return (p.page - 1) * p.limit;
}

export function paginated<T>(data: T[], p: Page, total: number) {
  return { data, pagination: { page: p.page, limit: p.limit, total, total_pages: Math.ceil(total / p.limit) } };
}
