// The isolate's cache of render identities: what a render's identity step
// found (its target: integration, activation, company and spec version; and
// the app user a provider's user maps to, with its principal), so that a
// host rendering again within a minute runs none of those lookups. As for
// cached callers (auth/caller-cache.ts), an entry is never trusted on its
// own: a render that uses one reads its guard in its first wave, beside the
// render context (answer.ts), and nothing of the render counts before the
// guard held. The guard reads again, in one statement, what the entries
// stand for: the target's rows at the versions they were read at, the app
// token presented still live for the integration, the mapping of the
// provider's user still to the same active user, and the tenant's access
// version the principal was computed at (grants, policies, bindings, users,
// shares). When it does not hold, the entries are dropped and the render
// starts again from the lookups (StaleIdentity, routes.ts). A failure on a
// cached entry (a refusal) is never answered from it either: the step runs
// again without the cache (index.ts).
import type { Sql } from "../../../db/client";
import type { Principal } from "../../../lib/principal";
import { appTokenLive } from "./app-token";
import { targetCurrent, type RenderTarget } from "./target";
import type { IdentityGuard } from "../contracts";

/** How long an entry serves; the guard decides each use, this bounds how long an unused one lingers. */
export const RENDER_IDENTITY_TTL_MS = 60_000;
/** A least-recently-used map whose entries serve for RENDER_IDENTITY_TTL_MS. */
class Entries<T> {
  private readonly entries = new Map<string, { value: T; storedAt: number }>();

  constructor(private readonly max: number) {}

  get(key: string, now: number): T | undefined {
    const entry = this.entries.get(key);
    if (!entry) return undefined;
    this.entries.delete(key);
    // A clock that went back (a test's) is not trusted to say the entry is young.
    if (now < entry.storedAt || now - entry.storedAt >= RENDER_IDENTITY_TTL_MS) return undefined;
    this.entries.set(key, entry);
    return entry.value;
  }

  set(key: string, value: T, now: number): void {
    this.entries.delete(key);
    this.entries.set(key, { value, storedAt: now });
    if (this.entries.size > this.max) this.entries.delete(this.entries.keys().next().value!);
  }

  delete(key: string): void {
    this.entries.delete(key);
  }
}

/** The app user a provider's user of an integration's company maps to, and its principal. */
export interface CachedUser {
  userId: string;
  principal: Principal;
}

/** A target holds its spec version's document, which may be large: an isolate keeps a few dozen. */
export const targets = new Entries<RenderTarget>(64);
export const users = new Entries<CachedUser>(5000);

/** The key of a provider's user of the target's company. */
export const userKey = (target: Pick<RenderTarget, "integrationId" | "providerName" | "companyExternalId">, externalId: string) =>
  JSON.stringify([target.integrationId, target.providerName, target.companyExternalId, externalId]);

/** The render's identity rested on an entry that no longer holds: it starts again without the cache. */
export class StaleIdentity extends Error {
  constructor() {
    super("a cached render identity no longer holds");
    this.name = "StaleIdentity";
  }
}

const GUARD = `
  SELECT ($2::text IS NULL OR ${targetCurrent("$2")})
     AND ($3::text IS NULL OR ${appTokenLive("$3", "$1")})
     AND ($6::uuid IS NULL OR (
       EXISTS (
         SELECT 1 FROM external_users eu JOIN users u ON u.id = eu.user_id AND u.tenant_id = eu.tenant_id
          WHERE eu.tenant_id = $8 AND eu.provider = $4 AND eu.company_external_id = $5 AND eu.external_id = $7
            AND eu.user_id = $6 AND eu.is_active AND u.is_active)
       AND coalesce((SELECT version FROM access_versions WHERE tenant_id = $8), 0) = $9)) AS current`;

/**
 * Reads the guard (one statement, as the connecting role: `lookups`); when
 * it does not hold, drops the entries it stood for and throws StaleIdentity.
 */
export async function confirmIdentity(lookups: Sql, guard: IdentityGuard): Promise<void> {
  const { integrationId, tenantId, versions, tokenHash, user } = guard;
  const { rows } = await lookups.query<{ current: boolean }>(GUARD, [
    integrationId,
    versions ?? null,
    tokenHash ?? null,
    user?.provider ?? null,
    user?.companyExternalId ?? null,
    user?.userId ?? null,
    user?.externalId ?? null,
    tenantId,
    user?.accessVersion ?? null,
  ]);
  if (rows[0]?.current === true) return;
  if (versions !== undefined) targets.delete(integrationId);
  if (user) users.delete(user.key);
  throw new StaleIdentity();
}
