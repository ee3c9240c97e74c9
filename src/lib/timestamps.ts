// Every timestamp the API answers has one form: RFC 3339 in UTC ("Z"), with
// the fraction of a second Postgres keeps (up to microseconds), trailing
// zeros trimmed and no fraction at all on a whole second. A value read back
// (e.g. PATCH's expected_updated_at) compares equal to the stored one, and an
// instant made in JavaScript prints as the same instant read from Postgres.
// Three producers share the form: isoTimestamp (JavaScript values),
// pgTimestamptzToIso (the driver's text) and isoTimestampSql (JSON Postgres
// builds).

/** `<date>T<time>` and a fraction (".123", or "") as the API's timestamp. */
function utc(seconds: string, fraction: string): string {
  return `${seconds}${fraction.replace(/\.?0+$/, "")}Z`;
}

/** An instant made in JavaScript (a Date or epoch milliseconds) in the API's form. */
export function isoTimestamp(instant: Date | number): string {
  const iso = new Date(instant).toISOString();
  return utc(iso.slice(0, 19), iso.slice(19, -1));
}

const PG_TIMESTAMPTZ = /^(\d{4}-\d{2}-\d{2}) (\d{2}:\d{2}:\d{2})(\.\d+)?([+-]\d{2})(?::?(\d{2}))?(?::?\d{2})?$/;

/** Postgres's timestamptz text (any session time zone) in the API's form; other text unchanged. */
export function pgTimestamptzToIso(text: string): string {
  const m = PG_TIMESTAMPTZ.exec(text);
  if (!m) return text;
  const [, date, time, fraction, hours, minutes] = m;
  const ms = Date.parse(`${date}T${time}${hours}:${minutes ?? "00"}`);
  return utc(new Date(ms).toISOString().slice(0, 19), fraction ?? "");
}

/**
 * SQL for a timestamptz `column` in the API's form, for JSON Postgres builds.
 * The timestamp's own text output (ISO DateStyle, which trims the fraction's
 * zeros) at a third of to_char's cost: it runs for every row of a page.
 */
export const isoTimestampSql = (column: string) => `replace((${column} AT TIME ZONE 'UTC')::text, ' ', 'T') || 'Z'`;

/** pg type OIDs whose text we keep as strings rather than JS Dates. */
export const TIMESTAMPTZ_OID = 1184;
