// Where the host puts its credential: `Authorization: Bearer <credential>`,
// or, when the provider names `auth.header`, that header, with or without
// the `Bearer ` prefix. The same place serves an app token (bearer) and an
// identity token (oidc, exchange).
import type { ProviderAuth } from "./provider";
import { refused } from "./refusal";

const BEARER = /^bearer\s+/i;

/** The credential the request presents; 401 when there is none. */
export function presentedCredential(headers: Headers, auth: ProviderAuth): string {
  const name = auth.header ?? "Authorization";
  const value = headers.get(name)?.trim();
  if (!value) throw refused("no credential");
  if (BEARER.test(value)) return value.replace(BEARER, "");
  if (auth.header) return value;
  throw refused("not a Bearer credential");
}
