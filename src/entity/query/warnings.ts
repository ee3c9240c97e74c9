// What a query answers beside `data` when it names paths or types nothing
// answers to: `<where>: <what>` lines, as validation errors are written, so a
// client can point at the place. They never change what the query matches.

const MAX_WARNINGS = 20;

/** The line for a type name that is unknown or unreadable: worded alike, so it never tells one from the other. */
export const noType = (name: string) => `no entity type ${name} the caller can read`;

/** `{ warnings }` for an answer: left out when empty, at most twenty lines with the rest counted (as error lines are). */
export function warningsField(lines: string[]): { warnings?: string[] } {
  if (!lines.length) return {};
  if (lines.length <= MAX_WARNINGS) return { warnings: lines };
  return { warnings: [...lines.slice(0, MAX_WARNINGS), `... and ${lines.length - MAX_WARNINGS} more warnings`] };
}
