// Declares an operation once: its path, permission, schemas and handler. The
// same declaration mounts the Hono route, validates the request and feeds the
// OpenAPI document, so the documented contract is the enforced one.
import type { Context, Hono, MiddlewareHandler } from "hono";
import type { FromSchema, JSONSchema } from "json-schema-to-ts";
import type { HonoEnv } from "../env";
import { authenticate, requirePermission } from "../gateway/authenticate";
import { identityRateLimit } from "../gateway/rate-limit";
import { idempotency } from "../gateway/idempotency";
import { jsonBody, queryParams } from "./body";
import { guardJson } from "./input-guard";
import type { JsonSchema } from "./validate";

export type Method = "get" | "post" | "put" | "patch" | "delete";

export interface ResponseSpec {
  description: string;
  schema?: JSONSchema;
  contentType?: string;
}

interface RouteMeta {
  method: Method;
  /** Full path in Hono form (`/entity/entities/:id`). */
  path: string;
  summary: string;
  tag: string;
  /** `false` for the unauthenticated routes of SPEC.md 5.4. */
  auth?: false;
  permission?: [resource: string, action: string];
  /**
   * The body as documented, when the handler reads and validates it itself
   * (upsert scans its rows from the bytes and checks each against the type's schema).
   */
  documentedBody?: JSONSchema;
  /** Also accepts the body form-encoded (OAuth2 clients send token requests so). */
  acceptsForm?: boolean;
  /** Honours the Idempotency-Key header. */
  idempotent?: boolean;
  responses: Record<number, ResponseSpec>;
}

type Input<S> = S extends JSONSchema ? FromSchema<S> : undefined;

/** A route as authored: the handler's body and query types follow from the schemas. */
export interface TypedRoute<B, Q> extends RouteMeta {
  body?: B;
  query?: Q;
  handler: (c: Context<HonoEnv>, input: { body: Input<B>; query: Input<Q> }) => Promise<Response> | Response;
}

/** A route as stored and mounted: the schemas' literal types erased. */
export interface RouteSpec extends RouteMeta {
  body?: JSONSchema;
  query?: JSONSchema;
  handler: (c: Context<HonoEnv>, input: { body: unknown; query: unknown }) => Promise<Response> | Response;
}

export function route<const B extends JSONSchema | undefined = undefined, const Q extends JSONSchema | undefined = undefined>(spec: TypedRoute<B, Q>): RouteSpec {
  return spec as unknown as RouteSpec;
}

export function mount(app: Hono<HonoEnv>, routes: RouteSpec[]): void {
  for (const spec of routes) {
    const chain: MiddlewareHandler<HonoEnv>[] = [];
    if (spec.auth !== false) chain.push(authenticate, identityRateLimit);
    if (spec.permission) chain.push(requirePermission(...spec.permission));
    if (spec.idempotent) chain.push(idempotency);
    app.on([spec.method.toUpperCase()], [spec.path], ...chain, async (c) => {
      // Hono percent-decodes parameters, so `%00` arrives as NUL.
      guardJson(c.req.param(), { message: "Path parameters failed validation" });
      const body = spec.body ? await jsonBody(c, spec.body as JsonSchema, spec.acceptsForm) : undefined;
      const query = spec.query ? queryParams(c, spec.query as JsonSchema) : undefined;
      return spec.handler(c, { body, query });
    });
  }
}
