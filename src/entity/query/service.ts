// POST /entity/query (docs/query.md): one statement for
// the page (filter, distinct_on, order, keyset or offset), one for the count
// when asked, one per include entry.
import { assertTenantRows, type TenantDb, type TenantReader } from "../../db/client";
import { isoTimestampSql } from "../../lib/timestamps";
import { notFound } from "../../lib/errors";
import { decodeCursor } from "../../lib/cursor";
import { keysetPaging, offsetOf, pageOf, paginationOf, type Pagination } from "../../lib/pagination";
import { compactJson } from "../../lib/raw-json";
import { validationFailed } from "../../lib/validate";
import { ENTITY_COLUMNS, type EntityRow, type PresentedEntity } from "../entities/rows";
import { LIST_MAX_RELATIONSHIPS } from "../entities/service";
import { forgetTypes, TypeReader } from "../entity-types/cache";
import type { EntityType } from "../entity-types/store";
import { INCLUDE_FIRST_PARAM, loadRelationships, type IncludeSpec } from "../relationships/include";
import { confineRow, unreadable, type ReadScope } from "../../db/entity-access";
import { knownShared, readerFor, resolveShared } from "../shared";
import { compileFilter, newCompilation, relatedTypeNames, type Compilation } from "./filter";
import type { QueryType } from "./operands";
import { compiled, Params } from "../../db/params";
import { after, orderBy, orderKeys, sortPathAt, type OrderKey, type SortEntry } from "./sort";
import { noType, warningsField } from "./warnings";
import type { FromSchema } from "json-schema-to-ts";
import { MAX_DISTINCT_PATHS, type queryBody } from "./schemas";

export const COUNT_CAP = 10_000;

export type CountStrategy = "exact" | "capped" | "estimate";

export type QueryInput = FromSchema<typeof queryBody, { keepDefaultedPropertiesOptional: true }>;
export type IncludeSpecInput = NonNullable<QueryInput["include_specs"]>[number];

/** The types a query's relationship paths and includes name, read in one statement. */
export async function loadTypes(reader: TenantReader, names: Set<string>): Promise<Map<string, QueryType>> {
  return names.size ? new TypeReader(reader, false).read(names) : new Map();
}

/**
 * A query's root type, the other types it names (read in one statement, or
 * from `types`'s cache) and the rows the caller may read. The root is the
 * caller's own type of that name or, when it has none, a type another tenant
 * shares with it: then the other names are that tenant's types and the scope
 * is confined to what it shares. An unknown root is a 404; a root the caller
 * may not read is a 403.
 */
export async function readTypes(
  reader: TenantReader,
  types: TypeReader,
  rootName: string,
  names: Set<string>,
): Promise<{ root: EntityType; types: Map<string, QueryType>; scope: ReadScope; cachedTypes: Map<string, string> }> {
  const pick = (found: Map<string, EntityType>) => new Map([...names].flatMap((n) => (found.has(n) ? [[n, found.get(n)!] as const] : [])));
  const { version } = reader.access;
  // A shared root this isolate resolved at the caller's access version: no own type of the name existed then, nor since.
  const known = types.cached ? knownShared(reader.tenantId, rootName, version) : undefined;
  if (!known) {
    const found = await types.read([rootName, ...names]);
    const root = found.get(rootName);
    if (root) return { root, types: pick(found), scope: reader.access.readScope(reader.tenantId, rootName), cachedTypes: types.fromCache };
  }
  const resolution = known ?? (await resolveShared(reader, rootName, version));
  if (!resolution) throw notFound("Entity type", rootName);
  const theirTypes = new TypeReader(readerFor(reader, resolution.owner), types.cached);
  const theirs = await theirTypes.read([rootName, ...names]);
  const root = theirs.get(rootName);
  if (!root) throw notFound("Entity type", rootName);
  return { root, types: pick(theirs), scope: reader.access.readScope(resolution.owner, rootName, resolution.shared), cachedTypes: theirTypes.fromCache };
}

/** The filtered rows of one type as a subquery with their order keys as k0..kn. */
export interface CompiledQuery {
  /** `SELECT <entity columns>, k0.. FROM entities e WHERE ...` (with DISTINCT ON when asked). */
  inner: string;
  keys: OrderKey[];
  params: Params;
  /** How many of `params` the inner query uses (statements built on it may add more). */
  innerParams: number;
  compilation: Compilation;
}

