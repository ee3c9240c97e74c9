// Cron expressions of cron triggers: the five fields of crontab(5) as Vixie
// cron and cronie read them, evaluated in UTC at minute precision. The syntax
// is small enough to read and evaluate here, which keeps the day-of-month /
// day-of-week rule exactly Vixie's (see `dayMatches`).

interface FieldSpec {
  name: string;
  min: number;
  max: number;
  names?: readonly string[];
  /** A range ending at 0 ends at 7 instead (`fri-sun`), as cronie reads it. */
  rangeWrapsToSeven?: true;
}

const MONTH_NAMES = ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"] as const;
const WEEKDAY_NAMES = ["sun", "mon", "tue", "wed", "thu", "fri", "sat"] as const;

const FIELDS: readonly FieldSpec[] = [
  { name: "minute", min: 0, max: 59 },
  { name: "hour", min: 0, max: 23 },
  { name: "day-of-month", min: 1, max: 31 },
  { name: "month", min: 1, max: 12, names: MONTH_NAMES },
  // 7 is Sunday as well as 0; it folds onto 0 once the field is read.
  { name: "day-of-week", min: 0, max: 7, names: WEEKDAY_NAMES, rangeWrapsToSeven: true },
];

/** Largest day of each month (February in a leap year). */
const MONTH_LENGTH = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** A parsed expression: which values each field allows. */
interface Cron {
  minutes: boolean[];
  hours: boolean[];
  days: boolean[];
  months: boolean[];
  weekdays: boolean[];
  /** Vixie's rule: a day field written starting with `*` does not widen the match to "either". */
  domStar: boolean;
  dowStar: boolean;
}

class CronSyntaxError extends Error {}

const ITEM = /^(?:\*|([0-9a-z]+)(?:-([0-9a-z]+))?)(?:\/([0-9]+))?$/i;

function value(token: string, spec: FieldSpec): number {
  if (/^[0-9]+$/.test(token)) {
    const n = Number(token);
    if (n < spec.min || n > spec.max) throw new CronSyntaxError(`${spec.name} field: ${token} is out of range ${spec.min}-${spec.max}`);
    return n;
  }
  const index = spec.names?.indexOf(token.toLowerCase()) ?? -1;
  if (index < 0) {
    const expected = spec.names ? `a number or a name (${spec.names.join(", ")})` : "a number";
    throw new CronSyntaxError(`${spec.name} field: "${token}" is not ${expected}`);
  }
  return spec.min === 0 ? index : index + 1;
}

function readField(text: string, spec: FieldSpec): boolean[] {
  const allowed = new Array<boolean>(spec.max + 1).fill(false);
  for (const item of text.split(",")) {
    const match = ITEM.exec(item);
    if (!match) {
      throw new CronSyntaxError(`${spec.name} field: "${item}" is not supported (use numbers${spec.names ? ", names" : ""}, *, lists, ranges and steps)`);
    }
    const [, low, high, step] = match;
    if (low !== undefined && high === undefined && step !== undefined) {
      throw new CronSyntaxError(`${spec.name} field: "${item}" steps a single value; steps apply to * or a range (a-b/n)`);
    }
    const from = low === undefined ? spec.min : value(low, spec);
    let to = low === undefined ? spec.max : high === undefined ? from : value(high, spec);
    if (spec.rangeWrapsToSeven && high !== undefined && to === 0 && from > 0) to = 7;
    if (to < from) throw new CronSyntaxError(`${spec.name} field: range ${low}-${high} runs backwards`);
    const by = step === undefined ? 1 : Number(step);
    if (!(by >= 1)) throw new CronSyntaxError(`${spec.name} field: step ${step} must be at least 1`);
    for (let v = from; v <= to; v += by) allowed[v] = true;
  }
  return allowed;
}

function parse(expr: string): Cron {
  if (typeof expr !== "string") throw new CronSyntaxError("must be a string");
  const trimmed = expr.replace(/^[ \t]+|[ \t]+$/g, "");
  if (trimmed.startsWith("@")) throw new CronSyntaxError(`"${trimmed.split(/[ \t]/)[0]}" macros are not supported; write the five fields`);
  const fields = trimmed === "" ? [] : trimmed.split(/[ \t]+/);
  if (fields.length !== 5) {
    throw new CronSyntaxError(`expected 5 fields (minute hour day-of-month month day-of-week), got ${fields.length}`);
  }
  const [minutes, hours, days, months, weekdays] = fields.map((text, i) => readField(text, FIELDS[i]));
  if (weekdays[7]) weekdays[0] = true;
  const cron: Cron = { minutes, hours, days, months, weekdays: weekdays.slice(0, 7), domStar: fields[2].startsWith("*"), dowStar: fields[4].startsWith("*") };
  const never = neverFires(cron);
  if (never) throw new CronSyntaxError(never);
  return cron;
}

