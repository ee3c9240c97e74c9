// A secret reference that has no stored value resolves to a marker instead of
// failing the whole resolution: only what reads the marker fails (a step's
// input, an auth profile), and it can say which secrets were missing.

/** NUL cannot reach a stored value (the input guard refuses it), so the marker never collides with data. */
const MARKER = /\u0000missing-secret:([^\u0000]+)\u0000/g;

/** What a reference (`tenant.NAME`) with no value resolves to. */
export const missingSecretMarker = (ref: string) => `\u0000missing-secret:${ref}\u0000`;

/** The references a resolved value still carries as markers (what it read but has no value), in order, once each. */
export function missingSecretsIn(value: unknown): string[] {
  const found = new Set<string>();
  const pending: unknown[] = [value];
  while (pending.length) {
    const v = pending.pop();
    if (typeof v === "string") {
      if (v.includes("\u0000missing-secret:")) for (const m of v.matchAll(MARKER)) found.add(m[1]);
    } else if (Array.isArray(v)) pending.push(...v);
    else if (v !== null && typeof v === "object") pending.push(...Object.values(v));
  }
  return [...found].sort();
}
