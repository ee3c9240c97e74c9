// The `auth` of an outbound action at run time: a name of the running
// document's root `auth` map (its strings resolved over the run constants,
// `config.env.*` and `context.*`, with the env's secrets in place) or an
// inline block the walker has already resolved, turned into credentials by
// the one outbound auth module (src/lib/outbound/auth-profiles.ts).
import type { AuthProfile } from "../../../definition/language/workflow-schema";
import { ExpressionError, ExpressionSyntaxError, resolveSmartValue } from "../../../lib/smart-values";
import { credentialsOf, type Credentials, type RequestShape } from "../../../lib/outbound/auth-profiles";
import { missingSecretsIn } from "../../engine/secrets";
import type { ActionContext } from "../types";
import { errorValue, type ErrorValue } from "../../../lib/errors";

/** How the action's errors name an inline block (it has no name of its own). */
const INLINE = "(inline)";

/** A root profile's strings, each resolved as a string over the run constants. */
async function resolveRoot(profile: AuthProfile, ctx: ActionContext): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(profile)) {
    out[key] = typeof value === "string" ? await resolveSmartValue(value, ctx.runConstants, { expects: "string" }) : value;
  }
  return out;
}

/**
 * The credentials `auth` stands for, checked against the request they will
 * go on; undefined `auth` adds nothing. An error otherwise:
 * HTTP_AUTH_PROFILE_UNKNOWN, then the checks of credentialsOf, or 422 for a
 * template that cannot be evaluated.
 */
export async function credentialsFor(auth: string | AuthProfile | undefined, request: RequestShape, ctx: ActionContext): Promise<{ credentials?: Credentials } | { error: ErrorValue }> {
  if (auth === undefined) return {};
  if (typeof auth !== "string") return credentialsOf(INLINE, { ...auth }, missingSecretsIn(auth), request, ctx);
  const profile = Object.hasOwn(ctx.authProfiles, auth) ? ctx.authProfiles[auth] : undefined;
  if (!profile) {
    const declared = Object.keys(ctx.authProfiles).sort();
    const message = `The auth profile ${JSON.stringify(auth)} is not declared in the workflow's auth map`;
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
