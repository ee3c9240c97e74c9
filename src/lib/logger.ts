// The one way the Worker writes logs: one JSON object per line, so Workers
// Logs (and `wrangler tail`) can filter by field. A request's logger carries
// its request id and tenant, so every line it writes can be traced back.

export type LogFields = Record<string, unknown>;
export type LogLevel = "info" | "warn" | "error";

export interface Logger {
  info(msg: string, fields?: LogFields): void;
  warn(msg: string, fields?: LogFields): void;
  error(msg: string, fields?: LogFields): void;
  /** A logger whose every line also carries `fields` (a later value wins over an earlier one). */
  with(fields: LogFields): Logger;
}

/** The fields every line starts with; `base` and then the call's own fields follow. */
function logLine(level: LogLevel, msg: string, base: LogFields, fields: LogFields = {}): string {
  return JSON.stringify({ level, msg, ...base, ...fields });
}

export function createLogger(base: LogFields = {}): Logger {
  const write = (level: LogLevel) => (msg: string, fields?: LogFields) => {
    const line = logLine(level, msg, base, fields);
    if (level === "error") console.error(line);
    else console.log(line);
  };
  return { info: write("info"), warn: write("warn"), error: write("error"), with: (more) => createLogger({ ...base, ...more }) };
}

/** For work outside a request (the queue consumer, the cron tick). */
export const log = createLogger();