// Vixie cron's day rule: when either day field starts with `*` a day must
// match both fields (so `0 0 */2 * 1` is Mondays falling on odd dates); when
// both are written out, a day matching either fires.
function dayMatches(cron: Cron, date: Date): boolean {
  const dom = cron.days[date.getUTCDate()];
  const dow = cron.weekdays[date.getUTCDay()];
  return cron.domStar || cron.dowStar ? dom && dow : dom || dow;
}

/**
 * An expression whose days can never occur (`0 0 30 2 *`). Only possible when
 * the day of the month alone decides: with the "either" rule the weekday
 * always matches some day, and a day-of-month starting with `*` contains the 1st.
 */
function neverFires(cron: Cron): string | null {
  if (!cron.dowStar) return null;
  for (let month = 1; month <= 12; month++) {
    if (!cron.months[month]) continue;
    for (let day = 1; day <= MONTH_LENGTH[month - 1]; day++) if (cron.days[day]) return null;
  }
  return "never fires: no chosen day of the month exists in the chosen months";
}

/** Null when `expr` is a valid expression; else the reason, one line. */
export function cronProblem(expr: string): string | null {
  try {
    parse(expr);
    return null;
  } catch (e) {
    if (e instanceof CronSyntaxError) return e.message;
    throw e;
  }
}

function first(allowed: boolean[], from: number): number {
  for (let v = from; v < allowed.length; v++) if (allowed[v]) return v;
  return -1;
}

// A valid expression fires at least once in every 400-year Gregorian cycle.
const HORIZON_YEARS = 401;

function occurrenceAfter(cron: Cron, after: Date): Date {
  const start = Math.floor(after.getTime() / 60_000) * 60_000 + 60_000;
  if (!Number.isFinite(start)) throw new RangeError("cron: invalid start time");
  let at = new Date(start);
  const lastYear = at.getUTCFullYear() + HORIZON_YEARS;
  while (at.getUTCFullYear() <= lastYear) {
    const year = at.getUTCFullYear();
    const month = at.getUTCMonth();
    const day = at.getUTCDate();
    if (!cron.months[month + 1]) {
      at = new Date(Date.UTC(year, month + 1, 1));
      continue;
    }
    if (!dayMatches(cron, at)) {
      at = new Date(Date.UTC(year, month, day + 1));
      continue;
    }
    const hour = first(cron.hours, at.getUTCHours());
    if (hour < 0) {
      at = new Date(Date.UTC(year, month, day + 1));
      continue;
    }
    const minute = first(cron.minutes, hour === at.getUTCHours() ? at.getUTCMinutes() : 0);
    if (minute < 0) {
      at = new Date(Date.UTC(year, month, day, hour + 1));
      continue;
    }
    return new Date(Date.UTC(year, month, day, hour, minute));
  }
  throw new RangeError("cron: no occurrence within the horizon");
}

/** The first occurrence strictly after `after` (UTC, whole minutes). Throws on an invalid expression. */
export function nextTick(expr: string, after: Date): Date {
  return occurrenceAfter(parse(expr), after);
}

function everyDay(cron: Cron): boolean {
  if (!cron.months.slice(1).every(Boolean)) return false;
  const allDates = cron.days.slice(1).every(Boolean);
  const allWeekdays = cron.weekdays.every(Boolean);
  return cron.domStar || cron.dowStar ? allDates && allWeekdays : allDates || allWeekdays;
}

/**
 * True when every gap between consecutive occurrences is under an hour. Any
 * day without an occurrence (a month, a date or a weekday left out) is a gap
 * of a day, so it needs every day, every hour, and minutes no more than 59
 * apart, counting the wrap from the last minute of an hour to the first of the next.
 */
export function firesWithinTheHour(expr: string): boolean {
  const cron = parse(expr);
  if (!everyDay(cron) || !cron.hours.every(Boolean)) return false;
  const minutes = cron.minutes.flatMap((on, m) => (on ? [m] : []));
  const gaps = minutes.map((m, i) => (i + 1 < minutes.length ? minutes[i + 1] : minutes[0] + 60) - m);
  return Math.max(...gaps) < 60;
}

/**
 * A new schedule's first tick and its fixed 0-9 s offset (which spreads runs
 * due at the same minute). Only schedules that can go an hour or more
 * without firing make up a missed tick.
 */
export function newSchedule(expr: string, now: Date): { nextRunAt: Date; catchUp: boolean; offsetSeconds: number } {
  return { nextRunAt: nextTick(expr, now), catchUp: !firesWithinTheHour(expr), offsetSeconds: randomOffset() };
}

function randomOffset(): number {
  const byte = new Uint8Array(1);
  // Redraw above 249 so each of 0-9 is equally likely.
  do crypto.getRandomValues(byte);
  while (byte[0] >= 250);
  return byte[0] % 10;
}
