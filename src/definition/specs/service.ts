// App specs: every accepted publish (create or PUT) checks the document
// (the publish checks of definition/checks/spec.ts, then the ones that need
// the database), stores it as written, records it as the spec's next
// immutable version and provisions its manifest, all in one transaction.
// Specs other tenants share with this one are readable here, never writable.
import { and, count, desc, eq, inArray, ne, sql as dsql } from "drizzle-orm";
import type { FromSchema } from "json-schema-to-ts";
import type { Sql, TenantDb } from "../../db/client";
import { pgCode, pgConstraint } from "../../db/client";
import { appSpecs, appSpecVersions, schemas, shares } from "../../db/schema";
import { ApiError, notFound } from "../../lib/errors";
import { isUuid } from "../../lib/ids";
import { offsetOf, paginated, type Page } from "../../lib/pagination";
import { capLines } from "../../lib/validate";
import { SHARED } from "../../lib/shared-marker";
import { existingTenants, manifestShares, reconcileManifests, resolveOwnResource } from "../../access/manifests/store";
import { specProblems, type SpecProblems } from "../checks/spec";
import { refused } from "../checks/layers";
import { child, issueLine, type Issue } from "../checks/collector";
import type { specBody } from "./schemas";
import { MAX_SHARES } from "../language/spec-schema";
import { isObject } from "../../lib/is-object";

export type SpecInput = FromSchema<typeof specBody>;

const columns = {
  id: appSpecs.id,
  name: appSpecs.name,
  description: appSpecs.description,
  version: appSpecs.version,
  spec_document: appSpecs.specDocument,
  created_at: appSpecs.createdAt,
  updated_at: appSpecs.updatedAt,
};

type SpecRow = {
  [K in keyof typeof columns]: K extends "spec_document" ? unknown : K extends "description" ? string | null : K extends "version" ? number : string;
};

/** A row as answered: one another tenant shares is marked so. */
function present(tenantId: string, { owner, ...row }: SpecRow & { owner: string }) {
  return owner === tenantId ? row : { ...row, ...SHARED };
}

function nameTaken(e: unknown, name: string): unknown {
  return pgCode(e) === "23505" && pgConstraint(e) === "app_specs_tenant_name_key" ? new ApiError("CONFLICT", `Spec ${name} already exists`, { name }) : e;
}

const names = (o: unknown): [string, string][] => (isObject(o) ? Object.entries(o).filter((e): e is [string, string] => typeof e[1] === "string") : []);

/**
 * The publish checks that read the database: each `configSchemas` name must
 * be a schema the owner has or receives, and each `shares` entry must name an
 * existing other tenant and a resource of the owner (`name`: the spec's own
 * name, which a `spec` entry may use before the spec is saved under it).
 */
async function databaseIssues(tenant: TenantDb, doc: Record<string, unknown>, name: string | undefined): Promise<Issue[]> {
  const scopes = names(doc.configSchemas);
  // A longer block is refused by the schema already; its lookups stay bounded all the same.
  const entries = manifestShares(doc.shares).slice(0, MAX_SHARES);
  if (!scopes.length && !entries.length) return [];
  return tenant.sharedRead(async (sql) => {
    const issues: Issue[] = [];
    const wanted = [...new Set(scopes.map(([, schema]) => schema))];
    const visible = wanted.length
      ? new Set((await sql.db.selectDistinct({ name: schemas.name }).from(schemas).where(inArray(schemas.name, wanted))).map((r) => r.name))
      : new Set<string>();
    for (const [scope, schema] of scopes) {
      if (!visible.has(schema))
        issues.push({
          path: child("configSchemas", scope),
          code: "unknown_schema",
          message: `names no schema registered in this tenant or shared with it (${schema})`,
        });
    }
    const tenants = await existingTenants(sql, [...new Set(entries.map((e) => e.share.tenant_id).filter(isUuid))]);
    for (const { index, share } of entries) {
      const at = child("shares", index);
      if (share.tenant_id === tenant.tenantId)
        issues.push({ path: `${at}.tenantId`, code: "share_own_tenant", message: "is the spec's own tenant; a share goes to another tenant" });
      // A tenantId that is not a uuid is the schema layer's issue already.
      else if (isUuid(share.tenant_id) && !tenants.has(share.tenant_id))
        issues.push({ path: `${at}.tenantId`, code: "share_unknown_tenant", message: `names no tenant (${share.tenant_id})` });
      issues.push(...(await resourceIssues(sql, tenant.tenantId, at, share, name)));
    }
    return issues;
  });
}

