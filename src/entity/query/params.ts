// Bound parameters for compiled SQL: every value and attribute name a client
// sends reaches Postgres as a parameter, never as SQL text.

export class Params {
  readonly values: unknown[] = [];

  /** `first` is the number of the first placeholder this collector hands out. */
  constructor(private readonly first = 1) {}

  /** Binds `value` and answers its placeholder with an explicit cast. */
  add(value: unknown, cast: string): string {
    this.values.push(value);
    return `$${this.first + this.values.length - 1}::${cast}`;
  }
}