export function compileQuery(
  scope: ReadScope,
  type: QueryType,
  types: Map<string, QueryType>,
  input: Pick<QueryInput, "filter" | "sort" | "distinct_on">,
  params = new Params(),
): CompiledQuery {
  const compilation = newCompilation(params, scope, (name) => types.get(name));
  const typeId = params.add(type.id, "uuid");
  const typeName = params.add(type.name, "text");
  const confined = confineRow(scope, "e", params, type);
  const filter = input.filter === undefined ? "TRUE" : compileFilter(input.filter, type, "e", compilation);
  const where = confined ? `${confined} AND ${filter}` : filter;
  const keys = orderKeys(input.sort, type, "e", compilation);
  const select = `${ENTITY_COLUMNS.replace("t.name AS type_name", `${typeName} AS type_name`)}, e.tenant_id, ${keys.map((k, i) => `${k.sql} AS k${i}`).join(", ")}`;
  const base = `FROM entities e WHERE e.tenant_id = ${compilation.tenant} AND e.type_id = ${typeId} AND e.deleted_at IS NULL AND ${where}`;
  if (!input.distinct_on) return { inner: `SELECT ${select} ${base}`, keys, params, innerParams: params.values.length, compilation };

  const { paths, sort: winnerSort } = input.distinct_on;
  if (paths.length > MAX_DISTINCT_PATHS) throw validationFailed([`distinct_on.paths: at most ${MAX_DISTINCT_PATHS} paths`]);
  const distinct = orderKeys(
    paths.map((path) => ({ path })),
    type,
    "e",
    compilation,
    sortPathAt("distinct_on.paths", true),
  ).slice(0, -1);
  const winner = winnerSort?.length ? orderKeys(winnerSort, type, "e", compilation, sortPathAt("distinct_on.sort")) : null;
  const winnerOrder = winner ? winner.map((k) => `${k.sql} ${k.desc ? "DESC" : "ASC"}`).join(", ") : "e.updated_at DESC, e.id DESC";
  const inner = `SELECT DISTINCT ON (${distinct.map((d) => d.sql).join(", ")}) ${select} ${base}
    ORDER BY ${distinct.map((d) => d.sql).join(", ")}, ${winnerOrder}`;
  return { inner, keys, params, innerParams: params.values.length, compilation };
}

/**
 * pg_trgm's `%` reads its threshold from a setting; fuzzy particles need it
 * set for the transaction's statements (the lowest threshold of all the compilations).
 */
export async function applyTrigramThreshold(reader: TenantReader, ...compilations: Compilation[]): Promise<void> {
  const thresholds = compilations.flatMap((c) => c.trigramThresholds);
  if (!thresholds.length) return;
  await reader.setLocal("pg_trgm.similarity_threshold", String(Math.min(...thresholds)));
}

const kcol = (i: number) => `q.k${i}`;

/**
 * The statement for `limit` rows of a compiled query after `position` (a
 * keyset position: one value per order key) in its order; binds what it adds.
 */
export function pageStatement(query: CompiledQuery, position: unknown[] | null, limit: number): string {
  let text = `SELECT q.* FROM (${query.inner}) q`;
  if (position) text += ` WHERE ${after(query.keys, position, kcol, query.params)}`;
  return `${text} ORDER BY ${orderBy(query.keys, kcol)} LIMIT ${query.params.add(limit, "int")}`;
}

/** A count answers a number, not rows: test/db/owner-path.test.ts proves it never counts another tenant's. */
async function countRows(reader: TenantReader, q: CompiledQuery, strategy: CountStrategy): Promise<number> {
  const values = q.params.values.slice(0, q.innerParams);
  if (strategy === "exact") {
    const { rows } = await reader.run<{ n: string }>(compiled(`SELECT count(*) AS n FROM (${q.inner}) q`, values));
    return Number(rows[0].n);
  }
  if (strategy === "capped") {
    const { rows } = await reader.run<{ n: string }>(compiled(`SELECT count(*) AS n FROM (${q.inner} LIMIT ${COUNT_CAP}) q`, values));
    return Number(rows[0].n);
  }
  const { rows } = await reader.run<{ "QUERY PLAN": [{ Plan: { "Plan Rows": number } }] }>(compiled(`EXPLAIN (FORMAT JSON) ${q.inner}`, values));
  return Math.round(rows[0]["QUERY PLAN"][0].Plan["Plan Rows"]);
}

