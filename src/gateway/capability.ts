// Signed capability links: credential-free URLs, served by this Worker, that
// grant one action on one resource until they expire (docs/api.md, Signed links).
//
//   <origin><path>?tenant=<tenant id>&expires=<unix seconds>&signature=<base64url HMAC-SHA256>
//
// The HMAC (keyed by MASTER_KEY, domain-separated from cursors) covers the
// purpose, the tenant, the resource id and the expiry, so a link cannot be
// pointed at another file, another tenant, another action or a later time.
// A missing, malformed or wrong signature and an expired link all answer 401
// (as any credential malformed, expired or wrongly signed does), told apart by
// `details.code` (docs/api.md, Signed links).
import { isoTimestamp } from "../lib/timestamps";
import { base64url, hmacSha256, timingSafeEqualText } from "../lib/crypto";
import { ApiError } from "../lib/errors";
import { isUuid } from "../lib/ids";
import type { AuthStrategy } from "./route-auth";

export type Purpose = "artifact-upload" | "artifact-download" | "temp-file-download" | "app-upload";

/** The query parameters a link carries, as declared on the routes that accept one. */
export const capabilityQuery = {
  type: "object",
  additionalProperties: false,
  properties: {
    tenant: { type: "string", description: "Tenant id the link was issued in" },
    expires: { type: "string", description: "Expiry, Unix seconds" },
    signature: { type: "string", description: "base64url HMAC-SHA256 over purpose, tenant, resource and expiry" },
  },
} as const;

export interface CapabilityParams {
  tenant?: string;
  expires?: string;
  signature?: string;
}

async function sign(secret: string, purpose: Purpose, tenantId: string, resourceId: string, expires: number): Promise<string> {
  return base64url(await hmacSha256(`capability:${secret}`, `${purpose}\n${tenantId}\n${resourceId}\n${expires}`));
}

export interface Link {
  url: string;
  /** The API's timestamp form (lib/timestamps.ts); links expire on whole seconds. */
  expires_at: string;
}

/** A link to `${origin}${path}` valid until `expires` (Unix seconds). */
export async function signLink(
  secret: string,
  purpose: Purpose,
  tenantId: string,
  resourceId: string,
  origin: string,
  path: string,
  expires: number,
): Promise<Link> {
  const signature = await sign(secret, purpose, tenantId, resourceId, expires);
  const query = new URLSearchParams({ tenant: tenantId, expires: String(expires), signature });
  return { url: `${origin}${path}?${query}`, expires_at: isoTimestamp(expires * 1000) };
}

/** Checks a link's parameters for `purpose` on `resourceId` and returns the tenant it was issued in. */
export async function verifyLink(secret: string, purpose: Purpose, resourceId: string, params: CapabilityParams, nowMs: number): Promise<string> {
  const { tenant, expires, signature } = params;
  if (!isUuid(tenant) || !expires || !/^\d{1,12}$/.test(expires) || !signature) {
    throw new ApiError({ code: "LINK_MALFORMED" }, "The link is incomplete: tenant, expires and signature are required");
  }
  const expected = await sign(secret, purpose, tenant, resourceId, Number(expires));
  if (!timingSafeEqualText(expected, signature)) throw new ApiError({ code: "LINK_SIGNATURE_INVALID" }, "The link's signature is not valid");
  if (Number(expires) * 1000 <= nowMs) {
    throw new ApiError({ code: "LINK_EXPIRED", expired_at: isoTimestamp(Number(expires) * 1000) }, "The link has expired");
  }
  return tenant;
}

/** Link expiry for a ttl in seconds from now. */
export function expiresIn(ttlSeconds: number, nowMs: number): number {
  return Math.floor(nowMs / 1000) + ttlSeconds;
}

/**
 * The route authorisation a signed link carries: the link for `purpose` over
 * the path parameter `param`, checked before anything else, names the tenant
 * the request then works in.
 */
export function capability(purpose: Purpose, param: string): AuthStrategy<{ tenantId: string }> {
  return {
    scheme: "capability",
    authenticate: async (c, { params, query }) => {
      const tenantId = await verifyLink(c.var.ctx.secret, purpose, params[param], query as CapabilityParams, c.var.ctx.clock.now());
      c.set("ctx", c.var.ctx.forTenant(tenantId));
      return { tenantId };
    },
  };
}
