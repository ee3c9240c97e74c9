// Aggregate values as the answer carries them (docs/query.md, Aggregates).
// Postgres's numeric is exact and a JSON reader's number is a double: an
// exact value goes out as a JSON number only when that number prints back as
// the very same decimal, so no client loses a digit by reading it as one;
// otherwise as its decimal text.
import type { OutputColumn } from "./compile";

const DECIMAL = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/;

/** A decimal's value as sign, significant digits and exponent (`-1.50` → `-|15|-1`), or null when it is no plain decimal. */
function canonical(text: string): string | null {
  const m = DECIMAL.exec(text);
  if (!m || (m[2] === "" && (m[3] ?? "") === "")) return null;
  const [, sign, whole, fraction = "", exponent = "0"] = m;
  let digits = (whole + fraction).replace(/^0+/, "");
  if (digits === "") return "0";
  let power = Number(exponent) - fraction.length;
  const zeros = /0+$/.exec(digits)?.[0].length ?? 0;
  digits = digits.slice(0, digits.length - zeros);
  power += zeros;
  return `${sign === "-" ? "-" : ""}|${digits}|${power}`;
}

/** Numeric text as a JSON number when the number prints back as the same decimal, else the text itself. */
export function exactNumber(text: string): number | string {
  const n = Number(text);
  if (!Number.isFinite(n)) return text;
  const value = canonical(text);
  return value !== null && value === canonical(String(n)) ? n : text;
}

/** A number the answer rounds to the nearest double (averages); text when no double holds it. */
export function nearestNumber(text: string): number | string {
  const n = Number(text);
  return Number.isFinite(n) ? n : text;
}

function valueOf(raw: unknown, column: OutputColumn): unknown {
  if (raw === null || raw === undefined) return null;
  switch (column.kind) {
    case "count":
      return Number(raw);
    case "exact":
      return exactNumber(String(raw));
    case "average":
      return nearestNumber(String(raw));
    case "plain":
      return raw;
  }
}

/** One answer row: `{ group: { <key>: value }, <alias>: value, ... }`. */
export function presentGroup(row: Record<string, unknown>, groups: OutputColumn[], aggregates: OutputColumn[]): Record<string, unknown> {
  const out: Record<string, unknown> = { group: Object.fromEntries(groups.map((g) => [g.name, valueOf(row[g.column], g)])) };
  for (const a of aggregates) out[a.name] = valueOf(row[a.column], a);
  return out;
}
