// `<Type>_aggregate`: POST /entity/query/aggregate as a root field. The
// arguments are the route's body (where compiled to a filter as list fields
// do, and-ed with filter); the body is validated with the route's own schema
// and answered by the same service, so a GraphQL aggregate means exactly
// what the REST one does. Group rows carry names the request chooses
// (aliases, group keys), so each row is one JSON value: `{ group, <alias>: value }`.
import {
  GraphQLEnumType,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLString,
  type GraphQLFieldConfig,
  type GraphQLFieldResolver,
  type GraphQLInputType,
  type GraphQLOutputType,
} from "graphql";
import { validate } from "../../lib/validate";
import type { AggregateInput } from "../query/aggregate/compile";
import { AGGREGATE_FUNCTIONS, BUCKETS, aggregateBody } from "../query/aggregate/schemas";
import { aggregateGroups, DEFAULT_GROUP_LIMIT } from "../query/aggregate/service";
import { GraphQLJSON, SortDirection } from "./inputs";
import { filterInput, type GraphqlContext } from "./resolvers";
import type { WhereShape } from "./where";

const nn = <T extends GraphQLOutputType | GraphQLInputType>(t: T) => new GraphQLNonNull(t);
const listOf = <T extends GraphQLOutputType | GraphQLInputType>(t: T) => new GraphQLList(nn(t));

const AggregateFunction = new GraphQLEnumType({
  name: "AggregateFunction",
  description:
    "count (rows, or with a path the values there), count_distinct, and over numeric values sum and avg, over numeric and timestamp values min and max",
  values: Object.fromEntries(AGGREGATE_FUNCTIONS.map((f) => [f, {}])),
});

const TimeBucket = new GraphQLEnumType({
  name: "TimeBucket",
  description: "A timestamp truncated in UTC (a week starts on Monday)",
  values: Object.fromEntries(BUCKETS.map((b) => [b, {}])),
});

const AggregateSpec = new GraphQLInputObjectType({
  name: "AggregateSpec",
  description: "One aggregate: its function, the entity path it reads (count without one counts rows) and the alias it answers under",
  fields: { fn: { type: nn(AggregateFunction) }, path: { type: listOf(GraphQLString) }, as: { type: nn(GraphQLString) } },
});

const GroupBySpec = new GraphQLInputObjectType({
  name: "GroupBySpec",
  description: "One group path; bucket truncates a timestamp; the group key is as, or the path joined with dots",
  fields: { path: { type: nn(listOf(GraphQLString)) }, bucket: { type: TimeBucket }, as: { type: GraphQLString } },
});

const AggregateOrder = new GraphQLInputObjectType({
  name: "AggregateOrder",
  description: "Orders the groups by a group key or an aggregate alias",
  fields: { key: { type: nn(GraphQLString) }, direction: { type: nn(SortDirection), defaultValue: "asc" } },
});

const AggregateGroups = new GraphQLObjectType({
  name: "AggregateGroups",
  description: "A page of groups, as POST /entity/query/aggregate answers it",
  fields: {
    groups: { type: nn(listOf(GraphQLJSON)), description: "{ group: { <key>: value }, <alias>: value, ... } per group, in order" },
    next_cursor: { type: GraphQLString, description: "Present only when a full page came back; pass it as cursor with the same arguments for the next page" },
    warnings: { type: listOf(GraphQLString), description: "Paths that name nothing the schema or the caller knows" },
  },
});

/** The shared type names these fields add, which an entity type then cannot take as is. */
export const AGGREGATE_TYPE_NAMES = [AggregateFunction.name, TimeBucket.name, AggregateSpec.name, GroupBySpec.name, AggregateOrder.name, AggregateGroups.name];

interface AggregateArgs {
  where?: Record<string, unknown> | null;
  filter?: unknown;
  group_by?: { path: string[]; bucket?: string | null; as?: string | null }[] | null;
  aggregates: { fn: string; path?: string[] | null; as: string }[];
  sort?: { key: string; direction: "asc" | "desc" }[] | null;
  limit: number;
  cursor?: string | null;
}

/** An input object as the REST body writes it: null fields left out. */
const present = <T extends object>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v != null));

function aggregateResolver(typeName: string, shapes: Map<string, WhereShape>): GraphQLFieldResolver<unknown, GraphqlContext, AggregateArgs> {
  return async (_root, args, ctx, info) => {
    const filter = filterInput(typeName, args, shapes, info);
    const body = {
      type_name: typeName,
      ...(filter ? { filter } : {}),
      ...(args.group_by != null ? { group_by: args.group_by.map(present) } : {}),
      aggregates: args.aggregates.map(present),
      ...(args.sort != null ? { sort: args.sort } : {}),
      limit: args.limit,
      ...(args.cursor != null ? { cursor: args.cursor } : {}),
    };
    const answer = await aggregateGroups(ctx.tenant, ctx.cursorSecret, validate<AggregateInput>(aggregateBody, body));
    return { groups: answer.data, next_cursor: answer.next_cursor ?? null, warnings: answer.warnings ?? null };
  };
}

/** The root field of one type's aggregates; `where` is the type's own where input. */
export function aggregateField(
  typeName: string,
  where: GraphQLInputObjectType,
  shapes: Map<string, WhereShape>,
): GraphQLFieldConfig<unknown, GraphqlContext, AggregateArgs> {
  return {
    type: AggregateGroups,
    description: `Groups of ${typeName} entities with their aggregates: what POST /entity/query/aggregate answers for type_name ${typeName} and the same arguments`,
    args: {
      where: { type: where, description: "Typed conditions, compiled to a filter (and of every condition given)" },
      filter: { type: GraphQLJSON, description: "A filter tree exactly as POST /entity/query takes it; with where, both must hold" },
      group_by: { type: listOf(GroupBySpec), description: "Up to five group paths" },
      aggregates: { type: nn(listOf(AggregateSpec)) },
      sort: { type: listOf(AggregateOrder), description: "By group keys or aliases; the group keys not named follow, ascending" },
      limit: { type: nn(GraphQLInt), defaultValue: DEFAULT_GROUP_LIMIT, description: "At most this many groups (1 to 1000)" },
      cursor: { type: GraphQLString, description: "next_cursor of the previous page" },
    },
    extensions: { loadsEntities: true },
    resolve: aggregateResolver(typeName, shapes),
  };
}
