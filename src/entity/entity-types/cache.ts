// Entity types by tenant and name, kept in the isolate between requests for
// the query engine: every query reads its types, and they change rarely.
// A cached type is only a guess: each type carries the row version it was
// read at (xmin, which every UPDATE changes), the page statement reads the
// current versions in its own snapshot (query/service.ts), and a query that
// finds one changed is planned again from types read afresh.
import { assertTenantRows, type TenantReader } from "../../db/client";
import { compiled } from "../../db/params";
import type { TypeConfig } from "./config";
import type { EntityType } from "./store";

interface TypeRow extends Record<string, unknown> {
  id: string;
  tenant_id: string;
  name: string;
  status: EntityType["status"];
  schema: EntityType["schema"];
  schema_name: string | null;
  config: TypeConfig;
  created_at: string;
  updated_at: string;
  version: string;
}

export interface VersionedType {
  type: EntityType;
  /** The row's xmin as text: every UPDATE of the type changes it. */
  version: string;
}

const TYPE_COLUMNS = "id, tenant_id, name, status, schema, schema_name, config, created_at, updated_at, xmin::text AS version";

function versioned({ version, ...row }: TypeRow): VersionedType {
  return {
    type: {
      id: row.id,
      name: row.name,
      status: row.status,
      schema: row.schema,
      schemaName: row.schema_name,
      config: row.config,
      createdAt: row.created_at,
      updatedAt: row.updated_at,
    },
    version,
  };
}

// Bounded, oldest first out: a Worker isolate serves many tenants.
const MAX_ENTRIES = 2000;
const cache = new Map<string, VersionedType>();

const keyOf = (tenantId: string, name: string) => `${tenantId}/${name}`;

function remember(tenantId: string, entry: VersionedType): void {
  const key = keyOf(tenantId, entry.type.name);
  cache.delete(key);
  cache.set(key, entry);
  if (cache.size > MAX_ENTRIES) cache.delete(cache.keys().next().value!);
}

/** Drops the entries of these type ids (the page statement found them changed). */
export function forgetTypes(tenantId: string, ids: Set<string>): void {
  for (const [key, entry] of cache) if (key.startsWith(`${tenantId}/`) && ids.has(entry.type.id)) cache.delete(key);
}

/**
 * One type by name or id for a write whose statements go out together: the
 * cached entry when `cached` allows and one is held (`cached` true in the
 * answer), else the type read now (and kept), with its version for the
 * write's statement to check (entities/service.ts).
 */
export async function versionedType(
  reader: TenantReader,
  ref: { type_id?: string; type_name?: string },
  cached: boolean,
): Promise<(VersionedType & { cached: boolean }) | undefined> {
  const { tenantId } = reader;
  if (cached) {
    let hit: VersionedType | undefined;
    if (ref.type_name !== undefined) hit = cache.get(keyOf(tenantId, ref.type_name));
    else for (const [key, entry] of cache) if (key.startsWith(`${tenantId}/`) && entry.type.id === ref.type_id) hit = entry;
    if (hit) return { ...hit, cached: true };
  }
  const { rows } = await reader.run<TypeRow>(
    compiled(`SELECT ${TYPE_COLUMNS} FROM entity_types WHERE tenant_id = $1::uuid AND ${ref.type_name !== undefined ? "name = $2::text" : "id = $2::uuid"}`, [
      tenantId,
      ref.type_name ?? ref.type_id,
    ]),
  );
  assertTenantRows(rows, tenantId);
  if (!rows[0]) return undefined;
  const entry = versioned(rows[0]);
  remember(tenantId, entry);
  return { ...entry, cached: false };
}

/**
 * Reads types by name for one query, from the cache when `cached`, and keeps
 * the versions of the types it answered from the cache, for the statement to
 * check (a type read afresh is as current as an uncached lookup).
 */
export class TypeReader {
  readonly fromCache = new Map<string, string>();
  private readonly tenantId: string;

  constructor(
    private readonly reader: TenantReader,
    /** Whether types may come from the isolate's cache (the caller then checks their versions). */
    readonly cached: boolean,
  ) {
    this.tenantId = reader.tenantId;
  }

  async read(names: Iterable<string>): Promise<Map<string, EntityType>> {
    const out = new Map<string, EntityType>();
    const missing: string[] = [];
    for (const name of new Set(names)) {
      const hit = this.cached ? cache.get(keyOf(this.tenantId, name)) : undefined;
      if (hit) {
        out.set(name, hit.type);
        this.fromCache.set(hit.type.id, hit.version);
      } else missing.push(name);
    }
    if (missing.length) {
      const { rows } = await this.reader.run<TypeRow>(
        compiled(`SELECT ${TYPE_COLUMNS} FROM entity_types WHERE tenant_id = $1::uuid AND name = ANY($2::text[])`, [this.tenantId, missing]),
      );
      assertTenantRows(rows, this.tenantId);
      for (const row of rows) {
        const entry = versioned(row);
        remember(this.tenantId, entry);
        out.set(entry.type.name, entry.type);
      }
    }
    return out;
  }
}
