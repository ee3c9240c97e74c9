// Policies: named sets of grants, assigned to roles or users (assignments.ts).
import { and, asc, count, desc, eq, inArray, sql } from "drizzle-orm";
import type { Db, TenantDb } from "../db/client";
import { pgCode } from "../db/client";
import { appActivations, grants, policies, policyAssignments, workflowActivations } from "../db/schema";
import { ApiError, notFound } from "../lib/errors";
import { offsetOf, paginated, type Page } from "../lib/pagination";
import { forbidden, uuidSchema } from "../lib/schemas";
import type { Principal } from "../lib/principal";
import { grantPermissions, requireCovered } from "./escalation";

/** One per path prefix (entity types keep their own `entity_type`), and `*` for all. */
const RESOURCES = ["*", "entity", "entity_type", "schema", "definition", "workflow", "app", "access", "event"] as const;
const ACTIONS = ["read", "create", "update", "delete", "*"] as const;

export const grantFields = {
  resource: { enum: RESOURCES },
  actions: { type: "array", minItems: 1, uniqueItems: true, items: { enum: ACTIONS } },
  resource_name: { type: "string", minLength: 1, maxLength: 200, description: "An entity type name: the grant covers that type's entities only" },
  resource_id: {
    ...uuidSchema,
    description: "An entity id (the grant covers that entity only), or on an app grant an app activation id (the grant covers that activation only)",
  },
} as const;

/** Entity grants narrow to a type or to one entity, never both; app grants to one activation. */
export const grantNarrowing = {
  resource_name: { properties: { resource: { const: "entity" }, resource_id: forbidden } },
  resource_id: { properties: { resource: { enum: ["entity", "app"] } } },
} as const;

/** A grant as a policy body carries it. */
export const grantInput = {
  type: "object",
  additionalProperties: false,
  required: ["resource", "actions"],
  properties: grantFields,
  dependentSchemas: grantNarrowing,
} as const;

export interface GrantInput {
  resource: string;
  actions: string[];
  resource_name?: string;
  resource_id?: string;
}

export const grantColumns = {
  id: grants.id,
  policy_id: grants.policyId,
  resource: grants.resource,
  actions: grants.actions,
  resource_name: grants.resourceName,
  resource_id: grants.resourceId,
};

/** Oldest first; grants added together (one policy body) by resource, then what they narrow to. */
export const grantOrder = [asc(grants.createdAt), asc(grants.resource), asc(grants.resourceName), asc(grants.resourceId), asc(grants.id)];

const policyColumns = {
  id: policies.id,
  name: policies.name,
  description: policies.description,
  created_at: policies.createdAt,
  updated_at: policies.updatedAt,
};

export function grantRow(tenantId: string, policyId: string, g: GrantInput) {
  return { tenantId, policyId, resource: g.resource, actions: g.actions, resourceName: g.resource_name ?? null, resourceId: g.resource_id ?? null };
}

/**
 * Grants added to a policy in use reach its holders at once (the users and
 * roles it is assigned to, the runs of workflows and the users of app
 * activations bound to it), so the caller must hold them.
 */
export async function requireCoveredIfAssigned(db: Db, caller: Principal, policyId: string, added: GrantInput[]) {
  const [assigned] = await db
    .select({ id: policyAssignments.id })
    .from(policyAssignments)
    .where(eq(policyAssignments.policyId, policyId))
    .unionAll(db.select({ id: workflowActivations.workflowId }).from(workflowActivations).where(eq(workflowActivations.policyId, policyId)))
    .unionAll(db.select({ id: appActivations.id }).from(appActivations).where(eq(appActivations.policyId, policyId)))
    .limit(1);
  if (assigned) requireCovered(caller, grantPermissions(added), "Adding these grants to an assigned policy");
}

async function withGrants<P extends { id: string }>(db: Db, rows: P[]) {
  const all = rows.length
    ? await db
        .select(grantColumns)
        .from(grants)
        .where(
          inArray(
            grants.policyId,
            rows.map((p) => p.id),
          ),
        )
        .orderBy(...grantOrder)
    : [];
  return rows.map(({ id, ...rest }) => ({ id, ...rest, grants: all.filter((g) => g.policy_id === id) }));
}

export async function policyRow(db: Db, id: string) {
  const [row] = await db.select(policyColumns).from(policies).where(eq(policies.id, id));
  if (!row) throw notFound("Policy", id);
  return (await withGrants(db, [row]))[0];
}

