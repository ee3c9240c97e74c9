// What a filter or sort path points at (docs/query.md, Paths), as SQL over one
// entity row alias. Indexed attributes use exactly the expression of their
// per-type index (indexed-attributes.ts) so the planner can match it.
import { valueExpr, type IndexedAttribute, type IndexedType } from "../indexed-attributes";
import { schemasAt } from "../schema-paths";
import type { Compilation } from "./filter";
import type { Params } from "../../db/params";

/** The slice of an entity type the compiler needs. */
export interface QueryType {
  id: string;
  name: string;
  /** The type's JSON Schema, for warnings on paths it rules out. */
  schema: unknown;
  config: { indexed_attributes: IndexedAttribute[]; name_search: boolean };
}

export type ColumnType = "text" | "uuid" | "timestamptz";

/**
 * An attribute path on a row alias. The path is bound only when an
 * expression is used: Postgres refuses a parameter no statement refers to,
 * and a particle may compile to a constant without touching its operand.
 */
class AttributePath {
  private bound?: string;
  constructor(
    private readonly segments: string[],
    private readonly alias: string,
    private readonly params: Params,
  ) {}
  private get param(): string {
    return (this.bound ??= this.params.add(this.segments, "text[]"));
  }
  /** The jsonb value. */
  get json(): string {
    return `(${this.alias}.attributes #> ${this.param})`;
  }
  /** The value as text (a JSON null or a missing path is NULL). */
  get text(): string {
    return `(${this.alias}.attributes #>> ${this.param})`;
  }
  /** The typed value, exactly as the type's index spells it. */
  typed(type: IndexedType): string {
    return valueExpr(this.param, type, `${this.alias}.attributes`);
  }
}

export type Operand =
  /** A non-null column of the row (or of a joined rule). `trigram`: a pg_trgm index on platform_unaccent(sql) exists. */
  | { kind: "column"; sql: string; type: ColumnType; trigram: boolean }
  /** An indexed attribute, compared by its declared type. */
  | { kind: "indexed"; at: AttributePath; type: IndexedType; attr: IndexedAttribute }
  /** Any other attribute, compared as JSON. */
  | { kind: "attribute"; at: AttributePath };

const samePath = (a: string[], b: string[]) => a.length === b.length && a.every((s, i) => s === b[i]);

export function indexedAttribute(type: QueryType, path: string[]): IndexedAttribute | undefined {
  return type.config.indexed_attributes.find((a) => samePath(a.path, path));
}

/**
 * The operand of a path on `alias`, or null when the path names nothing an
 * entity has (which matches nothing). Relationship paths are resolved by the
 * filter compiler, not here. A path that names nothing, or an attribute the
 * type's schema rules out, adds a warning at `where` (the path's place in
 * the request): it is not an error, but the caller likely meant something else.
 */
export function operandOf(path: string[], type: QueryType, alias: string, c: Compilation, where: string): Operand | null {
  const [head, ...rest] = path;
  if (rest.length === 0) {
    if (head === "name") return { kind: "column", sql: `${alias}.name`, type: "text", trigram: type.config.name_search };
    if (head === "id") return { kind: "column", sql: `${alias}.id`, type: "uuid", trigram: false };
    if (head === "created_at" || head === "updated_at") return { kind: "column", sql: `${alias}.${head}`, type: "timestamptz", trigram: false };
    return namesNothing(path, c, where);
  }
  if (head === "type" && rest.length === 1 && rest[0] === "name") {
    // A getter, as AttributePath's are: reading `c.tenant` binds it, and a particle that compiles to a constant must bind nothing.
    return {
      kind: "column",
      get sql() {
        return `(SELECT tt.name FROM entity_types tt WHERE tt.id = ${alias}.type_id AND tt.tenant_id = ${c.tenant})`;
      },
      type: "text",
      trigram: false,
    };
  }
  if (head !== "attributes") return namesNothing(path, c, where);
  if ("forbidden" in schemasAt(type.schema, rest)) c.warnings.push(`${where}: ${path.join(".")} is not defined by the schema of ${type.name}`);
  const attr = indexedAttribute(type, rest);
  const at = new AttributePath(rest, alias, c.params);
  return attr ? { kind: "indexed", at, type: attr.type, attr } : { kind: "attribute", at };
}

function namesNothing(path: string[], c: Compilation, where: string): null {
  c.warnings.push(
    `${where}: ${path.join(".")} names no field of an entity (a path starts with name, id, created_at, updated_at, type.name, attributes or relationships)`,
  );
  return null;
}

/** A sort key: typed when the path is a sortable indexed attribute or a column, text otherwise (docs/query.md, Sorting and paging). */
export interface SortKey {
  sql: string;
  /** The Postgres type keyset cursor values are cast back to. */
  cast: string;
}

export function sortKeyOf(path: string[], type: QueryType, alias: string, c: Compilation, where: string): SortKey | null {
  const operand = operandOf(path, type, alias, c, where);
  if (!operand) return null;
  switch (operand.kind) {
    case "column":
      return { sql: operand.sql, cast: operand.type };
    case "indexed":
      if (operand.attr.sortable && operand.type !== "text_array") return { sql: operand.at.typed(operand.type), cast: operand.type };
      return { sql: operand.at.text, cast: "text" };
    case "attribute":
      return { sql: operand.at.text, cast: "text" };
  }
}
