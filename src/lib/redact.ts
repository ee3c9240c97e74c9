// Keeps credentials out of what is written down: a run's resolved secrets,
// the credentials its requests sent, the tokens it obtained and what its
// expressions computed from any of them are replaced by `***` in every
// record, error and log line made from a value.

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

  /** Whether the text carries a concealed value. */
  reveals(text: string): boolean {
    for (const v of this.concealed) if (text.includes(v)) return true;
    return false;
  }

  /**
   * A value an expression computed from a concealed one (smart-values/
   * secrets.ts): each of its strings is concealed too, so the value shows as
   * `***` wherever it goes. Answers the strings newly concealed, for the
   * record that keeps the value to carry them (a later walk conceals them again).
   */
  derived(value: unknown): string[] {
    const added: string[] = [];
    const pending: unknown[] = [value];
    while (pending.length) {
      const v = pending.pop();
      if (typeof v === "string") {
        if (v.length >= MIN_LENGTH && !this.concealed.has(v)) {
          this.concealed.add(v);
          added.push(v);
        }
      } else if (Array.isArray(v)) pending.push(...v);
      else if (v !== null && typeof v === "object") pending.push(...Object.values(v));
    }
    return added;
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
