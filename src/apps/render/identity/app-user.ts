// The tenant user a render acts as: the external user (provider, the
// integration's company, user_external_id) mapped to it; the same user id
// from another company's host is another person. An unknown one is
// provisioned when the provider auto-creates users, through the same code as
// POST /access/external-users, so concurrent first renders of one person
// make one user and one mapping (access/external/users.ts).
import type { Sql, TenantDb } from "../../../db/client";
import { administersAccess } from "../../../access/permissions";
import { claimMapping, createExternalUser, findMapping, type EmailHeld } from "../../../access/external/users";
import { email as emailSchema } from "../../../access/external/schemas";
import { ApiError } from "../../../lib/errors";
import { check } from "../../../lib/validate";
import type { Notification } from "../contracts";
import type { Provider } from "./provider";
import type { RenderTarget } from "./target";

/** Who the identity names, as provisioning reads it. */
export interface Person {
  externalId: string;
  email?: string;
  firstName?: string;
  lastName?: string;
}

const inactive = (externalUserId: string, externalId: string) =>
  ApiError.as("FORBIDDEN", { code: "EXTERNAL_USER_INACTIVE", external_user_id: externalUserId }, `External user ${externalId} is deactivated`);

const nameOf = (value: unknown) => (typeof value === "string" && value.trim() !== "" ? value.trim().slice(0, 100) : undefined);

/** The canonical login keys of an identity; an email that is not one is left out. */
export function personOf(identity: Record<string, unknown>, externalId: string): Person {
  const email = typeof identity.user_email === "string" && check(emailSchema, identity.user_email).length === 0 ? identity.user_email : undefined;
  return { externalId, email, firstName: nameOf(identity.first_name), lastName: nameOf(identity.last_name) };
}

/**
 * Whether the holder of an email already has an active external identity
 * under one of the activation's integrations (a provider one of its
 * companies is registered under): the bound on linking for identity-token
 * providers, whose email claims the app cannot vouch for otherwise.
 */
async function heldUnderApp(tx: Sql, holderId: string, activationId: string): Promise<boolean> {
  const { rows } = await tx.query(
    `SELECT 1 FROM external_users eu
      WHERE eu.tenant_id = $1 AND eu.user_id = $2 AND eu.is_active
        AND eu.provider IN (SELECT c.provider FROM app_integrations i JOIN external_companies c ON c.id = i.external_company_id
                             WHERE i.tenant_id = $1 AND i.activation_id = $3)
      LIMIT 1`,
    [tx.tenantId, holderId, activationId],
  );
  return rows.length > 0;
}

/** The app user, and what the render answer tells the host about how it was found. */
export interface AppUser {
  userId: string;
  notifications: Notification[];
  /** Whether this resolution wrote (bound a mapping, or created a user and one). */
  wrote: boolean;
}

const emailLinkRefused: Notification = {
  id: "email-link-refused",
  level: "WARNING",
  message: "The email is held by a tenant user who administers access, so it was not linked: this user is a person of its own",
};

/**
 * The app user of the integration's company; 403 for a deactivated mapping
 * or user, or an unknown person the provider does not auto-create.
 * `reads` is a read-only handle of the tenant.
 */
export async function resolveAppUser(tenant: TenantDb, target: RenderTarget, provider: Provider, person: Person, reads: Sql): Promise<AppUser> {
  const key = { provider: target.providerName, companyExternalId: target.companyExternalId, externalId: person.externalId };
  // A known person is a read (`reads`, read-only, in the caller's wave); only a claim or a creation opens a transaction.
  const found = await findMapping(reads, key);
  const mapped = found ?? (await claimMapping(tenant, key));
  if (mapped) {
    if (!mapped.is_active) throw inactive(mapped.id, person.externalId);
    if (!mapped.user_is_active) throw new ApiError("FORBIDDEN", `The tenant user of external user ${person.externalId} is deactivated`);
    return { userId: mapped.user_id, notifications: [], wrote: !found };
  }
  if (!provider.autoCreateUsers) {
    throw new ApiError("FORBIDDEN", `External user ${person.externalId} is not provisioned and provider ${target.providerName} does not create users`);
  }
  const tokenProvider = provider.auth.type !== "bearer";
  // Set by the last decision taken: a retry after a lost race decides again.
  let holderAdministers = false;
  const whenEmailHeld = async (tx: Sql, holderId: string): Promise<EmailHeld> => {
    holderAdministers = false;
    if (!provider.allowEmailLink || (tokenProvider && !(await heldUnderApp(tx, holderId, target.activationId)))) return "separate";
    // A host that could link to an administrator would act with the tenant's access administration.
    holderAdministers = await administersAccess(tx, target.tenantId, holderId);
    return holderAdministers ? "separate" : "link";
  };
  try {
    const { row, emailHeld } = await createExternalUser(
      tenant,
      {
        provider: target.providerName,
        external_id: person.externalId,
        company_external_id: target.companyExternalId,
        email: person.email,
        first_name: person.firstName,
        last_name: person.lastName,
      },
      { whenEmailHeld },
    );
    return { userId: row.user_id, notifications: emailHeld === "separate" && holderAdministers ? [emailLinkRefused] : [], wrote: true };
  } catch (e) {
    // A concurrent request's mapping, found deactivated when this one lost the race to create it.
    if (e instanceof ApiError && e.details.code === "EXTERNAL_USER_INACTIVE") throw inactive(String(e.details.external_user_id), person.externalId);
    throw e;
  }
}