const RESOURCE_WORDS = { spec: "spec", entity_type: "entity type", schema: "schema" } as const;

async function resourceIssues(
  sql: Sql,
  tenantId: string,
  at: string,
  share: ReturnType<typeof manifestShares>[number]["share"],
  name: string | undefined,
): Promise<Issue[]> {
  const what = RESOURCE_WORDS[share.resource_type];
  if (share.resource_name === null) {
    return share.resource_type === "spec" ? [] : [{ path: `${at}.resourceName`, code: "required", message: `is required: the ${what} to share` }];
  }
  if (share.resource_type === "spec" && share.resource_name === name) return [];
  if (await resolveOwnResource(sql, tenantId, share.resource_type, share.resource_name)) return [];
  return [{ path: `${at}.resourceName`, code: "share_unknown_resource", message: `names no ${what} of this tenant (${share.resource_name})` }];
}

/** Every problem a publish of the document would refuse. */
async function publishProblems(tenant: TenantDb, value: unknown, name: string | undefined): Promise<SpecProblems> {
  const result = specProblems(value);
  if (!result.definition) return result;
  const seen = new Set(result.issues.map(issueLine));
  const more = (await databaseIssues(tenant, result.definition, name)).filter((issue) => !seen.has(issueLine(issue)));
  if (!more.length) return result;
  const issues = [...result.issues, ...more];
  return { ...result, issues, problems: capLines(issues.map(issueLine)) };
}

async function checkPublish(tenant: TenantDb, value: unknown, name: string): Promise<void> {
  const result = await publishProblems(tenant, value, name);
  if (result.problems.length || !result.definition) throw refused(result, "spec document", "app");
}

async function recordVersion(sql: Sql, tenantId: string, row: SpecRow): Promise<void> {
  await sql.db.insert(appSpecVersions).values({ tenantId, specId: row.id, version: row.version, specDocument: row.spec_document });
}

export async function createSpec(tenant: TenantDb, input: SpecInput) {
  await checkPublish(tenant, input.spec_document, input.name);
  try {
    return await tenant.tx(async (sql) => {
      const [row] = await sql.db
        .insert(appSpecs)
        .values({ tenantId: tenant.tenantId, name: input.name, description: input.description ?? null, specDocument: input.spec_document })
        .returning(columns);
      await recordVersion(sql, tenant.tenantId, row);
      await reconcileManifests(sql, tenant.tenantId);
      return row;
    });
  } catch (e) {
    throw nameTaken(e, input.name);
  }
}

/**
 * The caller's own spec, or the refusal: 403 for a spec another tenant shares
 * with it (read-only here), 404 for one it cannot see at all.
 */
async function refuseNotOwn(tenant: TenantDb, id: string, verb: string): Promise<never> {
  const [shared] = await tenant.sharedRead(({ db }) =>
    db
      .select({ id: appSpecs.id })
      .from(appSpecs)
      .where(and(eq(appSpecs.id, id), ne(appSpecs.tenantId, tenant.tenantId))),
  );
  if (shared) throw new ApiError("FORBIDDEN", `Spec ${id} is shared with this tenant read-only; only its owner may ${verb} it`, { spec_id: id });
  throw notFound("Spec", id);
}

async function ownSpecExists(tenant: TenantDb, id: string): Promise<boolean> {
  const [row] = await tenant.tx(({ db }) =>
    db
      .select({ id: appSpecs.id })
      .from(appSpecs)
      .where(and(eq(appSpecs.id, id), eq(appSpecs.tenantId, tenant.tenantId))),
  );
  return row !== undefined;
}

/** A publish replaces name, description and document and takes the next version; a refused one changes nothing. */
export async function updateSpec(tenant: TenantDb, id: string, input: SpecInput) {
  if (!(await ownSpecExists(tenant, id))) await refuseNotOwn(tenant, id, "update");
  await checkPublish(tenant, input.spec_document, input.name);
  try {
    return await tenant.tx(async (sql) => {
      // The row lock orders concurrent publishes, so each takes its own next version.
      const [current] = await sql.db
        .select({ id: appSpecs.id })
        .from(appSpecs)
        .where(and(eq(appSpecs.id, id), eq(appSpecs.tenantId, tenant.tenantId)))
        .for("update");
      if (!current) throw notFound("Spec", id);
      const [row] = await sql.db
        .update(appSpecs)
        .set({
          name: input.name,
          description: input.description ?? null,
          specDocument: input.spec_document,
          version: dsql`${appSpecs.version} + 1`,
          updatedAt: dsql`now()`,
        })
        .where(eq(appSpecs.id, id))
        .returning(columns);
      await recordVersion(sql, tenant.tenantId, row);
      await reconcileManifests(sql, tenant.tenantId);
      return row;
    });
  } catch (e) {
    throw nameTaken(e, input.name);
  }
}

