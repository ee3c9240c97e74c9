// Builds the OpenAPI 3.1 document from the same route declarations that validate requests.
import { ERROR_STATUS } from "../lib/errors";
import type { RouteSpec } from "../gateway/route";
import { errorEnvelope } from "../lib/schemas";
import { exampleOf } from "./examples";

export const API_VERSION = "1.0.0";

const COMMON_ERRORS: Record<number, string> = {
  400: "Bad request (malformed JSON, bad header)",
  401: "Missing, malformed, expired or revoked credentials",
  403: "The token lacks the permission",
  413: "Body over its limit",
  422: "Body or query failed validation",
  429: "Rate limit exceeded",
};

const ERROR_SCHEMA = { $ref: "#/components/schemas/Error" };

/** What every route with a path parameter may answer: its path names something this tenant may not have. */
const UNKNOWN_ID = "Nothing with that id (or name) here";

/** What every route honouring Idempotency-Key may answer (details.code IDEMPOTENCY_IN_PROGRESS). */
const IN_PROGRESS = "A request with this Idempotency-Key is still in progress";

/** The error envelope as a status answers it, its code the first that maps to the status. */
function errorExample(status: number, message: string) {
  const code = (Object.keys(ERROR_STATUS) as (keyof typeof ERROR_STATUS)[]).find((c) => ERROR_STATUS[c] === status) ?? "BAD_REQUEST";
  return { error: { status, code, message, details: { request_id: "req_8f14e45fceea167a" } } };
}

function pathParams(r: RouteSpec) {
  return [...r.path.matchAll(/:(\w+)/g)].map(([, name]) => ({ name, in: "path", required: true, schema: r.params?.[name] ?? { type: "string" } }));
}

function queryParams(schema: RouteSpec["query"]) {
  const s = schema as { properties?: Record<string, object>; required?: string[] } | undefined;
  return Object.entries(s?.properties ?? {}).map(([name, prop]) => ({
    name,
    in: "query",
    required: s?.required?.includes(name) ?? false,
    schema: prop,
    ...((prop as { type?: string }).type === "array" ? { style: "form", explode: false } : {}),
  }));
}

/** Where the document says the API is served: PUBLIC_URL. */
export interface DocumentOptions {
  serverUrl: string;
}

export function buildOpenApi(routes: RouteSpec[], options: DocumentOptions) {
  const components: Record<string, unknown> = Object.assign({ Error: errorEnvelope }, ...routes.map((r) => r.components ?? {}));
  const example = (schema: unknown, given: unknown) => (given !== undefined ? given : exampleOf(schema, components));
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const path = r.path.replace(/:(\w+)/g, "{$1}");
    const declared: RouteSpec["responses"] = { ...r.responses };
    if (/:\w+/.test(r.path) && r.notFound !== false) declared[404] ??= { description: UNKNOWN_ID };
    if (r.idempotent) declared[409] ??= { description: IN_PROGRESS };
    const success = Math.min(
      ...Object.keys(declared)
        .map(Number)
        .filter((status) => status < 300),
    );
    const responses: Record<string, unknown> = {};
    // A route answering its failures in a body of its own documents that body for every error status.
    const errorSchema = r.errorAnswer?.schema ?? ERROR_SCHEMA;
    const errorSample = (status: number, description: string) => (r.errorAnswer ? r.errorAnswer.example(description) : errorExample(status, description));
    for (const [status, res] of Object.entries(declared)) {
      const code = Number(status);
      // Every error answer is the one envelope (or the route's own), so a route names only its reason.
      const schema = code >= 400 ? errorSchema : res.schema;
      const sample = code >= 400 ? errorSample(code, res.description) : example(schema, code === success ? r.examples?.response : undefined);
      responses[status] = {
        description: res.description,
        ...(schema || res.contentType ? { content: { [res.contentType ?? "application/json"]: schema ? { schema, example: sample } : {} } } : {}),
      };
    }
    for (const [status, description] of Object.entries(COMMON_ERRORS)) {
      if (r.auth && r.auth.scheme !== "credentials" && r.auth.scheme !== "appHost" && (status === "401" || status === "403")) continue;
      responses[status] ??= { description, content: { "application/json": { schema: errorSchema, example: errorSample(Number(status), description) } } };
    }
    const jsonBody = r.documentedBody ?? r.body;
    (paths[path] ??= {})[r.method] = {
      summary: r.summary,
      tags: [r.tag],
      operationId: r.operation,
      ...(r.permission ? { "x-permission": `${r.permission[0]}:${r.permission[1]}` } : {}),
      security:
        r.auth === undefined || r.auth.scheme === "credentials"
          ? [{ basicAuth: [] }, { bearerAuth: [] }]
          : r.auth.scheme === "appHost"
            ? [{ appHostAuth: [] }]
            : [],
      parameters: [
        ...pathParams(r),
        ...queryParams(r.query),
        ...(r.idempotent ? [{ name: "Idempotency-Key", in: "header", required: false, schema: { type: "string", maxLength: 255 } }] : []),
        ...(r.documentedRequest?.headers ?? []).map((h) => ({ ...h, in: "header" })),
      ].map((p) => ({ ...p, example: example(p.schema, r.examples?.parameters?.[p.name]) })),
      ...(jsonBody || r.documentedRequest?.content
        ? {
            requestBody: {
              required: !r.bodyOptional,
              content: {
                ...(jsonBody ? { "application/json": { schema: jsonBody, example: example(jsonBody, r.examples?.request) } } : {}),
                ...Object.fromEntries(
                  Object.entries(r.documentedRequest?.content ?? {}).map(([type, media]) => [type, { ...media, example: example(media.schema, undefined) }]),
                ),
              },
            },
          }
        : {}),
      responses,
    };
  }
  return {
    openapi: "3.1.0",
    info: { title: "Entity, Workflow and App Platform Service", version: API_VERSION },
    servers: [{ url: options.serverUrl.replace(/\/+$/, ""), description: "This deployment (PUBLIC_URL)" }],
    paths,
    components: {
      schemas: components,
      securitySchemes: {
        basicAuth: { type: "http", scheme: "basic", description: "PAT: base64(client_id:client_secret)" },
        bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "Access token from POST /auth/token" },
        appHostAuth: {
          type: "http",
          scheme: "bearer",
          description:
            "App renders: the integration's app token (bearer providers) or the provider's identity token (oidc, exchange); a provider's auth.header may carry it instead",
        },
      },
    },
  };
}
