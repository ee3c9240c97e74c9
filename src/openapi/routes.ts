// GET /openapi.json: the document, declared as a route like any other so that
// it describes itself.
import { route, type RouteSpec } from "../gateway/route";
import { freeFormObject } from "../lib/schemas";
import { buildOpenApi } from "./document";
import { noAuth } from "../gateway/route-auth";

const documentSchema = {
  type: "object",
  required: ["openapi", "info", "servers", "paths", "components"],
  properties: {
    openapi: { const: "3.1.0" },
    servers: { type: "array", items: { type: "object", required: ["url"], properties: { url: { type: "string" }, description: { type: "string" } } } },
    info: { type: "object", required: ["title", "version"], properties: { title: { type: "string" }, version: { type: "string" } } },
    paths: freeFormObject,
    components: freeFormObject,
  },
} as const;

/** `all` is the whole route list, this route included; it is read when the document is first asked for. */
export function openApiRoutes(all: () => RouteSpec[]): RouteSpec[] {
  let document: ReturnType<typeof buildOpenApi> | undefined;
  return [
    route({
      operation: "getOpenApi",
      method: "get",
      path: "/openapi.json",
      tag: "openapi",
      summary: "This document: OpenAPI 3.1, built from the route declarations that validate requests",
      auth: noAuth,
      responses: { 200: { description: "The OpenAPI document", schema: documentSchema } },
      handler: (c) => c.json((document ??= buildOpenApi(all(), { serverUrl: c.env.PUBLIC_URL }))),
    }),
  ];
}
