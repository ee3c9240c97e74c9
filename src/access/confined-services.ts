// What a workflow action or an app command reaches data with, as a REST
// route does: the route's permission check, the tenant's database confined
// to what the principal may reach (the same EntityAccess a REST caller's
// request gets), the file store and the event publisher, and a service's
// refusal turned into an error value instead of an answer.
import type { TenantDb } from "../db/client";
import { EntityAccess } from "../entity/access";
import type { EntityDeps } from "../entity/entities/service";
import { publishEvents } from "../events/outbox";
import { hasPermission, type Principal } from "../gateway/principal";
import { ApiError, errorValue, type ErrorValue } from "../lib/errors";
import { FileStore } from "../lib/files/object-store";

export interface ConfinedServices {
  principal: Principal;
  /** The tenant, every entity read and write confined by the principal's grants. */
  tenant: TenantDb;
  files: FileStore;
  /** What the entity services take: the tenant, and the event publisher their writes hand committed events to. */
  entity: EntityDeps;
  /** Waits until the events the writes published have reached the queue (a run or a command has no waitUntil to leave them to). */
  published(): Promise<void>;
}

/** The bindings the services use. */
export type ServiceBindings = Pick<Env, "FILES" | "MASTER_KEY" | "EVENTS">;

/** What a refusal is answered as: the error outcome of an action or a command. */
export interface Refused {
  kind: "error";
  error: ErrorValue;
}

/** Whoever can hand out services: an action's or a command's context. */
export interface ServiceSource {
  services(): Promise<ConfinedServices>;
}

/** The services of `principal` in `tenant` (an unconfined handle of the principal's tenant). */
export function confinedServices(principal: Principal, tenant: TenantDb, bindings: ServiceBindings): ConfinedServices {
  const confined = tenant.withAccess(new EntityAccess(principal));
  const sending: Promise<void>[] = [];
  return {
    principal,
    tenant: confined,
    files: new FileStore(bindings.FILES, bindings.MASTER_KEY),
    // A failed send is logged by publishEvents and left to the outbox sweep, as for a REST write.
    entity: { tenant: confined, publish: (ids) => void (ids.length && sending.push(publishEvents(bindings.EVENTS, confined.tenantId, ids))) },
    published: async () => void (await Promise.all(sending)),
  };
}

/** The route's permission check: a 403 FORBIDDEN refusal unless the principal holds `resource:action`. */
function refusedUnless(principal: Principal, resource: string, action: string): Refused | undefined {
  if (hasPermission(principal, resource, action)) return undefined;
  return { kind: "error", error: errorValue("FORBIDDEN", `The run's policy does not allow ${resource}:${action}`, { resource, action }) };
}

/**
 * Runs `work` as a REST route runs its handler: refused (403) unless the
 * principal holds every `resource:action` of `permissions` (the first
 * missing one named), and a 4xx refusal from a service as the error
 * outcome. Anything else is the platform's fault and propagates.
 */
export async function withPermissions<T>(source: ServiceSource, permissions: string[], work: (services: ConfinedServices) => Promise<T>): Promise<T | Refused> {
  const services = await source.services();
  for (const permission of permissions) {
    const [resource, action] = permission.split(":");
    const refused = refusedUnless(services.principal, resource, action);
    if (refused) return refused;
  }
  try {
    return await work(services);
  } catch (e) {
    if (e instanceof ApiError && e.status < 500) return { kind: "error", error: e.value };
    throw e;
  }
}
