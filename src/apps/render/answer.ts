// One render of an app for a host's user: the render context loaded, the
// page's sources reached with the app user's permissions, the screens
// resolved under one expression budget and one deadline.
import { confinedServices } from "../../access/confined-services";
import { tenantDb } from "../../db/client";
import type { RequestContext } from "../../gateway/request-context";
import { ApiError } from "../../lib/errors";
import { Redactor } from "../../lib/redact";
import { EvaluationBudget } from "../../lib/smart-values";
import type { SpecDocument } from "../../definition/language/spec-schema";
import type { AppDeps } from "../spec";
import { loadRender } from "./context";
import type { RenderIdentity, SourceEnvironment } from "./contracts";
import { RenderNotifications, renderScreens, type RenderAnswer } from "./pages";
import { pageSources } from "./sources";

/** Every expression of one render shares this much evaluation time. */
const RENDER_EVALUATION_MS = 1_000;

type Obj = Record<string, unknown>;
const isObject = (value: unknown): value is Obj => typeof value === "object" && value !== null && !Array.isArray(value);

/**
 * Which widget each source of a page feeds (its `dataSource`): a paged
 * `$http` source pages as that grid does. The page's own widgets first, then
 * the spec's and the dashboards' shared ones.
 */
function gridsOf(spec: SpecDocument, pageKey: string, dataSources: Obj): Record<string, string> {
  const grids: Record<string, string> = {};
  const pages = [spec.pages?.[pageKey], spec.modals?.[pageKey], ...Object.values(spec.dashboards).flatMap((d) => [d.pages?.[pageKey], d.modals?.[pageKey]])];
  const widgetMaps = [...pages.map((p) => (isObject(p) ? p.widgets : undefined)), spec.widgets, ...Object.values(spec.dashboards).map((d) => d.widgets)];
  for (const widgets of widgetMaps) {
    if (!isObject(widgets)) continue;
    for (const [id, widget] of Object.entries(widgets)) {
      const source = isObject(widget) ? widget.dataSource : undefined;
      if (typeof source === "string" && Object.hasOwn(dataSources, source) && !Object.hasOwn(grids, source)) grids[source] = id;
    }
  }
  return grids;
}

export interface RenderBody {
  state?: unknown;
  action?: unknown;
  context?: unknown;
}

/** The answer of `POST /apps/run/{integrationId}` for a verified app user. */
export async function renderForHost(ctx: RequestContext, bindings: Env, identity: RenderIdentity, body: RenderBody): Promise<RenderAnswer> {
  if (body.action !== undefined) {
    throw new ApiError("UNPROCESSABLE_ENTITY", "This service does not run widget actions yet: post the render without `action`", { field: "action" });
  }
  const deps: AppDeps = { tenant: ctx.tenant, caller: identity.principal, ownerTenant: (tenantId) => (tenantId === ctx.tenant.tenantId ? ctx.tenant : tenantDb(ctx.database, tenantId)) };
  const { spec, context } = await loadRender(deps, identity, body.context);
  const clock = ctx.clock;
  const budget = new EvaluationBudget({ timeoutMs: RENDER_EVALUATION_MS }, clock);
  const deadline = clock.now() + ctx.config.renderDeadlineMs;
  const notifications = new RenderNotifications();
  // What sources learn is secret (a credential a request sent, a value computed from one) masks the whole answer.
  const secrets = new Redactor();
  const env: SourceEnvironment = {
    bindings,
    secrets,
    clock,
    services: confinedServices(identity.principal, ctx.tenant, bindings),
    budget,
    deadline,
    functions: spec.functions ?? {},
    authProfiles: spec.auth ?? {},
    notify: (n) => notifications.notify(n),
  };
  return renderScreens({
    spec,
    context,
    state: body.state,
    sourcesFor: (pageKey, dataSources) => pageSources(dataSources, env, gridsOf(spec, pageKey, dataSources)),
    budget,
    deadline,
    notifications,
    secrets,
    clock,
  });
}
