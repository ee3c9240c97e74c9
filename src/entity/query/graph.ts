// POST /entity/query-graph (docs/query.md, query-graph): the
// root page exactly as POST /entity/query pages it, then the include tree
// breadth first, one statement per include entry for all of that entry's
// parents at once. Every entity appears once in `nodes`, however often it is
// reached; a node budget bounds the answer and records where it cut.
import { assertTenantRows, type TenantDb, type TenantReader } from "../../db/client";
import { ApiError } from "../../lib/errors";
import { validationFailed } from "../../lib/validate";
import { ENTITY_COLUMNS, presentEntity, type EntityRow, type PresentedEntity } from "../entities/rows";
import { linksStatement, type IncludeSpec } from "../relationships/include";
import { unreadable, type ReadScope } from "../../db/entity-access";
import { readerFor } from "../shared";
import { relatedTypeNames, type Compilation } from "./filter";
import type { QueryType } from "./operands";
import { compiled, Params } from "../../db/params";
import { applyTrigramThreshold, compileIncludeWhere, fetchPage, loadTypes, planQuery, type QueryInput } from "./service";
import type { SortEntry } from "./sort";
import { warningsField } from "./warnings";

/** Levels of `include` below the roots ("to a server-capped depth"). */
export const MAX_GRAPH_DEPTH = 5;
/** Include entries in the whole tree: each one is a statement. */
export const MAX_GRAPH_ENTRIES = 50;
/** Nodes in one answer, roots included; a request may ask for fewer with `node_budget`. */
export const NODE_BUDGET = 2_000;
/** Related entities per parent when an entry gives no `limit` (as `max_relationships` defaults on /entity/query). */
export const DEFAULT_INCLUDE_LIMIT = 100;

export interface GraphInclude {
  type_name: string;
  rule_name?: string;
  filter?: unknown;
  sort?: SortEntry[];
  limit?: number;
  include?: GraphInclude[];
}

export interface GraphQueryInput extends Omit<QueryInput, "include" | "include_specs" | "max_relationships"> {
  include?: GraphInclude[];
  node_budget?: number;
}

export interface GraphEdge {
  rule: { id: string; name: string };
  from_id: string;
  to_id: string;
}

export interface Truncation {
  /** Type names from the root type to the entry the budget cut. */
  path: string[];
  /** The entry's level: 1 for the root's own includes. */
  depth: number;
}

/** One include entry, compiled. */
interface Branch {
  path: string[];
  depth: number;
  spec: IncludeSpec & { where: NonNullable<IncludeSpec["where"]> };
  compilation: Compilation;
  /** The entry's warnings: none for a type the caller cannot read, whose schema they must not learn about. */
  warnings: string[];
  children: Branch[];
}

/**
 * Depth and size of the tree, checked before anything runs. The body schema
 * validates entries down to MAX_GRAPH_DEPTH and leaves deeper ones to this
 * check, so a tree that is too deep gets one line naming where.
 */
function checkTree(entries: GraphInclude[], at: string, depth: number, names: Set<string>): number {
  if (!entries.length) return 0;
  if (depth > MAX_GRAPH_DEPTH) throw validationFailed([`${at}: includes nest at most ${MAX_GRAPH_DEPTH} levels`], "Include tree is too deep");
  let count = entries.length;
  entries.forEach((e, i) => {
    names.add(e.type_name);
    relatedTypeNames(e.filter, names);
    count += checkTree(e.include ?? [], `${at}[${i}].include`, depth + 1, names);
  });
  return count;
}

function compileTree(scope: ReadScope, entries: GraphInclude[], types: Map<string, QueryType>, parentPath: string[], at: string): Branch[] {
  return entries.map((entry, i) => {
    const here = `${at}[${i}]`;
    const related = types.get(entry.type_name);
    // The entries are nested queries: an unknown type is the root's 404, not an empty branch.
    if (!related) throw new ApiError("NOT_FOUND", `Entity type ${entry.type_name} not found`, { path: `${here}.type_name` });
    const { where, compilation } = compileIncludeWhere(scope, related, types, entry, here);
    const path = [...parentPath, related.name];
    return {
      path,
      depth: path.length - 1,
      spec: {
        typeNames: [related.name],
        ruleNames: entry.rule_name ? [entry.rule_name] : null,
        limit: entry.limit ?? DEFAULT_INCLUDE_LIMIT,
        where,
      },
      compilation,
      warnings: unreadable(scope, related) ? [] : compilation.warnings,
      children: compileTree(scope, entry.include ?? [], types, path, `${here}.include`),
    };
  });
}

/**
 * One entry's level over include.ts's links of its parents. Rows are taken in
 * traversal order (the parent's place in its level, then the rank under the
 * parent). Related entities not yet in the answer are numbered by their first
 * visit; those beyond `room` are cut together with every link reaching them.
 * The entity columns come only on a kept new entity's first visit, so each
 * entity crosses the wire once. The count of new entities rides on every row,
 * and the outer join leaves one row even when nothing was kept, so a cut is
 * always seen.
 */
