// One render of an app for a host's user: the render context loaded, the
// page's sources reached with the app user's permissions, the screens
// resolved under one expression budget and one deadline.
import { providerCatalogues, type Catalogue } from "../../definition/language/components/catalogue";
import { allowsApp } from "../../access/app-access";
import { confinedServices } from "../../access/confined-services";
import { tenantDb } from "../../db/client";
import type { RequestContext } from "../../gateway/request-context";
import { Redactor } from "../../lib/redact";
import { EvaluationBudget } from "../../lib/smart-values";
import type { SpecDocument } from "../../definition/language/spec-schema";
import type { AppDeps } from "../spec";
import { checkSpecDocument } from "../../definition/checks/spec";
import { loadInstance } from "../activation";
import { loadRender, type RenderOverrides, type SecretAccess } from "./context";
import type { RenderApp, RenderIdentity, SourceEnvironment } from "./contracts";
import { RenderNotifications, renderScreens, type RenderAnswer } from "./pages";
import { pageSources } from "./sources";
import { runAction } from "./commands";
import { confirmIdentity, type RenderTarget } from "./identity";
import { notFound } from "../../lib/errors";
import { commandWorld } from "./command-world";
import { gatheredReads } from "./waves";

/** Every expression of one render shares this much evaluation time. */
const RENDER_EVALUATION_MS = 1_000;

export interface RenderBody {
  state?: unknown;
  action?: unknown;
  context?: unknown;
}

/** The answer of `POST /apps/run/{integrationId}` for a verified app user, from what its identity step loaded of the target. */
export function renderForHost(
  ctx: RequestContext,
  bindings: Env,
  identity: RenderIdentity,
  target: Pick<RenderTarget, "specVisible" | "app">,
  body: RenderBody,
): Promise<RenderAnswer> {
  // A spec the tenant's own reads no longer see (a share withdrawn) is not found, as any read of it answers.
  if (!target.specVisible) throw notFound("App spec", identity.specId);
  return render(ctx, bindings, identity, target.app, body, { author: false, access: { masterKey: bindings.MASTER_KEY, readable: true } });
}

export interface PreviewBody extends RenderBody {
  identity?: Record<string, unknown>;
  config?: RenderOverrides["config"];
  spec_document?: unknown;
  spec_version?: number;
}

/**
 * An author's preview (`POST /apps/{specId}/preview`): the activation's spec
 * (or the document or kept version the body names) rendered for the caller,
 * with the caller's permissions, the identity keys as given and the config
 * patches merged over the stored scopes for this render only. No
 * integration, no app token; nothing is saved or provisioned. The config's
 * secret references resolve only for a caller who may change the activation.
 */
export async function previewForAuthor(ctx: RequestContext, bindings: Env, specId: string, body: PreviewBody): Promise<RenderAnswer> {
  const caller = ctx.principal;
  const instance = await loadInstance(appDeps(ctx, caller), specId, "read");
  const version = body.spec_version ?? instance.version;
  const spec = body.spec_document === undefined ? await instance.spec.document(version) : checkSpecDocument(body.spec_document);
  const identity = body.identity ?? {};
  const company = identity.company_external_id;
  const app: RenderApp = { inUse: await instance.spec.document(instance.version), activation: instance.activation };
  return render(
    ctx,
    bindings,
    {
      tenantId: ctx.tenant.tenantId,
      activationId: instance.activation.id,
      specId: instance.spec.id,
      specVersion: version,
      provider: Object.keys(spec.providers ?? {})[0] ?? "",
      externalCompanyId: "",
      companyExternalId: typeof company === "string" ? company : "",
      userId: caller.userId,
      identity,
      principal: caller,
    },
    app,
    body,
    {
      author: true,
      access: { masterKey: bindings.MASTER_KEY, readable: allowsApp(caller, "update", instance.activation.id) },
      overrides: { spec, config: body.config },
    },
  );
}

/** The document an author's preview renders unless told otherwise: the activation's version, for a caller with app:read on it. */
export async function previewedSpec(ctx: RequestContext, specId: string): Promise<SpecDocument> {
  const instance = await loadInstance(appDeps(ctx, ctx.principal), specId, "read");
  return instance.spec.document(instance.version);
}