function cursorScope(type: QueryType, input: QueryInput): string {
  return JSON.stringify({ type: type.id, filter: input.filter ?? null, sort: input.sort ?? null, distinct_on: input.distinct_on ?? null });
}

/**
 * An include entry's filter and sort over the related entity `e` of
 * include.ts's links statement, placeholders numbered after its own. The
 * per-parent order ends with the link's age there, so no id tie-breaker.
 */
export function compileIncludeWhere(
  scope: ReadScope,
  related: QueryType,
  types: Map<string, QueryType>,
  entry: { filter?: unknown; sort?: SortEntry[] },
  at: string,
): { where: NonNullable<IncludeSpec["where"]>; compilation: Compilation } {
  const params = new Params(INCLUDE_FIRST_PARAM);
  const compilation = newCompilation(params, scope, (name) => types.get(name));
  const sql = entry.filter === undefined ? "TRUE" : compileFilter(entry.filter, related, "e", compilation, `${at}.filter`);
  const keys = orderKeys(entry.sort, related, "e", compilation, sortPathAt(`${at}.sort`)).slice(0, -1);
  return { where: { sql, orderBy: keys.map((k) => `${k.sql} ${k.desc ? "DESC" : "ASC"}, `).join(""), params: params.values }, compilation };
}

/**
 * The include loads a query asks for, the compilations of their filters (for
 * fuzzy thresholds) and the warnings of entries naming a type the caller
 * cannot read: an unreadable type is an unknown one here too, so its entry
 * brings nothing and its filter is not compiled against a schema the caller
 * may not see.
 */
function includeSpecsOf(
  scope: ReadScope,
  input: QueryInput,
  types: Map<string, QueryType>,
): { specs: IncludeSpec[] | null; compilations: Compilation[]; warnings: string[] } {
  const max = input.max_relationships ?? LIST_MAX_RELATIONSHIPS;
  const compilations: Compilation[] = [];
  const warnings: string[] = [];
  const readable = (name: string, at: string) => {
    const found = types.get(name);
    if (found && !unreadable(scope, found)) return found;
    warnings.push(`${at}: ${noType(name)}`);
    return undefined;
  };
  if (input.include_specs?.length) {
    const specs = input.include_specs.map((s, i) => {
      const spec: IncludeSpec = { typeNames: [s.type_name], ruleNames: s.rule_name ? [s.rule_name] : null, limit: Math.min(s.limit ?? max, max) };
      const related = readable(s.type_name, `include_specs[${i}].type_name`);
      if (related && (s.filter !== undefined || s.sort?.length)) {
        const compiled = compileIncludeWhere(scope, related, types, s, `include_specs[${i}]`);
        compilations.push(compiled.compilation);
        warnings.push(...compiled.compilation.warnings);
        spec.where = compiled.where;
      }
      return spec;
    });
    return { specs, compilations, warnings };
  }
  input.include?.forEach((name, i) => readable(name, `include[${i}]`));
  return { specs: input.include?.length ? [{ typeNames: input.include, limit: max }] : null, compilations, warnings };
}

/** A query ready to run: the page statement and what answering needs. */
export interface PlannedQuery {
  /** Whose rows: the caller's tenant, or the owner of a shared root type. */
  tenantId: string;
  readScope: ReadScope;
  query: CompiledQuery;
  /** The page statement and its parameters. */
  text: string;
  values: unknown[];
  specs: IncludeSpec[] | null;
  /** The include_specs filters' compilations (their fuzzy thresholds count too). */
  includeCompilations: Compilation[];
  keyset: boolean;
  page: number;
  limit: number;
  strategy: CountStrategy;
  scope: string;
  /** Type id → the row version (xmin) of each type compiled from the cache, for the page statement to check. */
  cachedTypes: Map<string, string>;
  /** The compilations' warnings, in request order: filter, sort, distinct_on, includes. */
  warnings: string[];
}

/**
 * Reads the types a query names (in one statement, or from `reader`'s
 * cache) and compiles its page statement.
 */
