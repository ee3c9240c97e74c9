// One tenant's GraphQL schema, built from its active entity types and the
// rules between them. Per type T (names in docs/api.md, "GraphQL"):
//   Query.T(where, filter, sort, limit, cursor, count_strategy): TConnection
//   Query.T_aggregate(where, filter, group_by, aggregates, sort, limit, cursor): AggregateGroups
//   type T { id name type identifier_key created_at updated_at attributes,
//            one field per top-level schema property, one per rule side }
//   input TWhere, TRelated, TOrder; enum TOrderField
import {
  GraphQLBoolean,
  GraphQLEnumType,
  GraphQLFloat,
  GraphQLID,
  GraphQLInputObjectType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  GraphQLSchema,
  GraphQLString,
  type GraphQLFieldConfigMap,
  type GraphQLInputType,
  type GraphQLOutputType,
  type GraphQLScalarType,
} from "graphql";
import { paginationQuery } from "../../lib/schemas";
import type { PresentedEntity } from "../entities/rows";
import { LIST_MAX_RELATIONSHIPS } from "../entities/service";
import type { EntityType } from "../entity-types/store";
import { CountStrategy, EntityTypeRef, FILTER_INPUTS, GraphQLJSON, RESERVED_TYPE_NAMES, SortDirection, type FilterKind } from "./inputs";
import { aggregateField, AGGREGATE_TYPE_NAMES } from "./aggregate";
import { graphqlName, Namespace } from "./names";
import { connectionResolver, relationshipResolver, type GraphqlContext, type Link } from "./resolvers";
import type { WhereField, WhereShape } from "./where";
import { isObject } from "../../lib/is-object";

declare module "graphql" {
  interface GraphQLFieldExtensions<_TSource, _TContext, _TArgs> {
    /** The field loads entities (one query per use); the limits in limits.ts count it. */
    loadsEntities?: boolean;
  }
}

export interface CatalogRule {
  id: string;
  name: string;
  from_type: string;
  to_type: string;
}

/** What a schema is built from: the active types and the rules whose both ends are active. */
export interface Catalog {
  types: EntityType[];
  rules: CatalogRule[];
}

/** Entity fields every type has; where's own keys share the namespace so one name means one thing in both. */
const ENTITY_FIELDS = ["id", "name", "type", "identifier_key", "created_at", "updated_at", "attributes"];
const WHERE_KEYS = ["and", "or", "not", "related"];
/** Not allowed as enum values, and attribute fields are also TOrderField values. */
const ENUM_RESERVED = ["true", "false", "null"];

const nn = <T extends GraphQLOutputType | GraphQLInputType>(t: T) => new GraphQLNonNull(t);
const listOf = <T extends GraphQLOutputType | GraphQLInputType>(t: T) => new GraphQLList(nn(t));

interface AttributeField {
  field: string;
  key: string;
  output: GraphQLOutputType;
  kind?: FilterKind;
  sortable: boolean;
  description: string;
}

interface LinkField extends Link {
  field: string;
}

interface Plan {
  type: EntityType;
  names: { object: string; connection: string; where: string; related: string; order: string; orderField: string };
  attributes: AttributeField[];
  links: LinkField[];
  /** Types linked under any rule in either direction: what `related` can test. */
  related: Set<string>;
}

const INT32 = 2 ** 31;

/** The one JSON type a property schema declares (null aside), or undefined when it declares several or none. */
function jsonType(prop: Record<string, unknown>): string | undefined {
  const declared = (Array.isArray(prop.type) ? prop.type : [prop.type]).filter((t) => typeof t === "string" && t !== "null");
  if (declared.length === 1) return declared[0] as string;
  if (prop.type === undefined && Array.isArray(prop.enum) && prop.enum.length && prop.enum.every((v) => typeof v === "string")) return "string";
  return undefined;
}

/** Int only when the schema bounds the value to 32 bits (GraphQL's Int); other integers are Float, which holds them exactly up to 2^53. */
function fitsInt(prop: Record<string, unknown>): boolean {
  const lo = prop.minimum ?? prop.exclusiveMinimum;
  const hi = prop.maximum ?? prop.exclusiveMaximum;
  return typeof lo === "number" && typeof hi === "number" && lo >= -INT32 && hi < INT32;
}

function scalarOf(prop: Record<string, unknown>): { scalar: GraphQLScalarType; kind: FilterKind } | undefined {
  switch (jsonType(prop)) {
    case "string":
      return { scalar: GraphQLString, kind: "string" };
    case "integer":
      return { scalar: fitsInt(prop) ? GraphQLInt : GraphQLFloat, kind: "number" };
    case "number":
      return { scalar: GraphQLFloat, kind: "number" };
    case "boolean":
      return { scalar: GraphQLBoolean, kind: "boolean" };
    default:
      return undefined;
  }
}

