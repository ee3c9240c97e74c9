// The one way to get an OAuth2 client-credentials token: callers (the `http`
// actions, the app renderer's `$http` sources) hand over a resolved profile and
// get a token or the run-time auth error; they never speak the TokenCache
// object's wire format. One object per tenant and cache key, so tenants never
// share a token and changing any of the six key fields starts a fresh entry.
import type { TokenCache } from "../../../durable-objects/token-cache";
import { cacheKey, type ResolvedOAuth2, type TokenAnswer } from "./oauth2";
import { errorValue } from "../errors";

export type { ResolvedOAuth2, TokenAnswer } from "./oauth2";

/** The binding the client needs; absent where OAuth2 cannot run. */
export interface TokenCacheEnv {
  TOKEN_CACHE?: DurableObjectNamespace<TokenCache>;
}

const CACHE_UNAVAILABLE = errorValue({ code: "HTTP_AUTH_TOKEN_CACHE_UNAVAILABLE" }, "OAuth2 profiles cannot be used here: no token cache is available");

/** The object holding this tenant's token for this profile. The name carries a hash, never the secret. */
export async function tokenCacheObject(namespace: DurableObjectNamespace<TokenCache>, tenantId: string, profile: ResolvedOAuth2) {
  return namespace.get(namespace.idFromName(`${tenantId}:${await cacheKey(profile)}`));
}

/**
 * A token for `profile`: reused while its lifetime allows, else exchanged
 * (concurrent callers share one exchange). `fresh`: minted for this call.
 * `rejected`: the token the target just answered 401 to; a new one is
 * exchanged unless another caller already replaced it.
 */
export async function oauth2Token(env: TokenCacheEnv, tenantId: string, profile: ResolvedOAuth2, opts: { rejected?: string } = {}): Promise<TokenAnswer> {
  if (!env.TOKEN_CACHE) return { error: CACHE_UNAVAILABLE };
  const stub = await tokenCacheObject(env.TOKEN_CACHE, tenantId, profile);
  return stub.token(profile, opts.rejected);
}
