// The spec an app operation works on: the tenant's own, or one shared to it
// (404 otherwise), and the documents of its kept versions. The scope schemas
// a spec names resolve in the owner's tenant; a job bound to one of its slots
// must be visible to the tenant that binds it (its own, or shared to it), so
// a consumer never reaches an owner's job the owner did not share.
import type { SpecDocument } from "../definition/language/spec-schema";
import type { Sql, TenantDb } from "../db/client";
import { visibleJobs } from "../definition/jobs";
import type { Principal } from "../lib/principal";
import { ApiError, notFound } from "../lib/errors";
import type { JsonSchema } from "../lib/validate";
import { latestSchema } from "../schema/registry";
import { scopeFailed, type Scope, type ScopeRules } from "./config/scope";
import { versionInUse, type KeptVersion, type VersionInUse } from "./consent";

export interface SpecGrant {
  resource: string;
  actions: string[];
  resourceName?: string;
  resourceId?: string;
}

/** The parts of a spec document activation and config read. */

export type { SpecDocument };

/** What app services need besides the caller's tenant: who calls, and a handle on the spec owner's tenant. */
export interface AppDeps {
  tenant: TenantDb;
  caller: Principal;
  /** The tenant-confined handle of another tenant (the owner of a shared spec), for what the spec names there. */
  ownerTenant: (tenantId: string) => TenantDb;
}

/** What reading a spec needs: no caller (an app upload has none; its link is its authority). */
export type SpecDeps = Omit<AppDeps, "caller">;

type SpecRow = {
  id: string;
  tenant_id: string;
  name: string;
  version: number;
  spec_document: SpecDocument;
};

export class AppSpec {
  private readonly documents = new Map<number, Promise<SpecDocument | undefined>>();
  private readonly schemas = new Map<string, Promise<JsonSchema | undefined>>();

  private constructor(
    private readonly deps: SpecDeps,
    private readonly row: SpecRow,
  ) {
    this.documents.set(row.version, Promise.resolve(row.spec_document));
  }

  /** The spec, when the tenant owns it or it is shared to the tenant; else 404. */
  static async load(deps: SpecDeps, specId: string): Promise<AppSpec> {
    const spec = await AppSpec.find(deps, specId);
    if (!spec) throw notFound("App spec", specId);
    return spec;
  }

  /** The spec, when the tenant owns it or it is shared to the tenant. */
  static async find(deps: SpecDeps, specId: string): Promise<AppSpec | undefined> {
    const { rows } = await deps.tenant.sharedRead((sql) =>
      sql.query<SpecRow>(`SELECT id, tenant_id, name, version, spec_document FROM app_specs WHERE id = $1`, [specId]),
    );
    return rows[0] && new AppSpec(deps, rows[0]);
  }

  get id(): string {
    return this.row.id;
  }

  get name(): string {
    return this.row.name;
  }

  /** The tenant that owns the spec: where a shared spec's schemas and bound jobs live. */
  get ownerTenantId(): string {
    return this.row.tenant_id;
  }

  get latestVersion(): number {
    return this.row.version;
  }

  /** Whether another tenant owns the spec: then the activation here follows new versions only as far as its consent goes. */
  get shared(): boolean {
    return this.row.tenant_id !== this.deps.tenant.tenantId;
  }

  /**
   * The version an activation uses: the pinned one; else, on the owner's
   * own, the latest; else the newest that widens nothing past the accepted
   * one, with the latest held when it does.
   */
  async versionInUse(activation: { spec_version: number | null; accepted_version: number }): Promise<VersionInUse> {
    if (activation.spec_version !== null) return { version: activation.spec_version };
    if (!this.shared || activation.accepted_version === this.row.version) return { version: this.row.version };
    const kept = await this.deps.tenant.sharedRead((sql) => keptSince(sql, this.row.id, activation.accepted_version));
    for (const k of kept) this.documents.set(k.version, Promise.resolve(k.document));
    return versionInUse(kept[0], kept.slice(1));
  }

  /** The document of a kept version; 422 naming `spec_version` for one never kept. */
  async document(version: number): Promise<SpecDocument> {
    let doc = this.documents.get(version);
    if (!doc) {
      doc = this.deps.tenant
        .sharedRead((sql) =>
          sql.query<{ spec_document: SpecDocument }>(`SELECT spec_document FROM app_spec_versions WHERE spec_id = $1 AND version = $2`, [this.row.id, version]),
        )
        .then(({ rows }) => rows[0]?.spec_document);
      this.documents.set(version, doc);
    }
    const found = await doc;
    if (!found) {
      const errors = [`spec_version: spec ${this.row.id} has no version ${version}`];
      throw new ApiError("VALIDATION_FAILED", "Unknown spec version", { errors, validation_errors: errors });
    }
    return found;
  }

  /** A scope's definition values and schema in the given version; an unregistered schema name is 422. */
  async rules(version: number, scope: Scope): Promise<ScopeRules> {
    const doc = await this.document(version);
    const name = doc.configSchemas?.[scope];
    let schema: JsonSchema | undefined;
    if (typeof name === "string") {
      let resolved = this.schemas.get(name);
      if (!resolved) {
        resolved = this.deps.ownerTenant(this.row.tenant_id).tx(async (sql) => (await latestSchema(sql, name))?.schema as JsonSchema | undefined);
        this.schemas.set(name, resolved);
      }
      schema = await resolved;
      if (schema === undefined)
        throw scopeFailed(scope, [`configSchemas.${scope}: no schema named ${name} is registered`], `The ${scope} config schema ${name} is not registered`);
    }
    return { scope, definition: doc.config?.[scope], schema };
  }

  /**
   * Checks `job_bindings` as a write sends them: each key a slot of the
   * document (`jobs.<key>` null or `{}`), each job visible to the tenant
   * (definition/jobs.ts visibleJobs). Null (unbinding) is always allowed.
   */
  async checkBindings(version: number, bindings: Record<string, string | null> | undefined, field = "job_bindings"): Promise<void> {
    if (!bindings) return;
    const jobs = (await this.document(version)).jobs ?? {};
    const isSlot = (key: string) =>
      Object.hasOwn(jobs, key) && (jobs[key] === null || (typeof jobs[key] === "object" && Object.keys(jobs[key] as object).length === 0));
    const errors = Object.entries(bindings)
      .filter(([key, id]) => id !== null && !isSlot(key))
      .map(([key]) => `${field}.${key}: not a job slot of the spec (a key of jobs whose value is null or {})`);
    const wanted = [...new Set(Object.values(bindings).filter((id): id is string => id !== null))];
    const visible = new Set((await visibleJobs(this.deps.tenant, wanted)).map((job) => job.id));
    for (const [key, id] of Object.entries(bindings)) {
      if (id !== null && !visible.has(id))
        errors.push(`${field}.${key}: no job definition ${id} visible to this tenant (its own jobs, and those of workflows shared with it)`);
    }
    if (errors.length) throw new ApiError("VALIDATION_FAILED", "Job bindings failed validation", { errors, validation_errors: errors });
  }
}

/** The kept versions of a spec from `version` on, oldest first: what a consumer's activation chooses among. */
export async function keptSince<D extends SpecDocument = SpecDocument>(sql: Sql, specId: string, version: number): Promise<(KeptVersion & { document: D })[]> {
  const { rows } = await sql.query<KeptVersion & { document: D } & Record<string, unknown>>(
    `SELECT version, spec_document AS document FROM app_spec_versions WHERE spec_id = $1 AND version >= $2 ORDER BY version`,
    [specId, version],
  );
  return rows;
}
