// Outbound auth profiles as a request carries them, once their fields are
// resolved (a workflow resolves them over its run constants, an app over its
// render context): each mechanism's headers or query parameters, the checks
// every request makes against the profile, and the OAuth2 token per send.
// Every refusal is a 400 BAD_REQUEST error whose `details.code` says why, and
// every credential is concealed the moment it is known, before anything can
// be recorded, logged or put into an error.
import type { AuthProfile } from "./profile-schema";
import { errorValue, type ErrorValue } from "../errors";
import { oauth2Token, type ResolvedOAuth2, type TokenCacheEnv } from "./token-cache-client";

/** What a profile adds to a request; `oauth2` needs its token fetched per send. */
export type Credentials = { kind: "static"; headers: Record<string, string>; query: [string, string][] } | { kind: "oauth2"; profile: ResolvedOAuth2 };

/** The parts of a request a profile may collide with. */
export interface RequestShape {
  headers: Record<string, string>;
  query: Record<string, string>;
  /** The URL as given, whose own query counts too. */
  url: URL;
}

/** What using a profile needs from its caller: the tenant (its token cache) and the masking of credentials. */
export interface ProfileContext {
  tenantId: string;
  env: TokenCacheEnv;
  conceal(value: string): void;
  redact<T>(value: T): T;
}

/** UTF-8 bytes, then standard padded base64: what `Authorization: Basic` carries. */
function basicCredentials(username: string, password: string): string {
  let bin = "";
  for (const b of new TextEncoder().encode(`${username}:${password}`)) bin += String.fromCharCode(b);
  return btoa(bin);
}

/** The fields of each mechanism that carry a credential: concealed, and refused when empty. */
const SECRET_FIELDS: Record<AuthProfile["type"], string[]> = {
  basic: ["password"],
  bearer: ["token"],
  apiKey: ["value"],
  oauth2: ["clientSecret"],
};
const REQUIRED_FIELDS: Record<AuthProfile["type"], string[]> = {
  basic: ["username"],
  bearer: ["token"],
  apiKey: ["value"],
  oauth2: ["tokenUrl", "clientId", "clientSecret"],
};

const text = (v: unknown) => (typeof v === "string" ? v : v === undefined || v === null ? "" : String(v));

function hasHeader(headers: Record<string, string>, name: string): string | undefined {
  const lower = name.toLowerCase();
  return Object.keys(headers).find((h) => h.toLowerCase() === lower);
}

/**
 * The credentials of a resolved profile (`label` names it in errors),
 * checked against the request they will go on: HTTP_AUTH_SECRET_MISSING when
 * `missingSecrets` (the references its fields read without a value) is not
 * empty, then HTTP_AUTH_CONFLICT, then HTTP_AUTH_INVALID_CREDENTIAL.
 */
export function credentialsOf(
  label: string,
  resolved: Record<string, unknown>,
  missingSecrets: string[],
  request: RequestShape,
  ctx: Pick<ProfileContext, "conceal">,
): { credentials: Credentials } | { error: ErrorValue } {
  const type = resolved.type as AuthProfile["type"];
  // Concealed before any check can fail: whatever is recorded from here on masks them.
  for (const field of SECRET_FIELDS[type]) if (typeof resolved[field] === "string") ctx.conceal(resolved[field] as string);
  if (missingSecrets.length) {
    return {
      error: errorValue(
        { code: "HTTP_AUTH_SECRET_MISSING", profile: label, missing_secrets: missingSecrets },
        `The auth profile ${label} reads secrets that are not set: ${missingSecrets.join(", ")}`,
      ),
    };
  }
  const conflict = conflictOf(type, resolved, request);
  if (conflict)
    return {
      error: errorValue(
        { code: "HTTP_AUTH_CONFLICT", ...conflict },
        `The request sets the ${conflict.conflict} ${conflict.name} by hand, which the auth profile ${label} sends`,
      ),
    };
  for (const field of REQUIRED_FIELDS[type]) {
    if (text(resolved[field]) === "") return { error: invalid(label, field, "is empty") };
  }
  if (type === "basic" && text(resolved.username).includes(":")) return { error: invalid(label, "username", "contains ':'") };
  return { credentials: apply(type, resolved, ctx) };
}

function invalid(label: string, field: string, why: string): ErrorValue {
  return errorValue({ code: "HTTP_AUTH_INVALID_CREDENTIAL", field }, `The ${field} of auth profile ${label} ${why} after resolution`);
}

function conflictOf(type: AuthProfile["type"], p: Record<string, unknown>, request: RequestShape): { conflict: "header" | "query"; name: string } | undefined {
  // Every profile sends Authorization, except an apiKey, which sends its own header or parameter.
  if (type !== "apiKey") {
    const set = hasHeader(request.headers, "authorization");
    return set === undefined ? undefined : { conflict: "header", name: set };
  }
  const name = text(p.name);
  if (p.in === "header") {
    const set = hasHeader(request.headers, name);
    return set === undefined ? undefined : { conflict: "header", name: set };
  }
  return Object.hasOwn(request.query, name) || request.url.searchParams.has(name) ? { conflict: "query", name } : undefined;
}

function apply(type: AuthProfile["type"], p: Record<string, unknown>, ctx: Pick<ProfileContext, "conceal">): Credentials {
  switch (type) {
    case "basic": {
      const encoded = basicCredentials(text(p.username), text(p.password));
      ctx.conceal(encoded);
      return { kind: "static", headers: { Authorization: `Basic ${encoded}` }, query: [] };
    }
    case "bearer":
      return { kind: "static", headers: { Authorization: `Bearer ${text(p.token)}` }, query: [] };
    case "apiKey":
      return p.in === "header"
        ? { kind: "static", headers: { [text(p.name)]: text(p.value) }, query: [] }
        : { kind: "static", headers: {}, query: [[text(p.name), text(p.value)]] };
    case "oauth2": {
      const profile: ResolvedOAuth2 = {
        tokenUrl: text(p.tokenUrl),
        clientId: text(p.clientId),
        clientSecret: text(p.clientSecret),
        clientAuth: p.clientAuth === "body" ? "body" : "basic",
      };
      // An optional field that resolves empty is left out, as if it were not written.
      if (text(p.scope) !== "") profile.scope = text(p.scope);
      if (text(p.audience) !== "") profile.audience = text(p.audience);
      return { kind: "oauth2", profile };
    }
  }
}

/** What the credentials add to one send: headers, query parameters, and the OAuth2 token used (for a 401's refresh). */
export interface Authorized {
  headers: Record<string, string>;
  query: [string, string][];
  token?: { value: string; fresh: boolean };
}

/**
 * The credentials for one send. OAuth2 asks the tenant's token cache, passing
 * the token the target just refused (`rejected`) to have it replaced.
 */
export async function authorize(credentials: Credentials | undefined, ctx: ProfileContext, rejected?: string): Promise<Authorized | { error: ErrorValue }> {
  if (!credentials) return { headers: {}, query: [] };
  if (credentials.kind === "static") return credentials;
  const answer = await oauth2Token(ctx.env, ctx.tenantId, credentials.profile, rejected === undefined ? {} : { rejected });
  if ("error" in answer) return { error: ctx.redact(answer.error) };
  ctx.conceal(answer.token);
  return { headers: { Authorization: `Bearer ${answer.token}` }, query: [], token: { value: answer.token, fresh: answer.fresh } };
}