const levelSql = (links: string, parents: string, known: string, room: string) => `
  WITH reached AS (${links}),
  parents AS (SELECT id, ord FROM unnest(${parents}) WITH ORDINALITY AS p(id, ord)),
  known AS (SELECT unnest(${known}) AS id),
  visits AS (
    SELECT r.anchor, r.direction, r.rule_id, r.rule_name, r.id AS related, p.ord, r.n,
           row_number() OVER (PARTITION BY r.id ORDER BY p.ord, r.n) AS visit
      FROM reached r JOIN parents p ON p.id = r.anchor
  ),
  fresh AS (
    SELECT v.related, row_number() OVER (ORDER BY v.ord, v.n) AS seq
      FROM visits v
     WHERE v.visit = 1 AND NOT EXISTS (SELECT 1 FROM known k WHERE k.id = v.related)
  ),
  kept AS (
    SELECT v.*, f.seq FROM visits v LEFT JOIN fresh f ON f.related = v.related
     WHERE f.seq IS NULL OR f.seq <= ${room}
  )
  SELECT c.fresh, k.anchor, k.direction, k.rule_id, k.rule_name, k.related, e.tenant_id, ${ENTITY_COLUMNS}
    FROM (SELECT count(*)::int AS fresh FROM fresh) c
    LEFT JOIN kept k ON TRUE
    LEFT JOIN entities e ON k.seq IS NOT NULL AND k.visit = 1 AND e.id = k.related
    LEFT JOIN entity_types t ON t.id = e.type_id
   ORDER BY k.ord, k.n`;

/** A link of the level (`anchor` null on the one row of a level that kept nothing), with the entity's columns (and tenant) on a kept new entity's first visit. */
interface LevelRow extends Omit<EntityRow, "id"> {
  tenant_id: string | null;
  fresh: number;
  anchor: string | null;
  direction: "to" | "from";
  rule_id: string;
  rule_name: string;
  related: string;
  id: string | null;
}

/** What the walk has gathered so far. */
class Graph {
  readonly nodes = new Map<string, PresentedEntity>();
  readonly edges = new Map<string, GraphEdge>();
  readonly truncations: Truncation[] = [];

  constructor(
    readonly budget: number,
    private readonly scope: ReadScope,
  ) {}

  /** Loads one entry's level for `parents` and answers the ids it reached, in traversal order, for the entry's own includes. */
  async expand(reader: TenantReader, branch: Branch, parents: string[]): Promise<string[]> {
    const links = linksStatement(this.scope, parents, branch.spec);
    const own = new Params(links.values.length + 1);
    const room = Math.max(0, this.budget - this.nodes.size);
    const text = levelSql(links.text, own.add(parents, "uuid[]"), own.add([...this.nodes.keys()], "uuid[]"), own.add(room, "int"));
    const { rows } = await reader.run<LevelRow & Record<string, unknown>>(compiled(text, [...links.values, ...own.values]));
    // The rows that carry an entity carry its tenant; the others name entities already checked.
    assertTenantRows(
      rows.flatMap((r) => (r.id === null ? [] : [{ tenant_id: r.tenant_id! }])),
      this.scope.tenantId,
    );
    if (rows[0].fresh > room) this.truncations.push({ path: branch.path, depth: branch.depth });

    const reached = new Set<string>();
    for (const r of rows) {
      if (r.anchor === null) continue;
      if (r.id !== null) this.nodes.set(r.id, presentEntity(r as EntityRow, undefined, this.scope.shared !== null));
      // Edges keep the link's own direction, whichever way it was walked.
      const [from_id, to_id] = r.direction === "to" ? [r.anchor, r.related] : [r.related, r.anchor];
      const key = `${r.rule_id}/${from_id}/${to_id}`;
      if (!this.edges.has(key)) this.edges.set(key, { rule: { id: r.rule_id, name: r.rule_name }, from_id, to_id });
      reached.add(r.related);
    }
    return [...reached];
  }
}

export async function runGraphQuery(tenant: TenantDb, cursorSecret: string, input: GraphQueryInput) {
  const { include = [], node_budget = NODE_BUDGET, ...page } = input;
  const names = new Set<string>();
  if (checkTree(include, "include", 1, names) > MAX_GRAPH_ENTRIES) {
    throw validationFailed([`include: at most ${MAX_GRAPH_ENTRIES} entries in the whole tree`], "Include tree is too large");
  }

  return tenant.read(async (reader) => {
    const plan = await planQuery(reader, cursorSecret, page);
    // A shared root's includes are its owner's types.
    const types = await loadTypes(readerFor(reader, plan.tenantId), names);
    const tree = compileTree(plan.readScope, include, types, [input.type_name], "include");
    await applyTrigramThreshold(reader, plan.query.compilation, ...branches(tree).map((b) => b.compilation));
    const {
      rows,
      paging: { warnings: _, ...paging },
    } = await fetchPage(reader, cursorSecret, plan, input.include_count);

    // The page is what was asked for, so it is never cut; it does count against the budget.
    const graph = new Graph(node_budget, plan.readScope);
    for (const r of rows) graph.nodes.set(r.id, presentEntity(r, undefined, plan.readScope.shared !== null));
    const roots = rows.map((r) => r.id);
    let level = tree.map((branch) => ({ branch, parents: roots }));
    while (level.length) {
      const next: typeof level = [];
      for (const { branch, parents } of level) {
        if (!parents.length) continue;
        const reached = await graph.expand(reader, branch, parents);
        for (const child of branch.children) next.push({ branch: child, parents: reached });
      }
      level = next;
    }
    return {
      data: {
        roots,
        nodes: Object.fromEntries(graph.nodes),
        edges: [...graph.edges.values()],
        page_info: { truncated: graph.truncations.length > 0, truncations: graph.truncations, ...paging },
      },
      // The root page's warnings, then the tree's in depth-first request order.
      ...warningsField([...plan.warnings, ...branches(tree).flatMap((b) => b.warnings)]),
    };
  });
}

/** Every branch of the tree, each before its children. */
function branches(tree: Branch[]): Branch[] {
  return tree.flatMap((b) => [b, ...branches(b.children)]);
}
