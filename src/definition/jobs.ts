// Published jobs: each publish of a name is that name's next version, with
// its own id; a workflow's reference steps bind to the latest one at save
// (bindings.ts).
import { count, desc, eq, inArray, sql as dsql } from "drizzle-orm";
import type { TenantDb } from "../db/client";
import { jobDefinitions } from "../db/schema";
import { notFound } from "../lib/errors";
import { offsetOf, paginated, type Page } from "../lib/pagination";
import { checkJobDefinition } from "./language/validate";

const columns = {
  id: jobDefinitions.id,
  name: jobDefinitions.name,
  version: jobDefinitions.version,
  status: jobDefinitions.status,
  definition_json: jobDefinitions.definitionJson,
  created_at: jobDefinitions.createdAt,
};

export async function publishJob(tenant: TenantDb, input: { name: string; definition_json: unknown }) {
  const definition = checkJobDefinition(input.definition_json);
  return tenant.tx(async ({ db, query }) => {
    // Serialise publishes of one name so versions never collide.
    await query("SELECT pg_advisory_xact_lock(hashtext($1))", [`job:${tenant.tenantId}:${input.name}`]);
    const [{ next }] = await db
      .select({ next: dsql<number>`coalesce(max(${jobDefinitions.version}), 0) + 1`.mapWith(Number) })
      .from(jobDefinitions)
      .where(eq(jobDefinitions.name, input.name));
    const [row] = await db
      .insert(jobDefinitions)
      .values({ tenantId: tenant.tenantId, name: input.name, version: next, definitionJson: definition })
      .returning(columns);
    return row;
  });
}

export async function getJob(tenant: TenantDb, id: string) {
  const [row] = await tenant.tx(({ db }) => db.select(columns).from(jobDefinitions).where(eq(jobDefinitions.id, id)));
  if (!row) throw notFound("Job", id);
  return row;
}

/**
 * The jobs of `ids` the tenant may bind and run: its own, and another
 * tenant's that a workflow shared with it references. The row policy of
 * job_definitions decides (migrations/0013), so a binding's check and its
 * run-time lookup cannot disagree.
 */
export async function visibleJobs(tenant: TenantDb, ids: string[]) {
  if (!ids.length) return [];
  return tenant.sharedRead(({ db }) => db.select(columns).from(jobDefinitions).where(inArray(jobDefinitions.id, ids)));
}

/** Every version, by name and newest version first. */
export async function listJobs(tenant: TenantDb, filter: { name?: string }, page: Page) {
  return tenant.tx(async ({ db }) => {
    const where = filter.name === undefined ? undefined : eq(jobDefinitions.name, filter.name);
    const rows = await db
      .select(columns)
      .from(jobDefinitions)
      .where(where)
      .orderBy(jobDefinitions.name, desc(jobDefinitions.version))
      .limit(page.limit)
      .offset(offsetOf(page));
    const [{ total }] = await db.select({ total: count() }).from(jobDefinitions).where(where);
    return paginated(rows, page, total);
  });
}
