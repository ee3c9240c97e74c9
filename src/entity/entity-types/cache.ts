// Entity types by tenant and name, kept in the isolate between requests for
// the query engine: every query reads its types, and they change rarely.
// A cached type is only a guess: each type carries the row version it was
// read at (xmin, which every UPDATE changes), the page statement reads the
// current versions in its own snapshot (query/service.ts), and a query that
// finds one changed is planned again from types read afresh.
import { and, getTableColumns, inArray, sql as dsql } from "drizzle-orm";
import type { Sql } from "../../db/client";
import { entityTypes } from "../../db/schema";
import { tenantOf, toEntityType, type EntityType } from "./store";

interface VersionedType {
  type: EntityType;
  version: string;
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
 * Reads types by name for one query, from the cache when `cached`, and keeps
 * the versions of the types it answered from the cache, for the statement to
 * check (a type read afresh is as current as an uncached lookup).
 */
export class TypeReader {
  readonly fromCache = new Map<string, string>();
  private readonly tenantId: string;

  constructor(
    private readonly sql: Sql,
    private readonly cached: boolean,
  ) {
    if (sql.tenantId === undefined) throw new Error("entity types are read for a tenant");
    this.tenantId = sql.tenantId;
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
      const rows = await this.sql.db
        .select({ ...getTableColumns(entityTypes), version: dsql<string>`xmin::text` })
        .from(entityTypes)
        .where(and(tenantOf(this.sql), inArray(entityTypes.name, missing)));
      for (const { version, ...row } of rows) {
        const type = toEntityType(row);
        remember(this.tenantId, { type, version });
        out.set(type.name, type);
      }
    }
    return out;
  }
}
