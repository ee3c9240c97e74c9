// The types every tenant's schema shares: the JSON scalar, the operator
// inputs of `where` (one per kind of value, their fields named after the
// REST operators they compile to) and the small enums.
import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLFloat,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLString,
  valueFromASTUntyped,
  type GraphQLInputFieldConfigMap,
  type GraphQLInputType,
} from "graphql";

export const GraphQLJSON = new GraphQLScalarType({
  name: "JSON",
  description: "Any JSON value, passed through as is.",
  serialize: (value) => value,
  parseValue: (value) => value,
  parseLiteral: (ast, variables) => valueFromASTUntyped(ast, variables),
});

/** What a `where` field can be compared as; each kind has one operator input. */
export type FilterKind = "string" | "number" | "boolean" | "id" | "timestamp" | "string_list";

const list = (t: GraphQLInputType) => new GraphQLList(new GraphQLNonNull(t));

function operators(names: string[], t: GraphQLInputType): GraphQLInputFieldConfigMap {
  return Object.fromEntries(names.map((n) => [n, { type: t }]));
}

const RANGE = ["eq", "neq", "gt", "gte", "lt", "lte"];
const IS_NULL = { is_null: { type: GraphQLBoolean, description: "true: the value is missing or null; false: it is present" } };

export const FILTER_INPUTS: Record<FilterKind, GraphQLInputObjectType> = {
  string: new GraphQLInputObjectType({
    name: "StringFilter",
    description: "Operators on a text value, as POST /entity/query applies them (docs/query.md). Several operators combine with and.",
    fields: {
      ...operators(RANGE, GraphQLString),
      in: { type: list(GraphQLString) },
      ...operators(["like", "ilike", "segment", "fuzzy"], GraphQLString),
      fuzzy_threshold: { type: GraphQLFloat, description: "The similarity fuzzy needs, 0 to 1 (default 0.6); only with fuzzy" },
      ...IS_NULL,
    },
  }),
  number: new GraphQLInputObjectType({
    name: "NumberFilter",
    description: "Operators on a numeric value. Several operators combine with and.",
    fields: { ...operators(RANGE, GraphQLFloat), in: { type: list(GraphQLFloat) }, ...IS_NULL },
  }),
  boolean: new GraphQLInputObjectType({
    name: "BooleanFilter",
    description: "Operators on a boolean value. Several operators combine with and.",
    fields: { ...operators(["eq", "neq"], GraphQLBoolean), ...IS_NULL },
  }),
  id: new GraphQLInputObjectType({
    name: "IDFilter",
    description: "Operators on the entity id. Several operators combine with and.",
    fields: { ...operators(["eq", "neq"], GraphQLID), in: { type: list(GraphQLID) } },
  }),
  timestamp: new GraphQLInputObjectType({
    name: "TimestampFilter",
    description: "Operators on created_at and updated_at; values are RFC 3339 timestamps. Several operators combine with and.",
    fields: { ...operators(RANGE, GraphQLString), in: { type: list(GraphQLString) } },
  }),
  string_list: new GraphQLInputObjectType({
    name: "StringListFilter",
    description: "Operators on an array of strings: cs (contains all of), ov (contains any of). Several operators combine with and.",
    fields: { cs: { type: list(GraphQLString) }, ov: { type: list(GraphQLString) }, ...IS_NULL },
  }),
};

export const SortDirection = new GraphQLEnumType({ name: "SortDirection", values: { asc: {}, desc: {} } });

export const CountStrategy = new GraphQLEnumType({
  name: "CountStrategy",
  description: "How count is computed: capped (exact up to 10,000, the default), exact, or estimate (the planner's estimate).",
  values: { capped: {}, exact: {}, estimate: {} },
});

export const EntityTypeRef = new GraphQLObjectType({
  name: "EntityTypeRef",
  fields: { id: { type: new GraphQLNonNull(GraphQLID) }, name: { type: new GraphQLNonNull(GraphQLString) } },
});

/** Type names the shared types and the root hold; an entity type wanting one gets a prefixed name. */
export const RESERVED_TYPE_NAMES = [
  "Query",
  "Mutation",
  "Subscription",
  "String",
  "Int",
  "Float",
  "Boolean",
  "ID",
  GraphQLJSON.name,
  ...Object.values(FILTER_INPUTS).map((t) => t.name),
  SortDirection.name,
  CountStrategy.name,
  EntityTypeRef.name,
];
