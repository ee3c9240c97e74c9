/** The nearest-rank percentile `p` (0-100) of an ascending array. */
export function percentile(sorted, p) {
  return sorted[Math.max(0, Math.ceil((p / 100) * sorted.length) - 1)];
}
