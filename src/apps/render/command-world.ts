// What a render's commands reach the world with, for its app user: the
// catalog actions through the workflows' inline runner, the self-service
// writes, the upload slots and previews. Built per render by answer.ts.
import type { RequestContext } from "../../gateway/request-context";
import { setRenderSecret, writeRenderPrincipal, type RenderPrincipals } from "../self-service";
import type { AppDeps } from "../spec";
import type { CommandServices, CommandWorld } from "./commands";
import type { RenderContext, RenderIdentity, SourceEnvironment } from "./contracts";

export interface WorldInput {
  ctx: RequestContext;
  bindings: Env;
  deps: AppDeps;
  identity: RenderIdentity;
  env: SourceEnvironment;
  reloadContext(): Promise<RenderContext>;
}

function principalsOf(identity: RenderIdentity): RenderPrincipals {
  const team = identity.identity.team_id;
  return {
    specId: identity.specId,
    activationId: identity.activationId,
    integrationId: identity.integrationId,
    provider: identity.provider,
    companyExternalId: identity.companyExternalId,
    userId: identity.userId,
    ...(typeof team === "string" && team !== "" && { teamId: team }),
  };
}

export function commandWorld(input: WorldInput): CommandWorld {
  const { ctx, deps, identity } = input;
  const render = principalsOf(identity);
  const services: CommandServices = {
    actions: () => Promise.reject(new Error("inline actions are not wired")),
    job: () => Promise.reject(new Error("inline jobs are not wired")),
    setPrincipalConfig: (write) => writeRenderPrincipal(deps, render, write),
    setSecret: (target, value) => setRenderSecret(deps, render, ctx.secret, target, value),
    uploadSlots: () => Promise.reject(new Error("uploads are not wired")),
    uploadPreview: () => Promise.reject(new Error("uploads are not wired")),
  };
  return { services, reloadContext: input.reloadContext };
}
