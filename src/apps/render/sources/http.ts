// `$http`: one request through the outbound client (its address guard on
// the URL and every redirect, the spec's auth profiles, OAuth2 through the
// tenant's token cache), with the render context's secrets in place (a
// reference without a value fails the source, HTTP_AUTH_SECRET_MISSING), sent
// as every call a request waits for is (lib/outbound/within-deadline.ts:
// retried only as often as `maxRetries` says, never past the render's deadline). The rows are the array at `rowsPath`
// (the body itself without one; anything else gives no rows), at most 5000
// of them. A `paged` source asks for one page of the grid bound to it and
// reports the total paging.ts computes.
import { ApiError, errorValue } from "../../../lib/errors";
import { systemClock } from "../../../lib/clock";
import type { AuthProfile } from "../../../lib/outbound/profile-schema";
import { bodyPreview, failureError, prepare, requestProperties, responseResult, type OutboundContext, type Payload } from "../../../lib/outbound/request";
import { MAX_RETRIES_WITHIN_DEADLINE, sendWithinDeadline } from "../../../lib/outbound/within-deadline";
import { missingSecretsIn } from "../../../lib/secret-markers";
import { valueAt } from "../../../lib/smart-values";
import { validate } from "../../../lib/validate";
import { pagedTotal, pagingOf, type PagedSpec, type Paging } from "./paging";
import { DeadlineExceeded, type Fetched, type Obj, type Prepared, type SourceRun } from "./run";
import { isObject } from "../../../lib/is-object";

/** Rows kept from one answer; beyond them the source warns `http-source-truncated`. */
export const MAX_HTTP_ROWS = 5000;

const dotted = { type: "string", minLength: 1 } as const;

/** A `$http` source once its smart values are resolved. */
const HTTP_SOURCE = {
  type: "object",
  required: ["url"],
  additionalProperties: false,
  properties: {
    url: requestProperties.url,
    method: { enum: ["GET", "POST"] },
    headers: requestProperties.headers,
    query: requestProperties.query,
    body: {},
    auth: requestProperties.auth,
    rowsPath: dotted,
    paged: { type: "object", additionalProperties: false, properties: { totalPath: dotted, hasNextPath: dotted } },
    maxRetries: { type: "integer", minimum: 0, maximum: MAX_RETRIES_WITHIN_DEADLINE },
  },
} as const;

interface HttpSource {
  url: string;
  method?: "GET" | "POST";
  headers?: Record<string, string | number | boolean>;
  query?: Record<string, string | number | boolean>;
  body?: unknown;
  auth?: string | AuthProfile;
  rowsPath?: string;
  paged?: PagedSpec;
  maxRetries?: number;
}

/** A JSON body (anything but a string) goes as JSON; a string as written. */
function payloadOf(source: HttpSource): Payload {
  const method = source.method ?? "GET";
  if (source.body === undefined) return { method };
  if (typeof source.body === "string") return { method, body: source.body };
  return { method, body: JSON.stringify(source.body), contentType: "application/json" };
}

/** A header or query parameter resolving to null (a grid not sorted) is left out, as one resolving to nothing is. */
function withoutNulls(resolved: unknown): unknown {
  if (!isObject(resolved)) return resolved;
  const out = { ...resolved };
  for (const key of ["headers", "query"]) {
    const fields = out[key];
    if (isObject(fields)) out[key] = Object.fromEntries(Object.entries(fields).filter(([, value]) => value !== null));
  }
  return out;
}

/**
 * The source resolved against `scope` (plus `paging` when it is paged, for
 * the grid `gridId`). A profile named by `auth` resolves against the render
 * context, as an inline block does.
 */
export async function prepareHttp(run: SourceRun, source: Obj, scope: Obj, gridId: string | undefined): Promise<Prepared> {
  const written = source.$http;
  if (!isObject(written)) throw new ApiError("UNPROCESSABLE_ENTITY", `The $http of data source ${run.name} must be an object`);
  const paging = isObject(written.paged) ? pagingOf(scope, gridId) : undefined;
  const resolved = withoutNulls(await run.resolve(written, paging ? { ...scope, paging } : scope));
  // Checked before the shape: a marker is no header value. An auth block's are named by its profile when the request is prepared.
  const missing = missingSecretsIn(isObject(resolved) ? { ...resolved, auth: undefined } : resolved);
  if (missing.length) {
    throw ApiError.of(
      errorValue(
        { code: "HTTP_AUTH_SECRET_MISSING", missing_secrets: missing },
        `The $http of data source ${run.name} reads secrets that are not set: ${missing.join(", ")}`,
      ),
    );
  }
  const http = validate<HttpSource>(HTTP_SOURCE, resolved, `The $http of data source ${run.name} is not a valid request`, "$http");
  return {
    // The same request for another page of the grid is another fetch.
    key: JSON.stringify({ $http: http, paging }),
    fetch: () => fetchHttp(run, http, scope, paging),
  };
}

async function fetchHttp(run: SourceRun, http: HttpSource, scope: Obj, paging: Paging | undefined): Promise<Fetched> {
  const { env, redactor } = run;
  const clock = env.clock ?? systemClock;
  const ctx: OutboundContext = {
    authProfiles: env.authProfiles as Record<string, AuthProfile>,
    profileScope: scope,
    tenantId: env.services.tenant.tenantId,
    env: env.bindings,
    conceal: (value) => redactor.conceal(value),
    redact: (value) => redactor.value(value),
    now: () => clock.now(),
  };
  const prepared = await prepare(http, payloadOf(http), ctx, crypto.randomUUID());
  if ("error" in prepared) throw ApiError.of(prepared.error);
  const sent = await sendWithinDeadline(prepared, { maxRetries: http.maxRetries }, ctx, env.deadline);
  if ("late" in sent) throw new DeadlineExceeded(run.name);
  if (!("response" in sent)) throw ApiError.of(failureError(sent, ctx));
  const { status } = sent.response;
  if (status >= 400) {
    throw new ApiError("BAD_REQUEST", `The $http source ${run.name} answered ${status}`, { status, body_preview: bodyPreview(sent.response, ctx) });
  }
  const body = responseResult(sent.response, ctx).body;
  const found = http.rowsPath === undefined ? body : valueAt(body, http.rowsPath);
  let rows = Array.isArray(found) ? found : [];
  if (rows.length > MAX_HTTP_ROWS) {
    env.notify({
      id: "http-source-truncated",
      level: "WARNING",
      message: `Data source ${run.name} answered ${rows.length} rows; the first ${MAX_HTTP_ROWS} are kept.`,
    });
    rows = rows.slice(0, MAX_HTTP_ROWS);
  }
  return paging && http.paged ? { rows, total: pagedTotal(paging, rows.length, body, http.paged) } : { rows };
}
