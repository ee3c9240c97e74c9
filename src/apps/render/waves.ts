// A render's reads by waves (docs/performance.md, "Edge: renders by waves"):
// every read of one render, its context's and its sources', goes through one
// ReadWave (db/client.ts Database.readWave), so the reads that are ready at
// the same time (the config scopes beside the secret names, the independent
// sources of a page, a query's page beside its count) share one round trip,
// each answering as it would alone. Writes (a command's) keep their own
// transactions.
import type { ReadWave, TenantDb } from "../../db/client";

/** `tenant` whose owner-path reads (the query engine's, but a snapshot) go in `wave`. */
export function gatheredReads(tenant: TenantDb, wave: ReadWave): TenantDb {
  return {
    ...tenant,
    read: (fn, options) => (options?.snapshot ? tenant.read(fn, options) : fn(wave.owner(tenant.tenantId, tenant.access))),
    withAccess: (access) => gatheredReads(tenant.withAccess(access), wave),
  };
}

/** The tenant transaction a read-only helper asks for (`tx`), as one statement at a time in `wave`. */
export function gatheredTx(tenantId: string, wave: ReadWave): Pick<TenantDb, "tenantId" | "tx"> {
  return { tenantId, tx: (fn) => fn(wave.tenant(tenantId)) };
}
