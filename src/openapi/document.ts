// Builds the OpenAPI 3.1 document from the same route declarations that validate requests.
import type { RouteSpec } from "../lib/route";
import { errorEnvelope } from "../lib/schemas";

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

export function buildOpenApi(routes: RouteSpec[]) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const r of routes) {
    const path = r.path.replace(/:(\w+)/g, "{$1}");
    const responses: Record<string, unknown> = {};
    for (const [status, res] of Object.entries(r.responses)) {
      // Every error answer is the one envelope, so a route names only its reason.
      const schema = res.schema ?? (Number(status) >= 400 ? ERROR_SCHEMA : undefined);
      responses[status] = {
        description: res.description,
        ...(schema || res.contentType ? { content: { [res.contentType ?? "application/json"]: schema ? { schema } : {} } } : {}),
      };
    }
    for (const [status, description] of Object.entries(COMMON_ERRORS)) {
      if (r.auth && r.auth.scheme !== "credentials" && (status === "401" || status === "403")) continue;
      responses[status] ??= { description, content: { "application/json": { schema: ERROR_SCHEMA } } };
    }
    (paths[path] ??= {})[r.method] = {
      summary: r.summary,
      tags: [r.tag],
      operationId: r.operation,
      ...(r.permission ? { "x-permission": `${r.permission[0]}:${r.permission[1]}` } : {}),
      security: r.auth === undefined || r.auth.scheme === "credentials" ? [{ basicAuth: [] }, { bearerAuth: [] }] : [],
      parameters: [
        ...pathParams(r),
        ...queryParams(r.query),
        ...(r.idempotent ? [{ name: "Idempotency-Key", in: "header", required: false, schema: { type: "string", maxLength: 255 } }] : []),
        ...(r.documentedRequest?.headers ?? []).map((h) => ({ ...h, in: "header" })),
      ],
      ...(r.body || r.documentedBody || r.documentedRequest?.content
        ? {
            requestBody: {
              required: !r.bodyOptional,
              content: {
                ...(r.body || r.documentedBody ? { "application/json": { schema: r.documentedBody ?? r.body } } : {}),
                ...r.documentedRequest?.content,
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
    paths,
    components: {
      schemas: Object.assign({ Error: errorEnvelope }, ...routes.map((r) => r.components ?? {})),
      securitySchemes: {
        basicAuth: { type: "http", scheme: "basic", description: "PAT: base64(client_id:client_secret)" },
        bearerAuth: { type: "http", scheme: "bearer", bearerFormat: "JWT", description: "Access token from POST /auth/token" },
      },
    },
  };
}
