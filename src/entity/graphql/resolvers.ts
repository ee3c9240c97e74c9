// Resolvers: every list of entities is answered by the REST query engine.
// A type's root field builds the body POST /entity/query would take,
// validates it with that route's own schema and runs it through runQuery; a
// relationship field is an include_specs entry of such a body, batched per
// level. So GraphQL and REST share one compiler, one set of access rules and
// one set of answers.
import { Kind, type GraphQLFieldResolver, type GraphQLResolveInfo, type SelectionSetNode } from "graphql";
import type { TenantDb } from "../../db/client";
import { validate, validationFailed } from "../../lib/validate";
import { ENTITY_COLUMNS, presentEntity, type EntityRow, type PresentedEntity } from "../entities/rows";
import { queryBody } from "../query/schemas";
import { runQuery, type IncludeSpecInput, type QueryInput } from "../query/service";
import type { SortEntry } from "../query/sort";
import type { Batches } from "./batch";
import { checkVariablesSet, whereToFilter, type Filter, type WhereShape } from "./where";

export interface GraphqlContext {
  tenant: TenantDb;
  cursorSecret: string;
  batches: Batches;
}

interface OrderArg {
  /** An OrderField enum value, whose internal value is the path. */
  field?: string[] | null;
  path?: string[] | null;
  direction: "asc" | "desc";
}

export interface ListArgs {
  where?: Record<string, unknown> | null;
  filter?: unknown;
  sort?: OrderArg[] | null;
  limit: number;
}

export interface ConnectionArgs extends ListArgs {
  cursor?: string | null;
  count_strategy?: QueryInput["count_strategy"] | null;
}

export interface Connection {
  nodes: PresentedEntity[];
  next_cursor: string | null;
  count: number | null;
  count_strategy: string | null;
}

/** A relationship field of `source` entities: the `target` entities linked under `rule`, on its `direction` side. */
export interface Link {
  source: string;
  rule: string;
  target: string;
  direction: "to" | "from";
}

/** The filter of a field's where and filter arguments (both must hold), or undefined when it has neither. */
export function filterInput(
  typeName: string,
  args: Pick<ListArgs, "where" | "filter">,
  shapes: Map<string, WhereShape>,
  info: GraphQLResolveInfo,
): Filter | undefined {
  const whereNode = info.fieldNodes[0].arguments?.find((a) => a.name.value === "where")?.value;
  if (whereNode) checkVariablesSet(whereNode, info.variableValues, "where");
  const filters = [args.filter, args.where == null ? undefined : whereToFilter(args.where, typeName, shapes)].filter((f) => f != null) as Filter[];
  return filters.length ? (filters.length === 1 ? filters[0] : { operator: "and", filters }) : undefined;
}

/** The filter, sort and limit of a list field, in the REST body's terms; absent and null arguments are left out. */
function listInput(typeName: string, args: ListArgs, shapes: Map<string, WhereShape>, info: GraphQLResolveInfo) {
  const filter = filterInput(typeName, args, shapes, info);
  const out: { filter?: Filter; sort?: SortEntry[]; limit: number } = { limit: args.limit };
  if (filter) out.filter = filter;
  if (args.sort != null) out.sort = args.sort.map(sortEntry);
  return out;
}

function sortEntry(order: OrderArg, i: number): SortEntry {
  const path = order.field ?? order.path;
  if (path == null || (order.field != null && order.path != null))
    throw validationFailed([`sort[${i}]: exactly one of field and path is required`], "Sort is invalid");
  return { path, direction: order.direction };
}

/** Whether the field's selection asks for `name`, looking through fragments. */
function selects(info: GraphQLResolveInfo, name: string): boolean {
  const seen = new Set<string>();
  const within = (set: SelectionSetNode | undefined): boolean =>
    !!set &&
    set.selections.some((s) => {
      if (s.kind === Kind.FIELD) return s.name.value === name;
      if (s.kind === Kind.INLINE_FRAGMENT) return within(s.selectionSet);
      if (seen.has(s.name.value)) return false;
      seen.add(s.name.value);
      return within(info.fragments[s.name.value]?.selectionSet);
    });
  return info.fieldNodes.some((f) => within(f.selectionSet));
}

