// SQL for indexed attributes (docs/storage.md, Per-type indexes): the typed
// expression over the JSONB attributes, and the per-type partial indexes that
// serve it. The query compiler builds the same expressions, so the planner
// matches them to these indexes (an unnamed statement is planned with its
// parameter values, which is what lets a bound path match the literal path of
// the index).

export const INDEXED_TYPES = ["text", "numeric", "timestamptz", "boolean", "text_array"] as const;
export type IndexedType = (typeof INDEXED_TYPES)[number];

export interface IndexedAttribute {
  path: string[];
  type: IndexedType;
  filterable: boolean;
  sortable: boolean;
  searchable: boolean;
}

/**
 * The typed value of `attributes` at a path; `pathSql` is a text[] literal or
 * parameter, `column` the attributes column (qualified by a query's alias).
 */
export function valueExpr(pathSql: string, type: IndexedType, column = "attributes"): string {
  switch (type) {
    case "text":
      return `(${column} #>> ${pathSql})`;
    case "numeric":
      return `platform_numeric(${column} #>> ${pathSql})`;
    case "timestamptz":
      return `platform_timestamptz(${column} #>> ${pathSql})`;
    case "boolean":
      return `platform_boolean(${column} #>> ${pathSql})`;
    case "text_array":
      return `(${column} #> ${pathSql})`;
  }
}

/**
 * The most bytes (UTF-8) of a value a btree index takes: the identifier key,
 * and an indexed `text` or `numeric` attribute. Postgres refuses an index row
 * over about 2,700 bytes (a third of a page) after compression; the key
 * shares its row with two uuids, so 2 KiB always fits, compressible or not.
 * `text_array` values live in a GIN index, which hashes long elements.
 */
export const MAX_INDEXED_BYTES = 2048;

/** A string of at most this many UTF-16 units is at most MAX_INDEXED_BYTES bytes: no need to count. */
export const SURELY_FITS = Math.floor(MAX_INDEXED_BYTES / 3);

/** The validation line for a value over MAX_INDEXED_BYTES. */
export function tooLargeToIndex(path: string, bytes: number, what = ""): string {
  return `${path}: must be at most ${MAX_INDEXED_BYTES} bytes to be indexed${what} (got ${bytes})`;
}

/**
 * The size of the text Postgres indexes for a value: a string's UTF-8
 * bytes; an object's or array's JSON text as jsonb prints it (a space after
 * each `:` and `,`, counted over the whole text, so an overestimate when
 * strings inside hold them); numbers, booleans and null are far below any
 * limit and count 0.
 */
export function indexedValueBytes(value: unknown): number {
  if (typeof value === "string") return utf8Bytes(value);
  if (value === null || typeof value !== "object") return 0;
  const json = JSON.stringify(value);
  let separators = 0;
  for (let i = 0; i < json.length; i++) {
    const c = json.charCodeAt(i);
    if (c === 44 || c === 58) separators++;
  }
  return utf8Bytes(json) + separators;
}

/** UTF-8 length without encoding: 1 byte per ASCII unit, 2 below U+0800, 3 above, 4 per surrogate pair. */
function utf8Bytes(text: string): number {
  let n = text.length;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) n += c >= 0x800 && (c < 0xd800 || c > 0xdfff) ? 2 : 1;
  }
  return n;
}

/** `'{"a","b"}'::text[]`, safe for any element text. */
export function textArrayLiteral(path: string[]): string {
  const body = path.map((p) => `"${p.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`).join(",");
  return `'{${body.replace(/'/g, "''")}}'::text[]`;
}

export interface IndexDef {
  name: string;
  ddl: string;
}

async function shortHash(text: string): Promise<string> {
  const digest = new Uint8Array(await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text)));
  return [...digest.slice(0, 6)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

export function indexPrefix(typeId: string): string {
  return `et_${typeId.replace(/-/g, "")}_`;
}

interface TypeIndexConfig {
  indexed_attributes: IndexedAttribute[];
  sort_by_updated_at: boolean;
  name_search: boolean;
}

/** Every index a type's config asks for, named deterministically so reconciling is a set difference. */
export async function desiredIndexes(typeId: string, config: TypeIndexConfig): Promise<IndexDef[]> {
  const where = `WHERE type_id = '${typeId}' AND deleted_at IS NULL`;
  const specs: string[] = [];
  for (const attr of config.indexed_attributes) {
    const expr = valueExpr(textArrayLiteral(attr.path), attr.type);
    if (attr.type === "text_array") {
      if (attr.filterable) specs.push(`USING gin (${expr})`);
    } else if (attr.filterable || attr.sortable) {
      specs.push(`(tenant_id, ${expr}, id)`);
    }
    if (attr.searchable) specs.push(`USING gin (platform_unaccent(${expr}) gin_trgm_ops)`);
  }
  if (config.sort_by_updated_at) specs.push(`(tenant_id, updated_at DESC, id DESC)`);
  if (config.name_search) specs.push(`USING gin (platform_unaccent(name) gin_trgm_ops)`);
  const prefix = indexPrefix(typeId);
  return Promise.all(
    specs.map(async (spec) => {
      const name = `${prefix}${await shortHash(spec)}`;
      return { name, ddl: `CREATE INDEX CONCURRENTLY IF NOT EXISTS "${name}" ON entities ${spec} ${where}` };
    }),
  );
}

/**
 * Expression statistics for what the type's indexes serve. The indexes are
 * partial (one type's live rows), and Postgres keeps no statistics for the
 * expressions of partial indexes: without these, `%`, LIKE and `=` on an
 * attribute get default selectivities, and the planner can walk a million
 * rows in id order looking for a hundred that match instead of using the
 * trigram or btree index. Statistics cover the whole table, so types that
 * index the same path share one object, named by its expression.
 */
export async function desiredStatistics(config: TypeIndexConfig): Promise<IndexDef[]> {
  const exprs: string[] = [];
  for (const attr of config.indexed_attributes) {
    if (attr.type === "text_array") continue;
    const expr = valueExpr(textArrayLiteral(attr.path), attr.type);
    if (attr.filterable || attr.sortable) exprs.push(expr);
    if (attr.searchable) exprs.push(`platform_unaccent(${expr})`);
  }
  if (config.name_search) exprs.push("platform_unaccent(name)");
  return Promise.all(
    exprs.map(async (expr) => {
      const name = `${STATISTICS_PREFIX}${await shortHash(expr)}`;
      return { name, ddl: `CREATE STATISTICS IF NOT EXISTS "${name}" ON (${expr}) FROM entities` };
    }),
  );
}

export const STATISTICS_PREFIX = "es_";
