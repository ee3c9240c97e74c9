// Declares an operation once: its path, permission, schemas and handler. The
// same declaration mounts the Hono route (src/mount.ts), validates the request
// and feeds the OpenAPI document, so the documented contract is the enforced
// one.
import type { Context } from "hono";
import type { FromSchema, JSONSchema } from "json-schema-to-ts";
import type { HonoEnv } from "./env";
import type { ApiError } from "../lib/errors";
import type { AuthStrategy } from "./route-auth";

export type Method = "get" | "post" | "put" | "patch" | "delete";

export interface ResponseSpec {
  description: string;
  schema?: JSONSchema;
  contentType?: string;
}

interface RouteMeta {
  /** The operation's one name: its OpenAPI operationId, unique across the API (test/lib/route.test.ts). */
  operation: string;
  method: Method;
  /** Full path in Hono form (`/entity/entities/:id`). */
  path: string;
  summary: string;
  tag: string;
  permission?: [resource: string, action: string];
  /**
   * The body as documented, when the handler reads and validates it itself
   * (upsert scans its rows from the bytes and checks each against the type's schema).
   */
  documentedBody?: JSONSchema;
  /**
   * The body may be left out (every field of its schema optional): an absent
   * or empty body is read as `{}` and validated like any other.
   */
  bodyOptional?: true;
  /** Bytes the body may have, when more than the default (BODY_LIMIT_BYTES); the gateway refuses more before authenticating. */
  bodyLimit?: number;
  /**
   * Every statement the route sends goes over HTTP, though its method is not
   * GET (a query in a body, a write sent as one batch: db/client.ts), or
   * every statement but a rare write (an app render's command, which opens
   * the WebSocket when it comes): the gateway opens no WebSocket while the
   * caller is checked (gateway/request-context.ts).
   */
  overHttp?: true;
  /**
   * Answers the route's failures in a body of its own instead of the error
   * envelope, for callers that read another shape (an app host's upload
   * widget reads its provider's error body). `answer` gets every failure of
   * a request that reaches this route's path, the gateway's body limit and
   * rate limit included; should it fail itself, the envelope answers.
   * `schema` and `example` document that body for every error status.
   */
  errorAnswer?: {
    schema: JSONSchema;
    example: (message: string) => unknown;
    answer: (c: Context<HonoEnv>, error: ApiError) => Promise<Response>;
  };
  /**
   * The route acts in the caller's name on a POST a browser could be led to
   * send from another site with cached Basic credentials (an author's
   * preview runs the spec's actions): only an application/json body (else
   * 415) and only the service's own Origin (else 403), checked before the
   * credentials (gateway/same-origin.ts).
   */
  jsonFromOwnOrigin?: true;
  /** Honours the Idempotency-Key header. */
  idempotent?: boolean;
  /**
   * Documentation only: the route never answers 404, though its path names
   * ids (it answers an unknown one otherwise, as `responses` says); without
   * it a route with path parameters is documented as answering 404.
   */
  notFound?: false;
  /**
   * Documentation only: schemas the route's documented schemas refer to as
   * `#/components/schemas/<name>` (a recursive document cannot be written inline).
   */
  components?: Record<string, JSONSchema>;
  /** Documentation only: what the handler reads itself, its bodies by media type (bytes, CSV, multipart) and its headers. */
  documentedRequest?: {
    content?: Record<string, { schema: JSONSchema }>;
    headers?: { name: string; required: boolean; description: string; schema: JSONSchema }[];
  };
  responses: Record<number, ResponseSpec>;
  /**
   * Documentation only: the operation's example request and success answer,
   * where the ones the document builds from the schemas (src/openapi/examples.ts)
   * would say too little or miss a rule the schema states.
   */
  examples?: { request?: unknown; response?: unknown; parameters?: Record<string, unknown> };
}

type Input<S> = S extends JSONSchema ? FromSchema<S> : undefined;
type ParamSchemas = Record<string, JSONSchema>;
/** No `params` declared leaves P its wide default: nothing typed to read. */
type Params<P> = string extends keyof P ? Record<string, never> : { [K in keyof P]: P[K] extends JSONSchema ? FromSchema<P[K]> : never };

/** A route as authored: the handler's params, body and query types follow from the schemas, `auth` from its strategy. */
export interface TypedRoute<P, B, Q, A> extends RouteMeta {
  /** Who may call: credentials unless declared otherwise (docs/api.md, Authentication). */
  auth?: AuthStrategy<A>;
  /** One schema per `:name` of the path (a uuid is `uuidSchema`); checked before the body is read. */
  params?: P;
  body?: B;
  query?: Q;
  handler: (c: Context<HonoEnv>, input: { params: Params<P>; body: Input<B>; query: Input<Q>; auth: A }) => Promise<Response> | Response;
}

/** A route as stored and mounted: the schemas' literal types erased. */
export interface RouteSpec extends RouteMeta {
  auth?: AuthStrategy;
  params?: ParamSchemas;
  body?: JSONSchema;
  query?: JSONSchema;
  handler: (c: Context<HonoEnv>, input: { params: Record<string, string>; body: unknown; query: unknown; auth: unknown }) => Promise<Response> | Response;
}

export function route<
  const P extends ParamSchemas = {},
  const B extends JSONSchema | undefined = undefined,
  const Q extends JSONSchema | undefined = undefined,
  A = undefined,
>(spec: TypedRoute<P, B, Q, A>): RouteSpec {
  return spec as unknown as RouteSpec;
}

/**
 * Which declared route a method and path reach: the first that matches, in
 * declaration order, as Hono picks. The gateway reads a route's body limit
 * and allowed methods here before the route itself runs.
 */
export function routeTable(routes: RouteSpec[]) {
  const entries = routes.map((spec) => ({ spec, method: spec.method.toUpperCase(), re: new RegExp(`^${spec.path.replace(/:\w+/g, "[^/]+")}$`) }));
  return {
    find: (method: string, path: string): RouteSpec | undefined => entries.find((e) => e.method === method && e.re.test(path))?.spec,
    methods: (path: string): string[] => [...new Set(entries.filter((e) => e.re.test(path)).map((e) => e.method))],
  };
}
