// The URL an `httpCallback` hands its target: credential-free, it names one
// attempt of one action of one run and expires with the action's deadline.
//
//   <origin>/workflows/callbacks/<base64url JSON {t, r, k, a, e}>.<base64url HMAC-SHA256>
//
// The HMAC (keyed by MASTER_KEY, domain-separated from capability links and
// cursors) covers the whole claim, so a URL cannot be pointed at another
// tenant, run, action, attempt or a later time.
import { base64url, fromBase64url, hmacSha256, timingSafeEqualText } from "../../../lib/crypto";
import { ApiError } from "../../../lib/errors";
import { isUuid } from "../../../lib/ids";
import type { AuthStrategy } from "../../../gateway/route-auth";

export const CALLBACK_PATH = "/workflows/callbacks";

export interface CallbackClaim {
  tenantId: string;
  runId: string;
  /** The action's key in the run (`<job id>/<position>`). */
  key: string;
  attempt: number;
  /** Epoch ms the URL stops being accepted. */
  expiresAt: number;
}

const sign = (secret: string, claim: string) => hmacSha256(`callback:${secret}`, claim).then(base64url);

export async function callbackUrl(secret: string, origin: string, c: CallbackClaim): Promise<string> {
  const claim = base64url(new TextEncoder().encode(JSON.stringify({ t: c.tenantId, r: c.runId, k: c.key, a: c.attempt, e: c.expiresAt })));
  return `${origin}${CALLBACK_PATH}/${claim}.${await sign(secret, claim)}`;
}

const unauthorized = (message: string) => new ApiError("UNAUTHORIZED", message);

/** The claim a token carries; 401 UNAUTHORIZED when it is malformed, wrongly signed or expired. */
export async function verifyCallbackToken(secret: string, token: string, nowMs: number): Promise<CallbackClaim> {
  const [claim, signature, extra] = token.split(".");
  if (!claim || !signature || extra !== undefined) throw unauthorized("The callback URL is malformed");
  if (!timingSafeEqualText(await sign(secret, claim), signature)) throw unauthorized("The callback URL's signature is not valid");
  let parsed: { t?: unknown; r?: unknown; k?: unknown; a?: unknown; e?: unknown };
  try {
    parsed = JSON.parse(new TextDecoder().decode(fromBase64url(claim)));
  } catch {
    throw unauthorized("The callback URL is malformed");
  }
  const { t, r, k, a, e } = parsed;
  if (!isUuid(t) || !isUuid(r) || typeof k !== "string" || !Number.isInteger(a) || !Number.isInteger(e)) throw unauthorized("The callback URL is malformed");
  if ((e as number) <= nowMs) throw unauthorized("The callback URL has expired");
  return { tenantId: t, runId: r, key: k, attempt: a as number, expiresAt: e as number };
}

/** The route authorisation a callback URL carries: its token, checked before the body is read, names the tenant and the waiting attempt. */
export const callbackToken: AuthStrategy<CallbackClaim> = {
  scheme: "callback",
  authenticate: async (c, { params }) => {
    const claim = await verifyCallbackToken(c.var.ctx.secret, params.token, c.var.ctx.clock.now());
    c.set("ctx", c.var.ctx.forTenant(claim.tenantId));
    return claim;
  },
};
