// The `auth` of an outbound request: a name of the document's root `auth` map
// (its strings resolved over the scope the document kind gives its profiles,
// a workflow's `config.env.*` and `context.*`, with secrets in place) or an
// inline block its caller has already resolved, turned into credentials by
// auth-profiles.ts.
import type { AuthProfile } from "./profile-schema";
import { ExpressionError, ExpressionSyntaxError, resolveSmartValue } from "../smart-values";
import { credentialsOf, type Credentials, type ProfileContext, type RequestShape } from "./auth-profiles";
import { missingSecretsIn } from "../secret-markers";
import { errorValue, type ErrorValue } from "../errors";

/** The profiles a request may name, and what their templates read. */
export interface ProfileSource {
  /** The document's root `auth` map: profiles by name. */
  authProfiles: Record<string, AuthProfile>;
  /** What a root profile's templates read (a workflow: `config.env` with secrets resolved, missing ones as markers, and `context`). */
  profileScope: Record<string, unknown>;
}

/** How the action's errors name an inline block (it has no name of its own). */
const INLINE = "(inline)";

/** A root profile's strings, each resolved as a string over the profile scope. */
async function resolveRoot(profile: AuthProfile, ctx: ProfileSource): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(profile)) {
    out[key] = typeof value === "string" ? await resolveSmartValue(value, ctx.profileScope, { expects: "string" }) : value;
  }
  return out;
}

/**
 * The credentials `auth` stands for, checked against the request they will
 * go on; undefined `auth` adds nothing. An error otherwise:
 * HTTP_AUTH_PROFILE_UNKNOWN, then the checks of credentialsOf, or 422 for a
 * template that cannot be evaluated.
 */
export async function credentialsFor(
  auth: string | AuthProfile | undefined,
  request: RequestShape,
  ctx: ProfileSource & Pick<ProfileContext, "conceal">,
): Promise<{ credentials?: Credentials } | { error: ErrorValue }> {
  if (auth === undefined) return {};
  if (typeof auth !== "string") return credentialsOf(INLINE, { ...auth }, missingSecretsIn(auth), request, ctx);
  const profile = Object.hasOwn(ctx.authProfiles, auth) ? ctx.authProfiles[auth] : undefined;
  if (!profile) {
    const declared = Object.keys(ctx.authProfiles).sort();
    const message = `The auth profile ${JSON.stringify(auth)} is not declared in the document's root auth map`;
    return { error: errorValue({ code: "HTTP_AUTH_PROFILE_UNKNOWN", profile: auth, declared }, message) };
  }
  let resolved: Record<string, unknown>;
  try {
    resolved = await resolveRoot(profile, ctx);
  } catch (e) {
    if (!(e instanceof ExpressionError || e instanceof ExpressionSyntaxError)) throw e;
    return { error: errorValue("UNPROCESSABLE_ENTITY", `auth profile ${JSON.stringify(auth)}: ${e.message}`, { profile: auth }) };
  }
  return credentialsOf(auth, resolved, missingSecretsIn(resolved), request, ctx);
}
