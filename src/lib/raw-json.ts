// A JSON object one of whose fields is already JSON text (built by Postgres),
// written without parsing and re-serialising it.

/** `{"<field>": <raw>, ...rest}`; `raw` must be valid JSON. */
export function objectWithRaw(field: string, raw: string, rest: Record<string, unknown>): string {
  const others = JSON.stringify(rest);
  return `{${JSON.stringify(field)}:${raw}${others === "{}" ? "" : `,${others.slice(1, -1)}`}}`;
}