export async function planQuery(
  reader: TenantReader,
  cursorSecret: string,
  input: QueryInput,
  typeReader = new TypeReader(reader, false),
): Promise<PlannedQuery> {
  if (input.cursor !== undefined && input.page !== undefined) throw validationFailed(["cursor: cannot be combined with page"]);
  const { page, limit } = pageOf(input);
  const planned = await compilePlan(reader, input, typeReader);
  const { query, root } = planned;
  const scope = cursorScope(root, input);
  const keyset = input.page === undefined;
  let position: unknown[] | null = null;
  if (input.cursor !== undefined) {
    position = await decodeCursor(cursorSecret, scope, input.cursor);
    if (position.length !== query.keys.length) throw validationFailed(["cursor: does not belong to this query"], "cursor does not belong to this query");
  }
  let text = pageStatement(query, position, limit);
  if (!keyset) text += ` OFFSET ${query.params.add(offsetOf({ page, limit }), "bigint")}`;
  return { ...planned.plan, text, values: query.params.values, keyset, page, limit, strategy: input.count_strategy ?? "capped", scope };
}

/** A plan's parts that come before its page statement: the types, the compiled filter and order, the includes. */
type CompiledPlan = Omit<PlannedQuery, "text" | "values" | "keyset" | "page" | "limit" | "strategy" | "scope">;

async function compilePlan(
  reader: TenantReader,
  input: QueryInput,
  typeReader: TypeReader,
): Promise<{ plan: CompiledPlan; query: CompiledQuery; root: EntityType }> {
  const names = relatedTypeNames(input.filter);
  for (const name of input.include ?? []) names.add(name);
  for (const s of input.include_specs ?? []) {
    names.add(s.type_name);
    relatedTypeNames(s.filter, names);
  }
  const { root, types, scope: readScope, cachedTypes } = await readTypes(reader, typeReader, input.type_name, names);
  const query = compileQuery(readScope, root, types, input);
  const { specs, compilations: includeCompilations, warnings: includeWarnings } = includeSpecsOf(readScope, input, types);
  const plan = {
    tenantId: readScope.tenantId,
    readScope,
    query,
    specs,
    includeCompilations,
    cachedTypes,
    warnings: [...query.compilation.warnings, ...includeWarnings],
  };
  return { plan, query, root };
}

/** The answer's fields beside `data`. */
type Paging = { next_cursor?: string; pagination?: Pagination; count?: number; count_strategy?: CountStrategy; warnings?: string[] };

/**
 * The answer's fields beside `data` for a page of `size` rows whose last row has
 * the order keys `lastKeys`: `next_cursor` (keyset, full page) or
 * `pagination` (offset), then `count` and `count_strategy` when asked, then
 * `warnings` when there are any.
 */
async function pagingOf(
  cursorSecret: string,
  plan: PlannedQuery,
  size: number,
  lastKeys: unknown[] | null,
  count: number | undefined,
  includeCount: boolean,
): Promise<Paging> {
  const { keyset, page, limit, strategy, warnings } = plan;
  const extra = { ...(includeCount ? { count, count_strategy: strategy } : {}), ...warningsField(warnings) };
  if (!keyset) return { pagination: paginationOf({ page, limit }, count!), ...extra };
  return { ...(await keysetPaging(cursorSecret, plan.scope, size, limit, lastKeys)), ...extra };
}

/** The count a page needs: when asked, and always for offset paging (its `pagination.total`). */
const countFor = (reader: TenantReader, plan: PlannedQuery, includeCount: boolean) =>
  includeCount || !plan.keyset ? countRows(reader, plan.query, plan.strategy) : Promise.resolve(undefined);

/**
 * Runs a planned page as rows (for callers that work on the entities), and
 * its count when asked or when offset paging needs it.
 */
export async function fetchPage(reader: TenantReader, cursorSecret: string, plan: PlannedQuery, includeCount = false) {
  const { rows } = await reader.run<EntityRow & { tenant_id: string } & Record<string, unknown>>(compiled(plan.text, plan.values));
  const count = await countFor(reader, plan, includeCount);
  assertTenantRows(rows, plan.tenantId);
  const last = rows[rows.length - 1];
  const lastKeys = last ? plan.query.keys.map((_, i) => last[`k${i}`] ?? null) : null;
  return { rows, paging: await pagingOf(cursorSecret, plan, rows.length, lastKeys, count, includeCount) };
}

/**
 * presentEntity's shape, field for field, built by Postgres from a page row
 * `q`; Postgres spaces its JSON, which compactJson takes out.
 */
