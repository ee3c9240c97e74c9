// Timestamps leave the service as RFC 3339 UTC strings with Postgres's full
// microsecond precision, so a value read back (e.g. PATCH's
// expected_updated_at) compares equal to the stored one.

const PG_TIMESTAMPTZ = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(\.\d+)?([+-]\d{2})(?::?(\d{2}))?(?::?\d{2})?$/;

export function pgTimestamptzToIso(text: string): string {
  const m = PG_TIMESTAMPTZ.exec(text);
  if (!m) return text;
  const [, date, time, fraction, hours, minutes] = m;
  const ms = Date.parse(`${date}T${time}${hours}:${minutes ?? "00"}`);
  return `${new Date(ms).toISOString().slice(0, 19)}${fraction ?? ""}Z`;
}

/** pg type OIDs whose text we keep as strings rather than JS Dates. */
export const TIMESTAMPTZ_OID = 1184;
