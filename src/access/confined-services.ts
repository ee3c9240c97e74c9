// What a workflow action or an app command reaches data with, as a REST
// route does: the route's permission check, the tenant's database confined
// to what the principal may reach (the same EntityAccess a REST caller's
// request gets), the file store and the event publisher, and a service's
// refusal turned into an error value instead of an answer.
import type { TenantDb } from "../db/client";
import { EntityAccess } from "../db/entity-access";
import type { EntityDeps } from "../entity/entities/service";
import { publishEvents } from "../db/outbox";
import { hasPermission, type Principal } from "../lib/principal";
import { ApiError, errorValue, type ErrorValue } from "../lib/errors";
import { FileStore } from "../lib/files/object-store";

/**
 * Whose permissions the services act with, as a refusal words it: a
 * workflow run's (its policy), or an app user's inside an app request,
 * who has no run to speak of.
 */
export type ServiceHolder = "run" | "app";

export interface ConfinedServices {
  principal: Principal;
  holder: ServiceHolder;
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
export function confinedServices(principal: Principal, tenant: TenantDb, bindings: ServiceBindings, holder: ServiceHolder): ConfinedServices {
  const confined = tenant.withAccess(new EntityAccess(principal));
  const sending: Promise<void>[] = [];
  return {
    principal,
    holder,
    tenant: confined,
    files: new FileStore(bindings.FILES, bindings.MASTER_KEY),
    // A failed send is logged by publishEvents and left to the outbox sweep, as for a REST write.
    entity: { tenant: confined, publish: (ids) => void (ids.length && sending.push(publishEvents(bindings.EVENTS, confined.tenantId, ids))) },
    published: async () => void (await Promise.all(sending)),
  };
}

/**
 * The route's permission check over `permissions` (`resource:action`, or
 * `entity:<action>:<type name>`, checked as `entity:<action>`: the services
 * confine the rows to the types the principal's grants name): a 403
 * FORBIDDEN refusal naming the first the principal does not hold, worded
 * for whoever holds the services.
 */
export function refusedUnless(services: Pick<ConfinedServices, "principal" | "holder">, permissions: string[]): Refused | undefined {
  for (const permission of permissions) {
    const [resource, action] = permission.split(":");
    if (!hasPermission(services.principal, resource, action)) {
      return { kind: "error", error: errorValue("FORBIDDEN", `${policyOf(services.holder)} does not allow ${resource}:${action}`, { resource, action }) };
    }
  }
  return undefined;
}

function policyOf(holder: ServiceHolder): string {
  switch (holder) {
    case "run":
      return "The run's policy";
    case "app":
      return "The app's policy";
  }
}

/**
 * Runs `work` as a REST route runs its handler, once its permission check
 * passed (refusedUnless): a 4xx refusal from a service is the error
 * outcome. Anything else is the platform's fault and propagates.
 */
export async function withServices<T>(source: ServiceSource, work: (services: ConfinedServices) => Promise<T>): Promise<T | Refused> {
  const services = await source.services();
  try {
    return await work(services);
  } catch (e) {
    if (e instanceof ApiError && e.status < 500) return { kind: "error", error: e.value };
    throw e;
  }
}
