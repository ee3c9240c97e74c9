// What every action that reaches the data shares (withPermissions): the
// permission check a REST route makes, the run's tenant database confined to
// what its policy may reach (the same EntityAccess a REST caller's request
// gets), the file store and event publisher, and how a refusal from a
// service becomes the action's error.
import { tenantDb, type TenantDb } from "../../db/client";
import { EntityAccess } from "../../entity/access";
import type { EntityDeps } from "../../entity/entities/service";
import { publishEvents } from "../../events/outbox";
import { FileStore } from "../../lib/files/object-store";
import { hasPermission, type Principal } from "../../gateway/principal";
import { ApiError, errorValue } from "../../lib/errors";
import type { ActionOutcome } from "../engine/types";
import type { ActionContext } from "./types";

export interface RunServices {
  principal: Principal;
  /** The run's tenant, every entity read and write confined by the principal's grants. */
  tenant: TenantDb;
  files: FileStore;
  /** What the entity services take: the tenant, and the event publisher their writes hand committed events to. */
  entity: EntityDeps;
  /** Waits until the events the action's writes published have reached the queue (a run has no waitUntil to leave them to). */
  published(): Promise<void>;
}

async function runServices(ctx: ActionContext): Promise<RunServices> {
  const principal = await ctx.principal();
  const tenant = tenantDb(ctx.database, ctx.tenantId, new EntityAccess(principal));
  const sending: Promise<void>[] = [];
  return {
    principal,
    tenant,
    files: new FileStore(ctx.env.FILES, ctx.env.MASTER_KEY),
    // A failed send is logged by publishEvents and left to the outbox sweep, as for a REST write.
    entity: { tenant, publish: (ids) => void (ids.length && sending.push(publishEvents(ctx.env.EVENTS, ctx.tenantId, ids))) },
    published: async () => void (await Promise.all(sending)),
  };
}

/** The route's permission check: a 403 FORBIDDEN error outcome unless the run's policy grants `resource:action`. */
function refusedUnless(principal: Principal, resource: string, action: string): ActionOutcome | undefined {
  if (hasPermission(principal, resource, action)) return undefined;
  const message = `The run's policy does not allow ${resource}:${action}`;
  return { kind: "error", error: errorValue("FORBIDDEN", message, { resource, action }) };
}

/**
 * Runs `work` as a REST route runs its handler: a 403 error outcome unless
 * the run's policy grants every `resource:action` of `permissions` (the
 * first missing one named), and a 4xx refusal from a service as the
 * action's error (asOutcome).
 */
export async function withPermissions(ctx: ActionContext, permissions: string[], work: (services: RunServices) => Promise<ActionOutcome>): Promise<ActionOutcome> {
  const services = await runServices(ctx);
  for (const permission of permissions) {
    const [resource, action] = permission.split(":");
    const refused = refusedUnless(services.principal, resource, action);
    if (refused) return refused;
  }
  return asOutcome(() => work(services));
}

/**
 * Runs a service call as an action: a refusal the REST API would answer
 * (any 4xx ApiError) is the action's error outcome; anything else is the
 * platform's fault and propagates (the run's object decides about it).
 */
async function asOutcome(work: () => Promise<ActionOutcome>): Promise<ActionOutcome> {
  try {
    return await work();
  } catch (e) {
    if (e instanceof ApiError && e.status < 500) return { kind: "error", error: e.value };
    throw e;
  }
}
