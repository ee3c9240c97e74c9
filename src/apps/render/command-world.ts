// What a render's commands reach the world with, for its app user: the
// catalog actions through the workflows' inline runner, the self-service
// writes, the upload slots and the previews of uploaded files. Built per render by answer.ts. An
// author's preview writes nothing: its inline actions may not write either.
import type { SpecDocument } from "../../definition/language/spec-schema";
import type { RequestContext } from "../../gateway/request-context";
import type { AuthProfile } from "../../lib/outbound/profile-schema";
import { runInlineActions, runInlineJob, WRITING_ACTIONS, type ActionDocument, type InlineEnvironment, type InlineJobSource } from "../../workflows/inline";
import { boundJob } from "../integrations";
import { mintUploadSlots, uploadPreview } from "../uploads/slots";
import { setRenderSecret, writeRenderPrincipal, type RenderPrincipals } from "../self-service";
import type { AppDeps } from "../spec";
import type { CommandServices, CommandWorld } from "./commands";
import type { RenderApp, RenderContext, RenderIdentity, SourceEnvironment } from "./contracts";
import { isObject } from "../../lib/is-object";

export interface WorldInput {
  ctx: RequestContext;
  bindings: Env;
  deps: AppDeps;
  identity: RenderIdentity;
  /** What the render loaded of its activation and integration: the job bindings. */
  app: RenderApp;
  spec: SpecDocument;
  env: SourceEnvironment;
  reloadContext(): Promise<RenderContext>;
}

type Obj = Record<string, unknown>;

/** What a preview's actions may not run: everything that writes, or starts a run that would. */
const PREVIEW_DENIED = [...WRITING_ACTIONS, "invokeWorkflow"];

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
  const { ctx, deps, identity, app, spec, env } = input;
  const render = principalsOf(identity);
  const preview = identity.integrationId === undefined;
  const denied = (listed: string[]) => (preview ? [...listed, ...PREVIEW_DENIED] : listed);

  const inline = (scope: Obj): InlineEnvironment => ({
    // Fresh per list: a host may repeat its X-Request-Id, and what actions derive from this (Idempotency-Keys, a child run's key) must not repeat.
    requestId: crypto.randomUUID(),
    scope,
    principal: identity.principal,
    tenant: ctx.tenant,
    bindings: input.bindings,
    database: ctx.database,
    background: ctx,
    clock: ctx.clock,
    budget: env.budget,
    deadline: env.deadline,
    secrets: env.secrets!,
    authProfiles: env.authProfiles as Record<string, AuthProfile>,
    functions: env.functions,
  });

  /** `jobs.<key>`: its inline body, or the job its slot is bound to (the integration's binding over the activation's). */
  function jobSource(key: string): InlineJobSource {
    const declared = Object.hasOwn(spec.jobs ?? {}, key) ? spec.jobs![key] : undefined;
    if (isObject(declared) && Array.isArray(declared.actions)) return { key, body: declared as never };
    return { key, bound: boundJob(app, key) };
  }

  const services: CommandServices = {
    actions: (request, scope) =>
      runInlineActions(
        {
          actions: request.actions as ActionDocument[],
          input: request.input,
          output: request.output,
          permissionSet: request.permissionSet,
          additionalAllowed: request.additionalAllowed,
          denied: denied(request.denied),
        },
        inline(scope),
      ),
    job: async (request, scope) =>
      runInlineJob(
        { job: jobSource(request.job), input: request.input, additionalAllowed: request.additionalAllowed, denied: denied(request.denied) },
        inline(scope),
      ),
    setPrincipalConfig: (write) => writeRenderPrincipal(deps, render, write),
    setSecret: (target, value) => setRenderSecret(deps, render, ctx.secret, target, value),
    uploadSlots: (request) => mintUploadSlots({ tenant: ctx.tenant, secret: ctx.secret, clock: ctx.clock }, { identity, origin: ctx.origin, spec, ...request }),
    uploadPreview: (uploadId) =>
      uploadPreview({ database: ctx.database, secret: ctx.secret, origin: ctx.origin, clock: ctx.clock }, identity.tenantId, uploadId, {
        integrationId: identity.integrationId,
        userId: identity.userId,
      }),
  };
  return { services, reloadContext: input.reloadContext };
}
