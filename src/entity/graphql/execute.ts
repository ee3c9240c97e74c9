// POST /entity/graphql: parse, validate, check the limits, execute. Errors
// that GraphQL defines (syntax, validation, a field that failed) answer
// HTTP 200 in the standard `errors` list, each with `extensions.code`; an
// ApiError raised while resolving (a 422 from the filter compiler, a bad
// cursor) keeps its code, status and details there.
import {
  execute,
  getOperationAST,
  getVariableValues,
  GraphQLError,
  Kind,
  parse,
  specifiedRules,
  validate,
  type DocumentNode,
  type FragmentDefinitionNode,
  type GraphQLFormattedError,
} from "graphql";
import type { TenantDb } from "../../db/client";
import { ApiError } from "../../lib/errors";
import type { Logger } from "../../lib/logger";
import { Batches } from "./batch";
import { tenantSchema } from "./catalog";
import { checkLimits } from "./limits";
import type { GraphqlContext } from "./resolvers";

/** Parsing stops here; the body limit alone would let a megabyte of tokens through. */
export const MAX_TOKENS = 10_000;

export interface GraphqlRequest {
  query: string;
  variables?: Record<string, unknown> | null;
  operationName?: string | null;
}

export interface GraphqlResponse {
  data?: Record<string, unknown> | null;
  errors?: GraphQLFormattedError[];
}

/** Who asks: the tenant's database handle, the secret cursors are signed with, and the request's logger. */
interface Caller {
  tenant: TenantDb;
  cursorSecret: string;
  log: Logger;
}

const failed = (errors: readonly GraphQLError[], code: string): GraphqlResponse => ({ errors: errors.map((e) => present(e, code)) });

export async function executeGraphql(caller: Caller, request: GraphqlRequest): Promise<GraphqlResponse> {
  const { schema } = await tenantSchema(caller.tenant);
  let document: DocumentNode;
  try {
    document = parse(request.query, { maxTokens: MAX_TOKENS });
  } catch (e) {
    if (e instanceof GraphQLError) return failed([e], "GRAPHQL_PARSE_FAILED");
    throw e;
  }
  const invalid = validate(schema, document, specifiedRules);
  if (invalid.length) return failed(invalid, "GRAPHQL_VALIDATION_FAILED");

  const operation = getOperationAST(document, request.operationName);
  // No operation to run (none named so, or several unnamed): execute reports it in its own words.
  if (operation) {
    if (operation.operation !== "query") {
      const refused = new GraphQLError(`${operation.operation} operations are not supported; this endpoint only reads`, { nodes: operation });
      return failed([refused], "OPERATION_NOT_SUPPORTED");
    }
    const coerced = getVariableValues(schema, operation.variableDefinitions ?? [], request.variables ?? {});
    if (coerced.errors) return failed(coerced.errors, "GRAPHQL_VALIDATION_FAILED");
    const fragments = Object.fromEntries(
      document.definitions.filter((d): d is FragmentDefinitionNode => d.kind === Kind.FRAGMENT_DEFINITION).map((d) => [d.name.value, d]),
    );
    const limited = checkLimits(schema, operation, fragments, coerced.coerced);
    if (limited) return failed([limited], "QUERY_TOO_COMPLEX");
  }

  const contextValue: GraphqlContext = { tenant: caller.tenant, cursorSecret: caller.cursorSecret, batches: new Batches() };
  const result = await execute({ schema, document, contextValue, variableValues: request.variables, operationName: request.operationName });
  // An error before execution (no such operation) leaves data out, as the GraphQL spec has it.
  return { ...("data" in result ? { data: result.data } : {}), ...(result.errors?.length ? { errors: formatErrors(result.errors, caller.log) } : {}) };
}

/** A batch that fails rejects each of its fields with the same error; report it once. */
function formatErrors(errors: readonly GraphQLError[], log: Logger): GraphQLFormattedError[] {
  const seen = new Set<unknown>();
  return errors.flatMap((e) => {
    const cause = e.originalError ?? e;
    if (seen.has(cause)) return [];
    seen.add(cause);
    if (e.originalError && !(e.originalError instanceof ApiError) && !(e.originalError instanceof GraphQLError)) {
      log.error("graphql resolver failed", { error: e.originalError.message, stack: e.originalError.stack });
      return [{ message: "Internal server error", locations: e.locations, path: e.path, extensions: { code: "INTERNAL_ERROR", status: 500 } }];
    }
    return [present(e, "GRAPHQL_EXECUTION_FAILED")];
  });
}

function present(e: GraphQLError, code: string): GraphQLFormattedError {
  const where = { ...(e.locations ? { locations: e.locations } : {}), ...(e.path ? { path: e.path } : {}) };
  const cause = e.originalError;
  if (cause instanceof ApiError) return { message: cause.message, ...where, extensions: { code: cause.code, status: cause.status, details: cause.details } };
  return { message: e.message, ...where, extensions: { code, ...e.extensions } };
}