/** The root field of one type: exactly what POST /entity/query answers for the equivalent body. */
export function connectionResolver(typeName: string, shapes: Map<string, WhereShape>): GraphQLFieldResolver<unknown, GraphqlContext, ConnectionArgs> {
  return async (_root, args, ctx, info) => {
    const body: QueryInput = { type_name: typeName, ...listInput(typeName, args, shapes, info) };
    if (args.cursor != null) body.cursor = args.cursor;
    if (args.count_strategy != null) body.count_strategy = args.count_strategy;
    // A count costs a statement; run it only when the selection reads it.
    if (selects(info, "count") || selects(info, "count_strategy")) body.include_count = true;
    // Without page the answer is keyset-paged: next_cursor, and count when asked.
    const { data, ...paging } = (await runQuery(ctx.tenant, ctx.cursorSecret, validate<QueryInput>(queryBody, body))) as {
      data: PresentedEntity[];
      next_cursor?: string;
      count?: number;
      count_strategy?: string;
    };
    return {
      nodes: data,
      next_cursor: paging.next_cursor ?? null,
      count: paging.count ?? null,
      count_strategy: paging.count_strategy ?? null,
    } satisfies Connection;
  };
}

export function relationshipResolver(link: Link, shapes: Map<string, WhereShape>): GraphQLFieldResolver<PresentedEntity, GraphqlContext, ListArgs> {
  return (parent, args, ctx, info) => ctx.batches.load(info.fieldNodes[0], parent.id, (ids) => loadLinked(ctx, link, args, shapes, info, ids));
}

/** One query's anchors: the most ids an `in` particle takes, and the largest page. */
const ANCHORS_PER_QUERY = 1000;

/**
 * The linked entities of every anchor. The links come from POST
 * /entity/query itself: the anchors selected by id with one include_specs
 * entry (this rule, the target type, the field's filter, sort and limit), so
 * a relationship field lists what a REST include lists. One more statement
 * reads the linked rows in full, since a GraphQL node has every entity field.
 */
async function loadLinked(
  ctx: GraphqlContext,
  link: Link,
  args: ListArgs,
  shapes: Map<string, WhereShape>,
  info: GraphQLResolveInfo,
  anchorIds: string[],
): Promise<Map<string, PresentedEntity[]>> {
  const { limit, ...rest } = listInput(link.target, args, shapes, info);
  const spec: IncludeSpecInput = { type_name: link.target, rule_name: link.rule, ...rest, limit };
  const linked = new Map<string, string[]>();
  for (let i = 0; i < anchorIds.length; i += ANCHORS_PER_QUERY) {
    const chunk = anchorIds.slice(i, i + ANCHORS_PER_QUERY);
    const body = {
      type_name: link.source,
      filter: { operator: "in", path: ["id"], value: chunk },
      limit: chunk.length,
      include_specs: [spec],
      max_relationships: limit,
    };
    const { data } = await runQuery(ctx.tenant, ctx.cursorSecret, validate<QueryInput>(queryBody, body));
    // A rule from a type to itself links both ways; the field is one side of it.
    for (const e of data)
      linked.set(
        e.id,
        (e.relationships ?? []).filter((r) => r.direction === link.direction).map((r) => r.entity.id),
      );
  }
  const ids = [...new Set([...linked.values()].flat())];
  const { rows } = await ctx.tenant.tx((sql) =>
    sql.query<EntityRow & Record<string, unknown>>(
      `SELECT ${ENTITY_COLUMNS} FROM entities e JOIN entity_types t ON t.id = e.type_id WHERE e.id = ANY($1::uuid[]) AND e.deleted_at IS NULL`,
      [ids],
    ),
  );
  const byId = new Map(rows.map((r) => [r.id, presentEntity(r)]));
  return new Map([...linked].map(([anchor, related]) => [anchor, related.flatMap((id) => byId.get(id) ?? [])]));
}