const entityJson = (shared: boolean) => `json_build_object('id', q.id, 'name', q.name, 'type', json_build_object('id', q.type_id, 'name', q.type_name),
  'attributes', q.attributes, 'identifier_key', q.identifier_key,
  'created_at', ${isoTimestampSql("q.created_at")}, 'updated_at', ${isoTimestampSql("q.updated_at")}, 'deleted_at', ${isoTimestampSql("q.deleted_at")}${shared ? ", 'source_type', 'shared'" : ""})`;

/**
 * Whether the types compiled from the cache are still those versions, in the
 * snapshot of the statement it is part of.
 */
function typesCurrent(plan: PlannedQuery): string {
  if (!plan.cachedTypes.size) return "TRUE";
  const { params, compilation } = plan.query;
  return `(SELECT count(*) FROM unnest(${params.add([...plan.cachedTypes.keys()], "uuid[]")}, ${params.add([...plan.cachedTypes.values()], "text[]")}) AS v(id, version)
    JOIN entity_types et ON et.id = v.id AND et.tenant_id = ${compilation.tenant} AND et.xmin::text = v.version) = ${plan.cachedTypes.size}`;
}

/**
 * The page statement folded into one row: the page as a JSON array in
 * order, its size, the least and greatest tenant of its rows, the last row's
 * order keys (as text, which their casts read back), for includes the ids,
 * and the cached types' verdict. The Worker then neither parses nor
 * re-serialises an entity: one row with one long text costs it less than a
 * hundred rows of short ones (measured), though Postgres sorts the page again
 * for each ordered aggregate. No Postgres builder prints compact JSON (jsonb
 * values inside any of them keep their spaces), so compactJson strips the
 * text in one pass, under half the cost of JSON.parse and JSON.stringify.
 */
function pageJsonStatement(plan: PlannedQuery): string {
  const order = orderBy(plan.query.keys, kcol);
  const keys = plan.query.keys.map((_, i) => `${kcol(i)}::text`).join(", ");
  return `SELECT coalesce(json_agg(${entityJson(plan.readScope.shared !== null)} ORDER BY ${order}), '[]')::text AS data, count(*)::int AS size,
      min(q.tenant_id::text) AS tenant_low, max(q.tenant_id::text) AS tenant_high, (array_agg(json_build_array(${keys}) ORDER BY ${order}))[count(*)::int] AS last_keys
      ${plan.specs ? `, array_agg(q.id ORDER BY ${order}) AS ids` : ""}, ${typesCurrent(plan)} AS types_current
    FROM (${plan.text}) q`;
}

interface JsonPage {
  data: string;
  size: number;
  /** The least and greatest tenant of the page's rows: both the caller's, or the page is someone else's too. */
  tenant_low: string | null;
  tenant_high: string | null;
  last_keys: unknown[] | null;
  ids?: string[] | null;
  types_current: boolean;
}

async function runJsonPage(reader: TenantReader, plan: PlannedQuery, includeCount: boolean): Promise<{ page: JsonPage; count: number | undefined }> {
  await applyTrigramThreshold(reader, plan.query.compilation, ...plan.includeCompilations);
  // Independent statements, sent at once: a reader that gathers reads (an app render's) sends them in one request.
  const [{ rows }, count] = await Promise.all([
    reader.run<JsonPage & Record<string, unknown>>(compiled(pageJsonStatement(plan), plan.values)),
    countFor(reader, plan, includeCount),
  ]);
  return { page: rows[0], count };
}

/** A query's page as JSON text (an array of presented entities, includes attached) and its paging fields. */
export async function queryPage(tenant: TenantDb, cursorSecret: string, input: QueryInput): Promise<{ json: string; paging: Paging }> {
  const includeCount = input.include_count ?? false;
  return tenant.read(async (reader) => {
    let plan = await planQuery(reader, cursorSecret, input, new TypeReader(reader, true));
    let { page, count } = await runJsonPage(reader, plan, includeCount);
    if (!page.types_current) {
      // A cached type changed since it was read: plan again from the types as they are.
      forgetTypes(plan.tenantId, new Set(plan.cachedTypes.keys()));
      plan = await planQuery(reader, cursorSecret, input);
      ({ page, count } = await runJsonPage(reader, plan, includeCount));
    }
    assertTenantRows(page.size ? [{ tenant_id: page.tenant_low! }, { tenant_id: page.tenant_high! }] : [], plan.tenantId);
    const paging = await pagingOf(cursorSecret, plan, page.size, page.last_keys, count, includeCount);
    if (!plan.specs) return { json: compactJson(page.data), paging };
    const rels = await loadRelationships(reader, plan.readScope, page.ids ?? [], plan.specs);
    const data = (JSON.parse(page.data) as PresentedEntity[]).map((e) => ({ ...e, relationships: rels.get(e.id) ?? [] }));
    return { json: JSON.stringify(data), paging };
  });
}