function appDeps(ctx: RequestContext, caller: RenderIdentity["principal"]): AppDeps {
  return { tenant: ctx.tenant, caller, ownerTenant: (tenantId) => (tenantId === ctx.tenant.tenantId ? ctx.tenant : tenantDb(ctx.database, tenantId)) };
}

interface RenderMode {
  /** An author's preview: a dropped widget's notification carries its cause's own message, which a host's user never reads. */
  author: boolean;
  /** Whether the config's secret references resolve for this caller. */
  access: SecretAccess;
  overrides?: RenderOverrides;
}

/** One structured line per widget a failure dropped, its message masked as the answer is. */
function logFailures(ctx: RequestContext, identity: RenderIdentity, notifications: RenderNotifications, secrets: Redactor): void {
  for (const failure of notifications.failures()) {
    const { widget, source, code, message } = failure;
    ctx.log.warn("app widget dropped", {
      integration: identity.integrationId ?? null,
      spec: identity.specId,
      widget,
      source: source ?? null,
      code,
      message: secrets.text(message),
    });
  }
}

/** A host draws with its provider's catalogue; an author's preview stands for every host, so every declared one applies. */
function renderedCatalogues(spec: SpecDocument, identity: RenderIdentity, author: boolean): Catalogue[] {
  const declared = providerCatalogues(spec.providers);
  if (author) return [...new Set(declared.values())];
  const own = declared.get(identity.provider);
  return own ? [own] : [];
}

async function render(ctx: RequestContext, bindings: Env, identity: RenderIdentity, app: RenderApp, body: RenderBody, mode: RenderMode): Promise<RenderAnswer> {
  const { access, overrides = {} } = mode;
  const deps = appDeps(ctx, identity.principal);
  const wave = ctx.database.readWave();
  // A cached identity's guard goes in the render's first wave, beside its context; nothing of the render counts before it held.
  const confirmed = identity.guard && confirmIdentity(wave.lookup(), identity.guard);
  const loading = loadRender(deps, wave, identity, app, body.context, access, overrides);
  if (confirmed) {
    loading.catch(() => {});
    await confirmed;
  }
  const { spec, context, concealed } = await loading;
  const clock = ctx.clock;
  const budget = new EvaluationBudget({ timeoutMs: RENDER_EVALUATION_MS }, clock);
  const deadline = clock.now() + ctx.config.renderDeadlineMs;
  const notifications = new RenderNotifications();
  for (const n of identity.notifications ?? []) notifications.notify(n);
  // The config's secrets, and what sources learn is secret (a credential a request sent, a value computed from one), mask the whole answer.
  const secrets = new Redactor(concealed);
  const env: SourceEnvironment = {
    bindings,
    secrets,
    clock,
    services: confinedServices(identity.principal, gatheredReads(ctx.tenant, wave), bindings, "app"),
    budget,
    deadline,
    functions: spec.functions ?? {},
    authProfiles: spec.auth ?? {},
    notify: (n) => notifications.notify(n),
  };
  const reloadContext = async () => {
    const reloaded = await loadRender(deps, wave, identity, app, body.context, access, overrides);
    // A step may have set a secret the config references: its value is masked from now on too.
    for (const value of reloaded.concealed) secrets.conceal(value);
    return reloaded.context;
  };
  const world = body.action === undefined ? undefined : commandWorld({ ctx, bindings, deps, identity, app, spec, env, reloadContext });
  const answer = await renderScreens({
    spec,
    context,
    state: body.state,
    act: world && ((stage) => runAction(stage, world, body.action)),
    sourcesFor: (_pageKey, dataSources, grids) => pageSources(dataSources, env, grids),
    budget,
    deadline,
    notifications,
    secrets,
    causeMessages: mode.author,
    catalogues: renderedCatalogues(spec, identity, mode.author),
    clock,
  });
  logFailures(ctx, identity, notifications, secrets);
  return answer;
}
