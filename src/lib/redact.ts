// Keeps credentials out of what is written down: a run's resolved secrets,
// the credentials its requests sent and the tokens it obtained are replaced
// by `***` in every record, error and log line made from a value.

/** Shorter values would mask ordinary text (a one-letter "secret" would star every such letter). */
const MIN_LENGTH = 4;

export class Redactor {
  private readonly concealed = new Set<string>();

  constructor(values: Iterable<string> = []) {
    for (const v of values) this.conceal(v);
  }

  conceal(value: string): void {
    if (value.length >= MIN_LENGTH) this.concealed.add(value);
  }

  get size(): number {
    return this.concealed.size;
  }

  /** The text with every concealed value (longest first, so one inside another goes whole) as `***`. */
  text(text: string): string {
    if (!this.concealed.size) return text;
    let out = text;
    for (const v of [...this.concealed].sort((a, b) => b.length - a.length)) out = out.split(v).join("***");
    return out;
  }

  /**
   * A JSON value with every concealed value masked wherever it occurs in a
   * string or a key. Matched in the JSON text by each value's own JSON
   * spelling, so a secret with quotes or backslashes is found as stored.
   */
  value<T>(value: T): T {
    if (!this.concealed.size || value === undefined) return value;
    let json = JSON.stringify(value);
    let changed = false;
    for (const v of [...this.concealed].sort((a, b) => b.length - a.length)) {
      const spelled = JSON.stringify(v).slice(1, -1);
      if (json.includes(spelled)) {
        json = json.split(spelled).join("***");
        changed = true;
      }
    }
    return changed ? (JSON.parse(json) as T) : value;
  }
}