/** The query's answer with its entities as objects (GraphQL's resolvers). */
export async function runQuery(tenant: TenantDb, cursorSecret: string, input: QueryInput) {
  const { json, paging } = await queryPage(tenant, cursorSecret, input);
  return { data: JSON.parse(json) as PresentedEntity[], ...paging };
}

/** Rows `offset` to `offset + limit` of a query's order (an app's paged grid: a page it may jump to, not a cursor it follows). */
export interface QueryWindow {
  offset: number;
  limit: number;
}

/**
 * Where a window is read from, given the exact count: past the end, nothing
 * (LIMIT 0); else from whichever end of the order is nearer, so the last
 * page skips as few rows as the first (`reverse`: the order reversed, every
 * key's direction flipped, NULLs and the id tie-breaker included, which is
 * that order exactly backwards; `offset` then counts from the end).
 */
export function windowAt(count: number, window: QueryWindow): QueryWindow & { reverse: boolean } {
  if (window.offset >= count || window.limit <= 0) return { offset: 0, limit: 0, reverse: false };
  const limit = Math.min(window.limit, count - window.offset);
  const after = count - window.offset - limit;
  return after < window.offset ? { offset: after, limit, reverse: true } : { offset: window.offset, limit, reverse: false };
}

async function windowAttempt(reader: TenantReader, input: QueryInput, window: QueryWindow, typeReader: TypeReader) {
  const { plan: base, query } = await compilePlan(reader, input, typeReader);
  await applyTrigramThreshold(reader, query.compilation, ...base.includeCompilations);
  const count = await countRows(reader, query, "exact");
  const at = windowAt(count, window);
  const keys = at.reverse ? query.keys.map((k) => ({ ...k, desc: !k.desc })) : query.keys;
  const text = `SELECT q.* FROM (${query.inner}) q ORDER BY ${orderBy(keys, kcol)} LIMIT ${query.params.add(at.limit, "int")} OFFSET ${query.params.add(at.offset, "bigint")}`;
  const plan: PlannedQuery = { ...base, text, values: query.params.values, keyset: false, page: 1, limit: at.limit, strategy: "exact", scope: "" };
  // The page is folded in the query's own order whichever end it was read from.
  const page = (await reader.run<JsonPage & Record<string, unknown>>(compiled(pageJsonStatement(plan), plan.values))).rows[0];
  return { plan, page, count };
}

/**
 * One window of a query and its exact count: the count first, then the
 * window read from the nearer end of the order (windowAt). A first page and
 * a last page each skip at most a page's rows; a middle page skips up to half
 * the count. `page`, `limit` and `cursor` of `input` are not read.
 */
export async function queryWindow(
  tenant: TenantDb,
  input: QueryInput,
  window: QueryWindow,
): Promise<{ data: PresentedEntity[]; count: number; warnings: string[] }> {
  return tenant.read(async (reader) => {
    let { plan, page, count } = await windowAttempt(reader, input, window, new TypeReader(reader, true));
    if (!page.types_current) {
      forgetTypes(plan.tenantId, new Set(plan.cachedTypes.keys()));
      ({ plan, page, count } = await windowAttempt(reader, input, window, new TypeReader(reader, false)));
    }
    assertTenantRows(page.size ? [{ tenant_id: page.tenant_low! }, { tenant_id: page.tenant_high! }] : [], plan.tenantId);
    const data = JSON.parse(page.data) as PresentedEntity[];
    if (!plan.specs) return { data, count, warnings: plan.warnings };
    const rels = await loadRelationships(reader, plan.readScope, page.ids ?? [], plan.specs);
    return { data: data.map((e) => ({ ...e, relationships: rels.get(e.id) ?? [] })), count, warnings: plan.warnings };
  });
}
