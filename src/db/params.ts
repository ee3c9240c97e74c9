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

// Held by this module alone, so no other module can construct a CompiledStatement.
const COMPILER: unique symbol = Symbol("query compiler");

/**
 * A statement the query compiler built: text whose every client value is a
 * placeholder, with its values in placeholder order. The owner path
 * (db/client.ts TenantReader) runs nothing else, so no hand-written SQL
 * reaches tenant rows without row-level security.
 */
export class CompiledStatement {
  constructor(
    token: typeof COMPILER,
    readonly text: string,
    readonly values: readonly unknown[],
  ) {
    if (token !== COMPILER) throw new TypeError("a CompiledStatement comes from compiled()");
  }
}

/**
 * Seals compiled text and its values. Called only where statements are
 * compiled: src/entity/query/*, the type lookup of entity-types/cache.ts and
 * the links statement of relationships/include.ts.
 */
export function compiled(text: string, values: readonly unknown[]): CompiledStatement {
  return new CompiledStatement(COMPILER, text, values);
}
