// Auth profiles, in any document kind that declares them: the root map of
// named profiles, inline blocks, and an outbound request's use of one (a
// declared name, no hand-set credential beside it). What a root profile's
// templates may read is the document kind's (./kinds.ts), an inline block's
// the scope of the field holding it.
import { child, has, type Collector, type Obj } from "./collector";
import { listed, type Expressions, type ReadScope } from "./expressions";
import { isObject } from "../../lib/is-object";

const PROFILE_KEY = /^[A-Za-z][A-Za-z0-9_-]*$/;
/** Profile fields that choose the mechanism, so they are read before any expression runs. */
const PROFILE_LITERALS = ["type", "grant", "in", "name", "clientAuth"];

/** What a root profile's templates may read. */
export const profileScope = (reads: readonly string[]): ReadScope => ({
  reads,
  code: "auth_profile_scope",
  explanation: `a profile may read only ${listed(reads.map((read) => `${read}.*`))}`,
});
/** What an inline auth block's templates may read: its field's scope. */
export const inlineProfileScope = (reads: readonly string[]): ReadScope => ({
  reads,
  code: "auth_profile_scope",
  explanation: `an inline auth block may read only ${listed(reads)}`,
});

/** The shape rules every profile block follows, wherever it is declared; its expressions are collected. */
function checkProfileBlock(found: Collector, profile: Obj, path: string, scope: ReadScope, expressions: Expressions): void {
  for (const [key, value] of Object.entries(profile)) {
    const at = child(path, key);
    if (isObject(value) && has(value, "$jsonata")) {
      found.add(at, "auth_profile_invalid", "is a $jsonata object; profile fields are literal strings or {{ }} templates");
      continue;
    }
    if (typeof value !== "string") continue;
    if (PROFILE_LITERALS.includes(key)) {
      if (value.includes("{{")) found.add(at, "auth_profile_invalid", "must be a literal (it decides how the request is authenticated)");
      continue;
    }
    expressions.smartValue(value, at, scope);
  }
  const username = profile.username;
  if (profile.type === "basic" && typeof username === "string" && !username.includes("{{") && username.includes(":")) {
    found.add(child(path, "username"), "auth_profile_invalid", "must not contain ':' (Basic auth joins username and password with it)");
  }
}

/** The root `auth` map (at most `max` profiles read): profile keys, blocks only. Answers the declared profiles by name. */
export function checkRootProfiles(found: Collector, auth: unknown, path: string, scope: ReadScope, max: number, expressions: Expressions): Map<string, Obj> {
  const declared = new Map<string, Obj>();
  if (!isObject(auth)) return declared;
  for (const [key, profile] of Object.entries(auth).slice(0, max)) {
    const at = child(path, key);
    if (!PROFILE_KEY.test(key)) found.add(at, "auth_profile_invalid", "is not a profile key: it starts with a letter, then letters, digits, _ or -");
    if (!isObject(profile)) {
      found.add(at, "auth_profile_invalid", "must be an inline profile block; a profile cannot point at another profile");
      continue;
    }
    declared.set(key, profile);
    checkProfileBlock(found, profile, at, scope, expressions);
  }
  return declared;
}

/** Header names set by hand, lower-cased, each with the key as written. */
function headerNames(headers: unknown): Map<string, string> {
  return new Map(isObject(headers) ? Object.keys(headers).map((h) => [h.toLowerCase(), h]) : []);
}

/**
 * `auth` on an outbound request's config (with its `headers` and `query`): a
 * declared profile name or an inline block (read within `inline`), not both
 * a profile and a hand-set header or query parameter for the same
 * credential. `declared` is null when the document has no root map of its
 * own (a job published alone): names resolve against the runner's map later.
 */
export function checkRequestAuth(
  found: Collector,
  config: Obj,
  path: string,
  declared: Map<string, Obj> | null,
  inline: ReadScope,
  expressions: Expressions,
): void {
  const auth = config.auth;
  if (auth === undefined) return;
  const at = child(path, "auth");
  let profile: Obj | undefined;
  if (typeof auth === "string") {
    if (!declared) return;
    profile = declared.get(auth);
    if (!profile) {
      const names = [...declared.keys()];
      found.add(
        at,
        "auth_profile_unknown_reference",
        `names the profile ${JSON.stringify(auth)}, which the root auth map does not declare (${names.length ? `declared: ${names.join(", ")}` : "it declares none"})`,
      );
      return;
    }
  } else if (isObject(auth)) {
    profile = auth;
    checkProfileBlock(found, auth, at, inline, expressions);
  } else return;
  if (!declared) return;
  const headers = headerNames(config.headers);
  const headersAt = child(path, "headers");
  const authorization = headers.get("authorization");
  if (authorization !== undefined)
    found.add(child(headersAt, authorization), "auth_conflict", "is set by hand while auth is set; the profile sends Authorization");
  if (profile.type === "apiKey" && typeof profile.name === "string") {
    const name = profile.name;
    const header = headers.get(name.toLowerCase());
    if (profile.in === "header" && header !== undefined)
      found.add(child(headersAt, header), "auth_conflict", `is set by hand; the apiKey profile sends the ${name} header`);
    if (profile.in === "query" && isObject(config.query) && has(config.query, name))
      found.add(child(child(path, "query"), name), "auth_conflict", `is set by hand; the apiKey profile sends the ${name} query parameter`);
  }
}