function nameTaken(e: unknown, name: string | undefined): unknown {
  return pgCode(e) === "23505" ? new ApiError("CONFLICT", `Policy ${name} already exists`, { name }) : e;
}

export async function createPolicy(tenant: TenantDb, input: { name: string; description?: string | null; grants?: GrantInput[] }) {
  try {
    return await tenant.tx(async ({ db }) => {
      const [{ id }] = await db
        .insert(policies)
        .values({ tenantId: tenant.tenantId, name: input.name, description: input.description ?? null })
        .returning({ id: policies.id });
      if (input.grants?.length) await db.insert(grants).values(input.grants.map((g) => grantRow(tenant.tenantId, id, g)));
      return policyRow(db, id);
    });
  } catch (e) {
    throw nameTaken(e, input.name);
  }
}

export async function listPolicies(tenant: TenantDb, page: Page) {
  return tenant.tx(async ({ db }) => {
    const rows = await db.select(policyColumns).from(policies).orderBy(desc(policies.createdAt), desc(policies.id)).limit(page.limit).offset(offsetOf(page));
    const [{ total }] = await db.select({ total: count() }).from(policies);
    return paginated(await withGrants(db, rows), page, total);
  });
}

export async function getPolicy(tenant: TenantDb, id: string) {
  return tenant.tx(({ db }) => policyRow(db, id));
}

/** `grants`, when given, replace the policy's whole set. */
export async function updatePolicy(
  tenant: TenantDb,
  caller: Principal,
  id: string,
  input: { name?: string; description?: string | null; grants?: GrantInput[] },
) {
  try {
    return await tenant.tx(async ({ db }) => {
      const [row] = await db
        .update(policies)
        .set({
          ...(input.name !== undefined && { name: input.name }),
          ...(input.description !== undefined && { description: input.description }),
          updatedAt: sql`now()`,
        })
        .where(eq(policies.id, id))
        .returning({ id: policies.id });
      if (!row) throw notFound("Policy", id);
      if (input.grants) {
        await requireCoveredIfAssigned(db, caller, id, input.grants);
        await db.delete(grants).where(eq(grants.policyId, id));
        if (input.grants.length) await db.insert(grants).values(input.grants.map((g) => grantRow(tenant.tenantId, id, g)));
      }
      return policyRow(db, id);
    });
  } catch (e) {
    throw nameTaken(e, input.name);
  }
}

/** Its grants and assignments go with it (foreign keys cascade); a policy a workflow or app activation binds stays (409). */
export async function deletePolicy(tenant: TenantDb, id: string) {
  try {
    return await tenant.tx(async ({ db }) => {
      const [row] = await db.delete(policies).where(eq(policies.id, id)).returning({ id: policies.id });
      if (!row) throw notFound("Policy", id);
      return { id: row.id, deleted: true as const };
    });
  } catch (e) {
    // A restricting foreign key answers 23001 (restrict_violation) or 23503, by Postgres version.
    if (pgCode(e) === "23503" || pgCode(e) === "23001")
      throw new ApiError("CONFLICT", `Policy ${id} is bound to a workflow or app activation; bind another policy there first`, { policy_id: id });
    throw e;
  }
}

/**
 * The grants holding exactly `permissions` (strings as GET
 * /access/me/permissions writes them): one grant per resource, and per
 * type for `entity:<action>:<type name>`, its actions sorted.
 */
export function grantsOf(permissions: string[]): GrantInput[] {
  const byTarget = new Map<string, GrantInput>();
  for (const permission of permissions) {
    const [resource, action, ...rest] = permission.split(":");
    const typeName = rest.length ? rest.join(":") : undefined;
    const key = JSON.stringify([resource, typeName ?? null]);
    const grant = byTarget.get(key) ?? { resource, actions: [], ...(typeName !== undefined && { resource_name: typeName }) };
    if (!grant.actions.includes(action)) grant.actions.push(action);
    byTarget.set(key, grant);
  }
  return [...byTarget.values()].map((g) => ({ ...g, actions: [...g.actions].sort() }));
}

/**
 * Binding a policy gives its grants to whoever acts with it (a workflow's
 * runs, an app's users), so the caller must hold them, as for assigning it.
 * An unknown id is 422 naming `field`.
 */
