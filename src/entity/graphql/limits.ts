// Limits that keep one GraphQL request from asking the database for more
// than a REST client could in a few calls (docs/api.md, "GraphQL"). Checked
// on the document before anything runs, with the operation's variables, so
// a refused query costs no statement.
import {
  getArgumentValues,
  getNamedType,
  GraphQLError,
  isObjectType,
  Kind,
  type FragmentDefinitionNode,
  type GraphQLObjectType,
  type GraphQLSchema,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from "graphql";

/** Levels of fields, the root type's field being the first. */
export const MAX_DEPTH = 6;
/** Entities the limits of the document's fields allow it to return, through every level. */
export const MAX_NODES = 25_000;
/** Fields that load entities (root type fields and relationship fields), each use counted. */
export const MAX_LOADS = 20;

interface Tally {
  depth: number;
  nodes: number;
  loads: number;
}

const tooComplex = (message: string, extensions: Record<string, number>) =>
  new GraphQLError(message, { extensions: { code: "QUERY_TOO_COMPLEX", ...extensions } });

export function checkLimits(
  schema: GraphQLSchema,
  operation: OperationDefinitionNode,
  fragments: Record<string, FragmentDefinitionNode>,
  variables: Record<string, unknown>,
): GraphQLError | undefined {
  const tally: Tally = { depth: 0, nodes: 0, loads: 0 };

  // Stops as soon as a limit is passed, so the walk is as bounded as what it allows.
  const over = () => tally.depth > MAX_DEPTH || tally.nodes > MAX_NODES || tally.loads > MAX_LOADS;

  const walk = (set: SelectionSetNode, parent: GraphQLObjectType, depth: number, multiplier: number, visited: Set<string>): void => {
    for (const selection of set.selections) {
      if (over()) return;
      if (selection.kind === Kind.FIELD) {
        // Introspection reads no data; graphql-js's MaxIntrospectionDepthRule bounds its nesting.
        if (selection.name.value.startsWith("__")) continue;
        const field = parent.getFields()[selection.name.value];
        tally.depth = Math.max(tally.depth, depth);
        let inner = multiplier;
        if (field.extensions.loadsEntities) {
          tally.loads++;
          // A limit below 1 is refused when the field runs; counting it as 1 keeps it from offsetting the others.
          inner = multiplier * Math.max(1, getArgumentValues(field, selection, variables).limit as number);
          tally.nodes += inner;
        }
        const type = getNamedType(field.type);
        if (selection.selectionSet && isObjectType(type)) walk(selection.selectionSet, type, depth + 1, inner, new Set());
      } else if (selection.kind === Kind.INLINE_FRAGMENT) {
        walk(selection.selectionSet, parent, depth, multiplier, visited);
      } else if (!visited.has(selection.name.value)) {
        // As execution does, a fragment spread twice into one selection is collected once.
        visited.add(selection.name.value);
        walk(fragments[selection.name.value].selectionSet, parent, depth, multiplier, visited);
      }
    }
  };
  walk(operation.selectionSet, schema.getQueryType()!, 1, 1, new Set());

  if (tally.depth > MAX_DEPTH) return tooComplex(`The query nests fields more than ${MAX_DEPTH} levels deep`, { max_depth: MAX_DEPTH });
  if (tally.loads > MAX_LOADS)
    return tooComplex(`The query has more than ${MAX_LOADS} fields that load entities (type fields and relationship fields)`, { max_loads: MAX_LOADS });
  if (tally.nodes > MAX_NODES)
    return tooComplex(`The query's limits allow more than ${MAX_NODES} entities; lower the limit arguments`, { max_nodes: MAX_NODES });
  return undefined;
}
