// What an app user writes from inside a render: its principals' config
// (`setPrincipalConfig`) and their secrets (`setSecret`). A user writes its
// own user principal and user secrets without further permission; another
// principal (a `principalId`, the company's or the team's config, a
// `company.*` or `team.*` secret) needs `app:update` on the activation. An
// author's preview renders without an integration and writes nothing.
import { requireApp } from "../access/app-access";
import { putSecret } from "../access/secrets/store";
import { MAX_SECRET_BYTES } from "../access/secrets/schemas";
import { ApiError } from "../lib/errors";
import { opsPatch, type ConfigOp } from "./config/ops";
import { putPrincipal, type PrincipalType } from "./principals";
import type { AppDeps } from "./spec";

/** Who the render acts for, as far as its writes are concerned. */
export interface RenderPrincipals {
  specId: string;
  activationId: string;
  /** None in an author's preview. */
  integrationId?: string;
  provider: string;
  companyExternalId: string;
  userId: string;
  /** The identity key `team_id`, when the host gave one. */
  teamId?: string;
}

export interface PrincipalWriteRequest {
  principalType: PrincipalType;
  /** Absent or `self`: the render's own principal of the type. */
  principalId?: string;
  config?: Record<string, unknown>;
  ops?: ConfigOp[];
}

function noPreviewWrites(render: RenderPrincipals): void {
  if (render.integrationId === undefined) throw new ApiError("UNPROCESSABLE_ENTITY", "An author's preview writes nothing: run this step from a host's render");
}

/** The principal a write names, `self` resolved to the render's own. */
function principalOf(render: RenderPrincipals, type: PrincipalType, given: string | undefined): { id: string; provider?: string } {
  const own = given === undefined || given === "self";
  if (type === "user") return { id: own ? render.userId : given };
  if (type === "company") return { id: own ? render.companyExternalId : given, provider: render.provider };
  if (own && render.teamId === undefined)
    throw new ApiError("UNPROCESSABLE_ENTITY", "The render has no team (no identity key team_id) to write for", { field: "principalId" });
  return { id: own ? render.teamId! : given };
}

/** Writes a principal's config (a merge patch, or list ops on the effective value); answers the principal's effective config. */
export async function writeRenderPrincipal(deps: AppDeps, render: RenderPrincipals, request: PrincipalWriteRequest): Promise<Record<string, unknown>> {
  noPreviewWrites(render);
  const { id, provider } = principalOf(render, request.principalType, request.principalId);
  const patch = request.ops ? (effective: Record<string, unknown>) => opsPatch(effective, request.ops!) : (request.config ?? {});
  const view = await putPrincipal(deps, render.specId, request.principalType, id, provider, patch);
  return view.effective_config;
}

const encoder = new TextEncoder();
const TARGET = /^(user|company|team)\.([A-Za-z_][A-Za-z0-9_]*)$/;

/** Sets `<user|company|team>.<NAME>` for the render's own principal of that scope. */
export async function setRenderSecret(deps: AppDeps, render: RenderPrincipals, masterKey: string, target: string, value: string): Promise<void> {
  noPreviewWrites(render);
  const match = TARGET.exec(target);
  if (!match) throw new ApiError("UNPROCESSABLE_ENTITY", `setSecret.target ${JSON.stringify(target)} is not <user|company|team>.<NAME>`, { field: "target" });
  if (encoder.encode(value).byteLength > MAX_SECRET_BYTES)
    throw new ApiError("UNPROCESSABLE_ENTITY", `setSecret.value is over ${MAX_SECRET_BYTES} bytes`, { field: "value" });
  const scope = match[1] as PrincipalType;
  if (scope !== "user") requireApp(deps.caller, "update", render.activationId);
  const { id } = principalOf(render, scope, undefined);
  await putSecret(deps.tenant, masterKey, { scope, principalId: id, name: match[2], value });
}