export async function requireBindablePolicy(db: Db, caller: Principal, policyId: string, field = "policy_id"): Promise<void> {
  const rows = await db
    .select({ resource: grants.resource, actions: grants.actions })
    .from(policies)
    .leftJoin(grants, eq(grants.policyId, policies.id))
    .where(eq(policies.id, policyId));
  if (!rows.length) {
    const errors = [`${field}: no policy ${policyId}`];
    throw new ApiError("VALIDATION_FAILED", "Unknown policy", { errors, validation_errors: errors });
  }
  requireCovered(
    caller,
    grantPermissions(rows.flatMap((g) => (g.resource && g.actions ? [{ resource: g.resource, actions: g.actions }] : []))),
    "Binding this policy",
  );
}

/**
 * What provisioned a policy, and reconciles its grants on every activation or
 * config write: a workflow (its activation), or an app activation and the key
 * of the spec's `policies` (`$inline` for the config write's own `policy`).
 */
export type PolicyOwner = { workflowId: string } | { appActivationId: string; key: string };

function ownedBy(owner: PolicyOwner) {
  return "workflowId" in owner
    ? eq(policies.workflowId, owner.workflowId)
    : and(eq(policies.appActivationId, owner.appActivationId), eq(policies.appPolicyKey, owner.key));
}

function ownerColumns(owner: PolicyOwner) {
  return "workflowId" in owner ? { workflowId: owner.workflowId } : { appActivationId: owner.appActivationId, appPolicyKey: owner.key };
}

/** The policies an app activation provisioned, by key. */
export async function appProvisionedPolicies(db: Db, activationId: string): Promise<Map<string, string>> {
  const rows = await db.select({ id: policies.id, key: policies.appPolicyKey }).from(policies).where(eq(policies.appActivationId, activationId));
  return new Map(rows.map((r) => [r.key ?? "", r.id]));
}

/** The policy a workflow's activation (or an app activation's key) provisioned, when there is one. */
export async function provisionedPolicy(db: Db, owner: string | PolicyOwner): Promise<{ id: string; name: string } | undefined> {
  const [row] = await db
    .select({ id: policies.id, name: policies.name })
    .from(policies)
    .where(ownedBy(typeof owner === "string" ? { workflowId: owner } : owner));
  return row;
}

const WORKFLOW_POLICY = "Provisioned by the workflow's activation: the permissions its actions need. Each activation reconciles its grants.";

/**
 * Creates the policy an owner provisions (a workflow id stands for the
 * workflow), or brings the one it provisioned before to `name` and exactly
 * `wanted` (its grants replaced only when they differ, so a repeated
 * activation changes nothing). Runs in the caller's transaction; a name
 * another policy holds is 409 CONFLICT.
 */
export async function provisionPolicy(
  db: Db,
  tenantId: string,
  ownerOrWorkflow: string | PolicyOwner,
  name: string,
  wanted: GrantInput[],
  description = WORKFLOW_POLICY,
): Promise<string> {
  const owner = typeof ownerOrWorkflow === "string" ? { workflowId: ownerOrWorkflow } : ownerOrWorkflow;
  try {
    const existing = await provisionedPolicy(db, owner);
    if (!existing) {
      const [{ id }] = await db
        .insert(policies)
        .values({ tenantId, name, description, ...ownerColumns(owner) })
        .returning({ id: policies.id });
      if (wanted.length) await db.insert(grants).values(wanted.map((g) => grantRow(tenantId, id, g)));
      return id;
    }
    const held = await db.select(grantColumns).from(grants).where(eq(grants.policyId, existing.id));
    const shape = (list: GrantInput[]) =>
      JSON.stringify(list.map((g) => [g.resource, [...g.actions].sort(), g.resource_name ?? null, g.resource_id ?? null]).sort());
    const same =
      shape(
        held.map((g) => ({ resource: g.resource, actions: g.actions, resource_name: g.resource_name ?? undefined, resource_id: g.resource_id ?? undefined })),
      ) === shape(wanted);
    if (existing.name !== name) await db.update(policies).set({ name, updatedAt: sql`now()` }).where(eq(policies.id, existing.id));
    if (!same) {
      await db.delete(grants).where(eq(grants.policyId, existing.id));
      if (wanted.length) await db.insert(grants).values(wanted.map((g) => grantRow(tenantId, existing.id, g)));
      await db.update(policies).set({ updatedAt: sql`now()` }).where(eq(policies.id, existing.id));
    }
    return existing.id;
  } catch (e) {
    if (pgCode(e) === "23505")
      throw new ApiError(
        "CONFLICT",
        `Policy ${name} already exists and was not provisioned for this ${"workflowId" in owner ? "workflow" : "app activation"}; bind it with policy_id, or rename or delete it`,
        { name },
      );
    throw e;
  }
}