function attributeField(field: string, key: string, prop: unknown): AttributeField {
  const p = isObject(prop) ? prop : {};
  const description = typeof p.description === "string" ? p.description : `attributes.${key}`;
  const scalar = scalarOf(p);
  if (scalar) return { field, key, output: scalar.scalar, kind: scalar.kind, sortable: true, description };
  if (jsonType(p) === "array" && isObject(p.items)) {
    const item = scalarOf(p.items);
    // Items stay nullable: the schema may allow null items, and a list cannot hold a missing one.
    if (item)
      return { field, key, output: new GraphQLList(item.scalar), kind: item.kind === "string" ? "string_list" : undefined, sortable: false, description };
  }
  return { field, key, output: GraphQLJSON, sortable: false, description };
}

function plan(catalog: Catalog): Map<string, Plan> {
  const typeNames = new Namespace([...RESERVED_TYPE_NAMES, ...AGGREGATE_TYPE_NAMES]);
  const types = [...catalog.types].sort((a, b) => (a.name < b.name ? -1 : 1));
  // Entity types claim their names before any derived name, so a type called ProductConnection keeps its name.
  const objects = types.map((t) => typeNames.claim(t.name, "Entity_"));
  const plans = new Map<string, Plan>();
  const fieldNames = new Map<string, Namespace>();
  types.forEach((type, i) => {
    const object = objects[i];
    const names = {
      object,
      connection: typeNames.claim(`${object}Connection`),
      where: typeNames.claim(`${object}Where`),
      related: typeNames.claim(`${object}Related`),
      order: typeNames.claim(`${object}Order`),
      orderField: typeNames.claim(`${object}OrderField`),
    };
    const fields = new Namespace([...ENTITY_FIELDS, ...WHERE_KEYS, ...ENUM_RESERVED]);
    const properties = isObject(type.schema) && isObject(type.schema.properties) ? type.schema.properties : {};
    // By key: Postgres keeps jsonb keys in its own order (shortest first), which is no order to read a type in.
    const keys = Object.keys(properties).sort();
    const attributes = keys.map((key) => attributeField(fields.claim(graphqlName(key), "attr_"), key, properties[key]));
    fieldNames.set(type.name, fields);
    plans.set(type.name, { type, names, attributes, links: [], related: new Set() });
  });
  for (const rule of [...catalog.rules].sort((a, b) => (a.name < b.name ? -1 : 1))) {
    const from = plans.get(rule.from_type);
    const to = plans.get(rule.to_type);
    // Types and rules are two reads; a rule may name a type the first did not see active.
    if (!from || !to) continue;
    const name = graphqlName(rule.name);
    from.links.push({
      field: fieldNames.get(from.type.name)!.claim(name, "rel_"),
      source: from.type.name,
      rule: rule.name,
      target: to.type.name,
      direction: "to",
    });
    to.links.push({
      field: fieldNames.get(to.type.name)!.claim(`${name}_inverse`, "rel_"),
      source: to.type.name,
      rule: rule.name,
      target: from.type.name,
      direction: "from",
    });
    from.related.add(to.type.name);
    to.related.add(from.type.name);
  }
  return plans;
}

function whereShape(p: Plan): WhereShape {
  const fields = new Map<string, WhereField>([
    ["id", { path: ["id"], kind: "id" }],
    ["name", { path: ["name"], kind: "string" }],
    ["created_at", { path: ["created_at"], kind: "timestamp" }],
    ["updated_at", { path: ["updated_at"], kind: "timestamp" }],
  ]);
  for (const a of p.attributes) if (a.kind) fields.set(a.field, { path: ["attributes", a.key], kind: a.kind });
  return { fields };
}

