// The access policies an app activation provisions in the consumer tenant:
// each `policies.<key>` of the spec version in use as `<spec name>:<key>`,
// and the config write's own inline `policy`. Every config write reconciles
// them (grants added and removed, ids kept) and binds the activation's
// policy: the operator's choice when it made one, else the spec's
// `defaultPolicy`. The caller must hold what it provisions, but for what the
// policy already grants (someone who held it gave it before).
import type { Sql } from "../db/client";
import type { Principal } from "../lib/principal";
import { ApiError } from "../lib/errors";
import { check } from "../lib/validate";
import { appProvisionedPolicies, grantInput, provisionPolicy, requireBindablePolicy, type GrantInput } from "../access/policies";
import { requireProvisionable } from "../access/escalation";
import type { SpecDocument, SpecGrant } from "./spec";

/** The key of the inline policy among an activation's provisioned ones (spec keys are never written with `$`). */
export const INLINE_POLICY = "$inline";
/** A grant's `resourceName` (or `resourceId`) standing for the activation itself. */
const APP_CONFIG = "$app_config";
const DESCRIPTION = "Provisioned by an app activation from its spec's policies. Each config write reconciles its grants.";

export interface PolicyChoice {
  policy_id?: string | null;
  policy?: { name?: string; grants: GrantInput[] };
}

function grantOf(g: SpecGrant, activationId: string): GrantInput {
  const self = g.resourceName === APP_CONFIG || g.resourceId === APP_CONFIG;
  return {
    resource: g.resource,
    actions: g.actions,
    ...(g.resourceName !== undefined && !self && { resource_name: g.resourceName }),
    ...(self ? { resource_id: activationId } : g.resourceId !== undefined && { resource_id: g.resourceId }),
  };
}

/** A grant's permissions as GET /access/me/permissions writes them, narrowed as the grant is. */
function permissionsOf(g: GrantInput): string[] {
  const target = g.resource === "entity" ? g.resource_name : g.resource === "app" ? g.resource_id : undefined;
  return g.actions.map((a) => (target === undefined ? `${g.resource}:${a}` : `${g.resource}:${a}:${target}`));
}

interface Plan {
  key: string;
  name: string;
  grants: GrantInput[];
}

function plansOf(specName: string, doc: SpecDocument, activationId: string, owned: Map<string, string>, inline: PolicyChoice["policy"]): Plan[] {
  const plans: Plan[] = [];
  const errors: string[] = [];
  for (const [key, policy] of Object.entries(doc.policies ?? {})) {
    const grants = (policy.grants ?? []).map((g) => grantOf(g, activationId));
    grants.forEach((g, i) => errors.push(...check(grantInput, g, `policies.${key}.grants[${i}]`)));
    plans.push({ key, name: `${specName}:${key}`, grants });
  }
  if (errors.length) throw new ApiError("UNPROCESSABLE_ENTITY", "The spec's policies cannot be provisioned", { errors });
  // A key the spec version in use no longer has keeps its policy, emptied.
  for (const key of owned.keys()) if (key !== INLINE_POLICY && !plans.some((p) => p.key === key)) plans.push({ key, name: `${specName}:${key}`, grants: [] });
  if (inline) plans.push({ key: INLINE_POLICY, name: inline.name ?? `${specName}:policy`, grants: inline.grants });
  return plans;
}

/**
 * Provisions and reconciles the activation's policies inside the write's
 * transaction and answers the policy the activation binds, and whether the
 * operator chose it. 403 naming the first permission the caller lacks.
 */
export async function bindAppPolicies(
  sql: Sql,
  caller: Principal,
  a: { activationId: string; specName: string; doc: SpecDocument; choice: PolicyChoice; prior?: { policy_id: string | null; policy_bound: boolean } },
): Promise<{ policyId: string | null; bound: boolean }> {
  const owned = await appProvisionedPolicies(sql.db, a.activationId);
  const plans = plansOf(a.specName, a.doc, a.activationId, owned, a.choice.policy);
  await requireProvisionable(
    sql,
    caller,
    plans.map((plan) => ({ existing: owned.get(plan.key), permissions: plan.grants.flatMap(permissionsOf) })),
    (permission) => `Provisioning the app's policies would give ${permission}, which the caller does not hold`,
  );
  const ids = new Map<string, string>();
  for (const plan of plans)
    ids.set(plan.key, await provisionPolicy(sql.db, sql.tenantId!, { appActivationId: a.activationId, key: plan.key }, plan.name, plan.grants, DESCRIPTION));
  if (a.choice.policy) return { policyId: ids.get(INLINE_POLICY)!, bound: true };
  if (typeof a.choice.policy_id === "string") {
    await requireBindablePolicy(sql.db, caller, a.choice.policy_id);
    return { policyId: a.choice.policy_id, bound: true };
  }
  if (a.choice.policy_id === undefined && a.prior?.policy_bound) return { policyId: a.prior.policy_id, bound: true };
  const fallback = a.doc.defaultPolicy;
  return { policyId: fallback !== undefined ? (ids.get(fallback) ?? null) : null, bound: false };
}