/** Every problem a publish would refuse, nothing saved. */
export async function validateSpec(tenant: TenantDb, value: unknown) {
  const { issues } = await publishProblems(tenant, value, undefined);
  return { valid: issues.length === 0, issues };
}

const visibleColumns = { ...columns, owner: appSpecs.tenantId };

export async function getSpec(tenant: TenantDb, id: string) {
  const [row] = await tenant.sharedRead(({ db }) => db.select(visibleColumns).from(appSpecs).where(eq(appSpecs.id, id)));
  if (!row) throw notFound("Spec", id);
  return present(tenant.tenantId, row);
}

/** The caller's specs and those shared with it, newest first. */
export async function listSpecs(tenant: TenantDb, filter: { name?: string }, page: Page) {
  return tenant.sharedRead(async ({ db }) => {
    const where = filter.name === undefined ? undefined : eq(appSpecs.name, filter.name);
    const rows = await db
      .select(visibleColumns)
      .from(appSpecs)
      .where(where)
      .orderBy(desc(appSpecs.createdAt), desc(appSpecs.id))
      .limit(page.limit)
      .offset(offsetOf(page));
    const [{ total }] = await db.select({ total: count() }).from(appSpecs).where(where);
    return paginated(
      rows.map((row) => present(tenant.tenantId, row)),
      page,
      total,
    );
  });
}

async function assertVisible(sql: Sql, id: string): Promise<void> {
  const [spec] = await sql.db.select({ id: appSpecs.id }).from(appSpecs).where(eq(appSpecs.id, id));
  if (!spec) throw notFound("Spec", id);
}

export async function listVersions(tenant: TenantDb, id: string, page: Page) {
  return tenant.sharedRead(async (sql) => {
    await assertVisible(sql, id);
    const where = eq(appSpecVersions.specId, id);
    const rows = await sql.db
      .select({ version: appSpecVersions.version, created_at: appSpecVersions.createdAt })
      .from(appSpecVersions)
      .where(where)
      .orderBy(desc(appSpecVersions.version))
      .limit(page.limit)
      .offset(offsetOf(page));
    const [{ total }] = await sql.db.select({ total: count() }).from(appSpecVersions).where(where);
    return paginated(rows, page, total);
  });
}

export async function getVersion(tenant: TenantDb, id: string, version: number) {
  return tenant.sharedRead(async (sql) => {
    await assertVisible(sql, id);
    const [row] = await sql.db
      .select({ version: appSpecVersions.version, spec_document: appSpecVersions.specDocument, created_at: appSpecVersions.createdAt })
      .from(appSpecVersions)
      .where(and(eq(appSpecVersions.specId, id), eq(appSpecVersions.version, version)));
    if (!row) throw notFound(`Version ${version} of spec`, id);
    return row;
  });
}

/**
 * Refused while other tenants have activated the spec (row-level security
 * hides their activations, so a platform function counts them). Otherwise its
 * versions, the owner's own activation with its integrations and tokens
 * (foreign keys cascade), the shares of it and its manifest go with it.
 */
export async function deleteSpec(tenant: TenantDb, id: string): Promise<void> {
  if (!(await ownSpecExists(tenant, id))) await refuseNotOwn(tenant, id, "delete");
  await tenant.tx(async (sql) => {
    // Locked first: another tenant's activation must wait (its foreign key check) until this ends.
    const [spec] = await sql.db
      .select({ id: appSpecs.id })
      .from(appSpecs)
      .where(and(eq(appSpecs.id, id), eq(appSpecs.tenantId, tenant.tenantId)))
      .for("update");
    if (!spec) throw notFound("Spec", id);
    const { rows } = await sql.query<{ n: number }>("SELECT platform_spec_foreign_activations($1) AS n", [id]);
    const activations = rows[0].n;
    if (activations > 0) {
      throw new ApiError(
        "CONFLICT",
        `Spec ${id} is activated by ${activations} other tenant${activations === 1 ? "" : "s"}; it cannot be deleted while they use it`,
        { activations },
      );
    }
    await sql.db.delete(appSpecs).where(eq(appSpecs.id, id));
    await sql.db.delete(shares).where(and(eq(shares.tenantId, tenant.tenantId), eq(shares.resourceType, "spec"), eq(shares.resourceId, id)));
    await reconcileManifests(sql, tenant.tenantId);
  });
}