export function buildSchema(catalog: Catalog): GraphQLSchema {
  const plans = plan(catalog);
  const shapes = new Map([...plans].map(([name, p]) => [name, whereShape(p)]));
  const objects = new Map<string, GraphQLObjectType>();
  const wheres = new Map<string, GraphQLInputObjectType>();
  const orders = new Map<string, GraphQLInputObjectType>();
  const connections = new Map<string, GraphQLObjectType>();

  const listArgs = (typeName: string, limitDefault: number) => ({
    where: { type: wheres.get(typeName)!, description: "Typed conditions, compiled to a filter (and of every condition given)" },
    filter: { type: GraphQLJSON, description: "A filter tree exactly as POST /entity/query takes it; with where, both must hold" },
    sort: { type: listOf(orders.get(typeName)!), description: "Sort keys in order; the id ends every order" },
    limit: { type: nn(GraphQLInt), defaultValue: limitDefault, description: "At most this many entities (1 to 1000)" },
  });

  for (const [typeName, p] of plans) {
    const shape = shapes.get(typeName)!;
    objects.set(
      typeName,
      new GraphQLObjectType<PresentedEntity, GraphqlContext>({
        name: p.names.object,
        description: `An entity of type ${typeName}.`,
        fields: () => {
          const fields: GraphQLFieldConfigMap<PresentedEntity, GraphqlContext> = {
            id: { type: nn(GraphQLID) },
            name: { type: nn(GraphQLString) },
            type: { type: nn(EntityTypeRef) },
            identifier_key: { type: nn(GraphQLString) },
            created_at: { type: nn(GraphQLString), description: "RFC 3339, UTC" },
            updated_at: { type: nn(GraphQLString), description: "RFC 3339, UTC" },
            attributes: { type: nn(GraphQLJSON), description: "Every attribute, as stored" },
          };
          for (const a of p.attributes) fields[a.field] = { type: a.output, description: a.description, resolve: (e) => e.attributes[a.key] ?? null };
          for (const l of p.links) {
            fields[l.field] = {
              type: listOf(objects.get(l.target)!),
              description: `${l.target} entities linked under rule ${l.rule} (${typeName} is its ${l.direction === "to" ? "from" : "to"} side); null only when loading failed`,
              args: listArgs(l.target, LIST_MAX_RELATIONSHIPS),
              extensions: { loadsEntities: true },
              resolve: relationshipResolver(l, shapes),
            };
          }
          return fields;
        },
      }),
    );

    const related = p.related.size
      ? new GraphQLInputObjectType({
          name: p.names.related,
          description: `Entities linked to ${typeName} entities under any rule, in either direction: a field holds when at least one linked entity of its type matches ({} matches any).`,
          fields: () => Object.fromEntries([...p.related].sort().map((r) => [r, { type: wheres.get(r)! }])),
        })
      : undefined;
    const where: GraphQLInputObjectType = new GraphQLInputObjectType({
      name: p.names.where,
      description: `Conditions on ${typeName} entities; every condition given must hold.`,
      fields: () => ({
        and: { type: listOf(where) },
        or: { type: listOf(where) },
        not: { type: where },
        ...(related ? { related: { type: related } } : {}),
        ...Object.fromEntries([...shape.fields].map(([field, f]) => [field, { type: FILTER_INPUTS[f.kind] }])),
      }),
    });
    wheres.set(typeName, where);

    const orderField = new GraphQLEnumType({
      name: p.names.orderField,
      values: Object.fromEntries([
        ...["id", "name", "created_at", "updated_at"].map((c) => [c, { value: [c] }]),
        ...p.attributes.filter((a) => a.sortable).map((a) => [a.field, { value: ["attributes", a.key], description: a.description }]),
      ]),
    });
    orders.set(
      typeName,
      new GraphQLInputObjectType({
        name: p.names.order,
        description: "One sort key: field, or path (an entity path as POST /entity/query sorts by it).",
        fields: { field: { type: orderField }, path: { type: listOf(GraphQLString) }, direction: { type: nn(SortDirection), defaultValue: "asc" } },
      }),
    );

    connections.set(
      typeName,
      new GraphQLObjectType({
        name: p.names.connection,
        fields: () => ({
          nodes: { type: nn(listOf(objects.get(typeName)!)) },
          next_cursor: {
            type: GraphQLString,
            description: "Present only when a full page came back; pass it as cursor with the same arguments for the next page",
          },
          count: { type: GraphQLInt, description: "The number of matching entities, by count_strategy" },
          count_strategy: { type: CountStrategy },
        }),
      }),
    );
  }

  const typeNames = [...plans.keys()];
  // `<Type>_aggregate` per type, unless another type holds that name: then it is prefixed.
  const rootFields = new Namespace(["_entity_types", ...typeNames]);
  const aggregateFields = typeNames.map(
    (typeName) => [rootFields.claim(`${typeName}_aggregate`, "agg_"), aggregateField(typeName, wheres.get(typeName)!, shapes)] as const,
  );
  const query = new GraphQLObjectType<unknown, GraphqlContext>({
    name: "Query",
    fields: () => ({
      _entity_types: { type: nn(listOf(GraphQLString)), description: "The entity types this schema serves", resolve: () => typeNames },
      ...Object.fromEntries(
        typeNames.map((typeName) => [
          typeName,
          {
            type: connections.get(typeName)!,
            description: `${typeName} entities: the page POST /entity/query answers for type_name ${typeName} and the same filter, sort, limit and cursor`,
            args: {
              ...listArgs(typeName, paginationQuery.limit.default),
              cursor: { type: GraphQLString, description: "next_cursor of the previous page" },
              count_strategy: { type: CountStrategy },
            },
            extensions: { loadsEntities: true },
            resolve: connectionResolver(typeName, shapes),
          },
        ]),
      ),
      ...Object.fromEntries(aggregateFields),
    }),
  });
  return new GraphQLSchema({ query });
}
