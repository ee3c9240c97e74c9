// Entities (docs/api.md, Entities): create, read, replace, patch, delete. Every
// write validates against the type's schema, keeps identifier_key in step, and
// records its event in the same transaction.
import type { Sql, TenantDb } from "../../db/client";
import { pgCode } from "../../db/client";
import { ApiError, notFound } from "../../lib/errors";
import { offsetOf, paginated, type Page } from "../../lib/pagination";
import { check, validationFailed } from "../../lib/validate";
import { entitySnapshot, eventIdsSql, recordEvents, writtenEventsSql, type NewEvent } from "../../db/outbox";
import { forgetTypes, versionedType } from "../entity-types/cache";
import { findType, requireActive, requireType, type EntityType } from "../entity-types/store";
import { confineRow } from "../../db/entity-access";
import { Params } from "../../db/params";
import { resolveShared, sharesFrom } from "../shared";
import { loadRelationships, type IncludeSpec } from "../relationships/include";
import { identifierKey } from "./identifier-key";
import { oversizedAttributes } from "./index-limits";
import { lockKeys, retryKeyRace } from "./key-lock";
import { absorb, type MergeCardinality } from "./merge";
import { ENTITY_COLUMNS, presentEntity, type EntityRow } from "./rows";

export interface EntityDeps {
  tenant: TenantDb;
  /** Hands committed event ids to the queue (after the transaction). */
  publish(eventIds: string[]): void;
}

export function validateAttributes(type: Pick<EntityType, "name" | "schema" | "config">, attributes: Record<string, unknown>, at = "attributes") {
  const errors = check(type.schema, attributes, at);
  if (errors.length) throw validationFailed(errors, `Attributes do not match the schema of ${type.name}`);
  const oversized = oversizedAttributes(type.config.indexed_attributes, attributes, at);
  if (oversized.length) throw validationFailed(oversized, "Indexed attributes too large to index");
}

const snapshotOf = (row: EntityRow) =>
  entitySnapshot({
    id: row.id,
    name: row.name,
    typeId: row.type_id,
    typeName: row.type_name,
    attributes: row.attributes,
    identifierKey: row.identifier_key,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  });

function event(row: EntityRow, action: NewEvent["action"], extra: Record<string, unknown> = {}, suppressed = false): NewEvent {
  return { entityId: row.id, entityTypeId: row.type_id, action, suppressed, payload: { entity: snapshotOf(row), ...extra } };
}

async function loadEntity(sql: Sql, id: string, lock = false): Promise<(EntityRow & { tenant_id: string }) | undefined> {
  const { rows } = await sql.query<EntityRow & { tenant_id: string } & Record<string, unknown>>(
    `SELECT ${ENTITY_COLUMNS}, e.tenant_id FROM entities e JOIN entity_types t ON t.id = e.type_id WHERE e.id = $1 AND e.deleted_at IS NULL${lock ? " FOR UPDATE OF e" : ""}`,
    [id],
  );
  return rows[0];
}

/**
 * The answer to a write on rows this tenant does not hold: 403 when one of
 * them is shared with it (shared rows are read-only), 404 otherwise.
 */
export async function refuseMissing(tenant: TenantDb, ids: string[]): Promise<never> {
  await refuseShared(tenant, ids);
  throw notFound("Entity", ids[0]);
}

/** 403 when one of `ids` is a row another tenant shares with this one (read-only here). */
export async function refuseShared(tenant: TenantDb, ids: string[]): Promise<void> {
  const { rows } = await tenant.sharedRead((sql) =>
    sql.query<{ id: string }>("SELECT id FROM entities WHERE id = ANY($1::uuid[]) AND deleted_at IS NULL AND tenant_id <> $2", [ids, tenant.tenantId]),
  );
  if (rows.length) throw new ApiError("FORBIDDEN", `Entity ${rows[0].id} is shared with this tenant read-only`, { entity_id: rows[0].id });
}

function duplicateKey(type: EntityType, key: string, existingId?: string) {
  return new ApiError("CONFLICT", `An entity of type ${type.name} with identifier_key ${key} already exists`, {
    identifier_key: key,
    ...(existingId ? { existing_entity_id: existingId } : {}),
  });
}

/**
 * A create in one round trip: the type comes from the isolate's cache (or is
 * read first, one more trip), the attributes are checked here against it,
 * and one statement writes the row, its event and its outbox row, on the
 * condition that the type is still the version checked (its xmin) and active.
 * A type changed since is read afresh and the create runs again; a taken
 * identifier_key writes nothing and answers the row that holds it.
 */
export async function createEntity(deps: EntityDeps, input: { type_name?: string; type_id?: string; name: string; attributes: Record<string, unknown> }) {
  const { tenant } = deps;
  for (let attempt = 0; attempt < 2; attempt++) {
    const known = await tenant.read((reader) => versionedType(reader, input, attempt === 0));
    if (!known) throw notFound("Entity type", input.type_id ?? input.type_name);
    const { type, version } = known;
    let key: string;
    try {
      requireActive(type);
      tenant.access.requireType("create", type.name);
      validateAttributes(type, input.attributes);
      key = identifierKey(type.config.identifier_key, input.attributes);
    } catch (e) {
      // A refusal by a cached type may be the cache's: decided again by the type as it is now.
      if (!known.cached) throw e;
      forgetTypes(tenant.tenantId, new Set([type.id]));
      continue;
    }
    const [written, holder] = await tenant
      .batch([
        {
          text: `WITH t AS (
                   SELECT id, name FROM entity_types WHERE id = $2::uuid AND xmin::text = $6::text AND status = 'active'
                 ), w AS (
                   INSERT INTO entities AS e (tenant_id, type_id, name, attributes, identifier_key)
                   SELECT $1::uuid, t.id, $3::text, $4::jsonb, $5::text FROM t
                   ON CONFLICT (tenant_id, type_id, identifier_key) WHERE deleted_at IS NULL DO NOTHING
                   RETURNING ${ENTITY_COLUMNS.replace("t.name AS type_name", "$7::text AS type_name")}
                 ), ${writtenEventsSql({ rows: "w", tenant: "$1::uuid", action: "'created'", suppressed: "false" })}
                 SELECT w.*, ${eventIdsSql} AS event_ids, EXISTS (SELECT 1 FROM t) AS type_current
                   FROM (SELECT 1) one LEFT JOIN w ON true`,
          values: [tenant.tenantId, type.id, input.name, JSON.stringify(input.attributes), key, version, type.name],
        },
        // Its own statement, so its snapshot sees a row a concurrent create committed while the insert waited on it.
        { text: "SELECT id FROM entities WHERE type_id = $1 AND identifier_key = $2 AND deleted_at IS NULL", values: [type.id, key] },
      ])
      .catch((e) => {
        if (pgCode(e) === "23505") throw new ApiError("CONFLICT", "An entity with this identifier_key already exists");
        throw e;
      });
    const row = written.rows[0] as EntityRow & { event_ids: string[] | null; type_current: boolean };
    if (row.id) {
      deps.publish(row.event_ids ?? []);
      return presentEntity(row);
    }
    if (row.type_current) throw duplicateKey(type, key, holder.rows[0]?.id);
    forgetTypes(tenant.tenantId, new Set([type.id]));
  }
  throw new ApiError({ code: "CONCURRENT_MODIFICATION" }, "The entity type changed while the entity was being created; retry the request");
}

export interface IncludeQuery {
  include?: string[];
  include_rule_ids?: string[];
  include_specs?: { type_name: string; rule_name?: string; limit?: number }[];
  max_relationships?: number;
}

/** The relationship loads a read asks for, or null when it asks for none. */
export function includeSpecs(q: IncludeQuery, defaultMax: number): IncludeSpec[] | null {
  const max = q.max_relationships ?? defaultMax;
  if (q.include_specs?.length) {
    return q.include_specs.map((s) => ({
      typeNames: [s.type_name],
      ruleNames: s.rule_name ? [s.rule_name] : null,
      ruleIds: q.include_rule_ids ?? null,
      limit: Math.min(s.limit ?? max, max),
    }));
  }
  if (q.include?.length || q.include_rule_ids?.length) {
    return [{ typeNames: q.include?.length ? q.include : null, ruleIds: q.include_rule_ids ?? null, limit: max }];
  }
  return null;
}

export const GET_MAX_RELATIONSHIPS = 1000;
export const LIST_MAX_RELATIONSHIPS = 100;

/** One entity, the caller's own or one shared with its tenant; 404 when the caller may not read it. */
export async function getEntity(tenant: TenantDb, id: string, q: IncludeQuery) {
  return tenant.sharedRead(async (sql) => {
    const row = await loadEntity(sql, id);
    if (!row || !tenant.access.allowsRow("read", row.type_name, row.id)) throw notFound("Entity", id);
    const shared = row.tenant_id !== tenant.tenantId;
    const specs = includeSpecs(q, GET_MAX_RELATIONSHIPS);
    const scope = tenant.access.readScope(
      row.tenant_id,
      undefined,
      shared ? await sharesFrom({ run: sql.run, tenantId: tenant.tenantId }, row.tenant_id) : null,
    );
    const rels = specs ? (await loadRelationships(sql, scope, [id], specs)).get(id) : undefined;
    return presentEntity(row, rels, shared);
  });
}

/**
 * The rows of a type, by name: the caller's own type or, when it has none, a
 * type another tenant shares with it (then only the shared rows, marked so).
 */
export async function listEntities(tenant: TenantDb, q: IncludeQuery & { type_name: string }, page: Page) {
  return tenant.sharedRead(async (sql) => {
    const runner = { run: sql.run, tenantId: tenant.tenantId };
    const own = await findType(sql, { type_name: q.type_name });
    // Resolved afresh, not from the isolate's cache: the list reads the owner's type by id, not by name.
    const theirs = own ? null : await resolveShared(runner, q.type_name, undefined);
    if (!own && !theirs) throw notFound("Entity type", q.type_name);
    const typeId = own?.id ?? theirs!.typeId;
    const owner = theirs?.owner ?? tenant.tenantId;
    const scope = tenant.access.readScope(owner, q.type_name, theirs?.shared ?? null);
    const params = new Params(4);
    const confined = confineRow(scope, "e", params, { id: typeId, name: q.type_name });
    const where = `e.type_id = $1 AND e.deleted_at IS NULL${confined ? ` AND ${confined}` : ""}`;
    const { rows } = await sql.query<EntityRow & Record<string, unknown>>(
      `SELECT ${ENTITY_COLUMNS} FROM entities e JOIN entity_types t ON t.id = e.type_id WHERE ${where} ORDER BY e.created_at, e.id LIMIT $2 OFFSET $3`,
      [typeId, page.limit, offsetOf(page), ...params.values],
    );
    const { rows: counted } = await sql.query<{ total: number }>(
      `SELECT count(*)::int AS total FROM entities e WHERE ${where} AND $2::int IS NOT NULL AND $3::int IS NOT NULL`,
      [typeId, page.limit, offsetOf(page), ...params.values],
    );
    const specs = includeSpecs(q, LIST_MAX_RELATIONSHIPS);
    const rels = specs
      ? await loadRelationships(
          sql,
          scope,
          rows.map((r) => r.id),
          specs,
        )
      : undefined;
    return paginated(
      rows.map((r) => presentEntity(r, rels?.get(r.id), theirs !== null)),
      page,
      counted[0].total,
    );
  });
}

interface RewriteOptions {
  name?: string;
  attributes: Record<string, unknown>;
  merge_on_conflict?: boolean;
  merge_cardinality?: MergeCardinality;
  /** Compare-and-swap on updated_at (PATCH). */
  expectedUpdatedAt?: string;
}

/**
 * The write PUT and PATCH share: validate, recompute the key, merge on a key
 * collision, update only if something changed, record the events.
 */
async function rewrite(sql: Sql, current: EntityRow, opts: RewriteOptions): Promise<{ row: EntityRow; events: NewEvent[] }> {
  const type = await requireType(sql, { type_id: current.type_id });
  validateAttributes(type, opts.attributes);
  const key = identifierKey(type.config.identifier_key, opts.attributes);
  const name = opts.name ?? current.name;
  const events: NewEvent[] = [];

  if (key !== current.identifier_key) {
    await lockKeys(sql, type.id, [key]);
    const { rows } = await sql.query<{ id: string }>(
      "SELECT id FROM entities WHERE type_id = $1 AND identifier_key = $2 AND deleted_at IS NULL AND id <> $3 FOR UPDATE",
      [type.id, key, current.id],
    );
    const incumbent = rows[0];
    if (incumbent) {
      if (opts.merge_on_conflict === false) throw duplicateKey(type, key, incumbent.id);
      await absorb(sql, current.id, incumbent.id, opts.merge_cardinality ?? "raise");
      events.push({ entityId: current.id, entityTypeId: type.id, action: "merged", suppressed: false, payload: { merged_entity_id: incumbent.id } });
    }
  }

  const { rows } = await sql.query<EntityRow & Record<string, unknown>>(
    `UPDATE entities e SET name = $2, attributes = $3::jsonb, identifier_key = $4, updated_at = now()
       FROM entity_types t
      WHERE e.id = $1 AND t.id = e.type_id AND e.deleted_at IS NULL
        AND ($5::timestamptz IS NULL OR e.updated_at = $5::timestamptz)
        AND (e.name IS DISTINCT FROM $2 OR e.attributes IS DISTINCT FROM $3::jsonb OR e.identifier_key IS DISTINCT FROM $4)
      RETURNING ${ENTITY_COLUMNS}`,
    [current.id, name, JSON.stringify(opts.attributes), key, opts.expectedUpdatedAt ?? null],
  );
  let row: EntityRow = rows[0];
  if (!row) {
    // Nothing updated: either nothing changed, or the compare-and-swap lost.
    const now = await loadEntity(sql, current.id);
    if (!now) throw notFound("Entity", current.id);
    if (opts.expectedUpdatedAt && now.updated_at !== opts.expectedUpdatedAt) throw concurrentModification(current.id);
    row = now;
  } else {
    events.push(event(row, "updated", { previous: { name: current.name, attributes: current.attributes, identifier_key: current.identifier_key } }));
  }
  for (const e of events) if (e.action === "merged") e.payload = { entity: snapshotOf(row), ...e.payload };
  return { row, events };
}

function concurrentModification(id: string) {
  return new ApiError({ code: "CONCURRENT_MODIFICATION", entity_id: id }, "The entity changed since it was read");
}

/** What the first round trip of a batched rewrite reads: the row, its version, and its type as it is now. */
interface RowWithType extends EntityRow {
  version: string;
  type_version: string;
  type_schema: EntityType["schema"];
  type_config: EntityType["config"];
}

/**
 * A rewrite in two round trips: the row and its type read in one statement,
 * then the update, its event and its outbox row in one statement conditioned
 * on the row and the type being the versions read (their xmin), with a
 * second statement reading the row's version after it. Answers "interactive"
 * when the rewrite needs the transaction of commitRewrite: a new
 * identifier_key (locks, a possible merge), or a PUT that lost the row to
 * another writer twice (the interactive path waits for it on the row lock).
 */
async function rewriteInBatch(deps: EntityDeps, id: string, build: (current: EntityRow) => RewriteOptions): Promise<EntityRow | "interactive" | null> {
  const { tenant } = deps;
  for (let attempt = 0; attempt < 2; attempt++) {
    const [read] = await tenant.batch([
      {
        text: `SELECT ${ENTITY_COLUMNS}, e.xmin::text AS version, t.xmin::text AS type_version, t.schema AS type_schema, t.config AS type_config
                 FROM entities e JOIN entity_types t ON t.id = e.type_id WHERE e.id = $1 AND e.deleted_at IS NULL`,
        values: [id],
      },
    ]);
    const current = read.rows[0] as RowWithType | undefined;
    if (!current) return null;
    tenant.access.requireRow("update", current);
    const opts = build(current);
    const type = { name: current.type_name, schema: current.type_schema, config: current.type_config };
    validateAttributes(type, opts.attributes);
    const key = identifierKey(type.config.identifier_key, opts.attributes);
    if (key !== current.identifier_key) return "interactive";
    const name = opts.name ?? current.name;
    const previous = `jsonb_build_object('previous', jsonb_build_object('name', $6::text, 'attributes', $7::jsonb, 'identifier_key', w.identifier_key))`;
    const [written, after] = await tenant.batch([
      {
        text: `WITH w AS (
                 UPDATE entities e SET name = $2, attributes = $3::jsonb, updated_at = now()
                   FROM entity_types t
                  WHERE e.id = $1 AND t.id = e.type_id AND e.deleted_at IS NULL AND e.xmin::text = $4::text AND t.xmin::text = $5::text
                    AND (e.name IS DISTINCT FROM $2 OR e.attributes IS DISTINCT FROM $3::jsonb)
                  RETURNING ${ENTITY_COLUMNS}
               ), ${writtenEventsSql({ rows: "w", tenant: "$8::uuid", action: "'updated'", suppressed: "false", extra: previous })}
               SELECT w.*, ${eventIdsSql} AS event_ids FROM w`,
        values: [
          id,
          name,
          JSON.stringify(opts.attributes),
          current.version,
          current.type_version,
          current.name,
          JSON.stringify(current.attributes),
          tenant.tenantId,
        ],
      },
      // Its own statement, so its snapshot sees a write that committed while the update waited on the row.
      {
        text: `SELECT e.xmin::text AS version, t.xmin::text AS type_version
                 FROM entities e JOIN entity_types t ON t.id = e.type_id WHERE e.id = $1 AND e.deleted_at IS NULL`,
        values: [id],
      },
    ]);
    const row = written.rows[0] as (EntityRow & { event_ids: string[] | null }) | undefined;
    if (row) {
      deps.publish(row.event_ids ?? []);
      return row;
    }
    const now = after.rows[0] as { version: string; type_version: string } | undefined;
    if (!now) return null;
    // Nothing updated and nothing changed since the read: the rewrite changes nothing.
    if (now.version === current.version && now.type_version === current.type_version) return current;
    // The row changed under a compare-and-swap: the swap lost. A changed type, or a PUT, reads again.
    if (now.version !== current.version && opts.expectedUpdatedAt) throw concurrentModification(id);
  }
  return "interactive";
}

async function commitRewrite(deps: EntityDeps, id: string, build: (current: EntityRow) => RewriteOptions, lock: boolean) {
  const batched = await rewriteInBatch(deps, id, build);
  if (batched === null) return refuseMissing(deps.tenant, [id]);
  if (batched !== "interactive") return presentEntity(batched);
  const done = await retryKeyRace(() =>
    deps.tenant.tx(async (sql) => {
      const current = await loadEntity(sql, id, lock);
      if (!current) return null;
      deps.tenant.access.requireRow("update", current);
      const { row, events } = await rewrite(sql, current, build(current));
      return { row, eventIds: await recordEvents(sql, deps.tenant.tenantId, events) };
    }),
  );
  if (!done) return refuseMissing(deps.tenant, [id]);
  deps.publish(done.eventIds);
  return presentEntity(done.row);
}

export function replaceEntity(
  deps: EntityDeps,
  id: string,
  input: { name?: string; attributes: Record<string, unknown>; merge_on_conflict?: boolean; merge_cardinality?: MergeCardinality },
) {
  return commitRewrite(deps, id, () => ({ ...input }), true);
}

/** Top-level shallow merge: a field set to null is removed; nested objects are replaced whole. */
export function mergeTopLevel(current: Record<string, unknown>, patch: Record<string, unknown>): Record<string, unknown> {
  const out = { ...current };
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) delete out[k];
    else out[k] = v;
  }
  return out;
}

export function patchEntity(deps: EntityDeps, id: string, input: { attributes: Record<string, unknown>; expected_updated_at?: string }) {
  return commitRewrite(
    deps,
    id,
    (current) => {
      if (input.expected_updated_at !== undefined && Date.parse(input.expected_updated_at) !== Date.parse(current.updated_at)) {
        throw concurrentModification(id);
      }
      // The swap is checked against the row as read here, so a write that lands in between is caught.
      return { attributes: mergeTopLevel(current.attributes, input.attributes), expectedUpdatedAt: current.updated_at };
    },
    false,
  );
}

/**
 * Soft delete with cascade to live links; `deleted` events are recorded
 * suppressed (kept, never dispatched). The delete, the unlinking and the
 * events go as one statement, one round trip; a caller whose entity access is
 * narrowed to some types or rows has the live rows among `ids` read and each
 * checked for the action first (db/entity-access.ts), one round trip more, and
 * only the rows checked are deleted.
 */
export async function deleteEntities(deps: EntityDeps, ids: string[]): Promise<EntityRow[]> {
  let checked = ids;
  if (!deps.tenant.access.allowsEveryRow("delete")) {
    const [found] = await deps.tenant.batch([
      {
        text: "SELECT e.id, t.name AS type_name FROM entities e JOIN entity_types t ON t.id = e.type_id WHERE e.id = ANY($1::uuid[]) AND e.deleted_at IS NULL",
        values: [ids],
      },
    ]);
    const rows = found.rows as { id: string; type_name: string }[];
    for (const row of rows) deps.tenant.access.requireRow("delete", row);
    checked = rows.map((r) => r.id);
  }
  if (!checked.length) return [];
  const [deleted] = await deps.tenant.batch([
    {
      text: `WITH d AS (
               UPDATE entities SET deleted_at = now() WHERE id = ANY($1::uuid[]) AND deleted_at IS NULL
               RETURNING id, name, type_id, attributes, identifier_key, created_at, updated_at, deleted_at
             ), w AS (
               SELECT d.*, t.name AS type_name FROM d JOIN entity_types t ON t.id = d.type_id
             ), unlinked AS (
               UPDATE relationships SET deleted_at = now()
                WHERE deleted_at IS NULL AND (from_entity_id IN (SELECT id FROM d) OR to_entity_id IN (SELECT id FROM d))
             ), ${writtenEventsSql({ rows: "w", tenant: "$2::uuid", action: "'deleted'", suppressed: "true" })}
             SELECT w.id, w.name, w.type_id, w.type_name, w.attributes, w.identifier_key, w.created_at, w.updated_at, w.deleted_at
               FROM w`,
      values: [checked, deps.tenant.tenantId],
    },
  ]);
  return deleted.rows as EntityRow[];
}

export async function deleteEntity(deps: EntityDeps, id: string) {
  const [row] = await deleteEntities(deps, [id]);
  if (!row) return refuseMissing(deps.tenant, [id]);
  return { id: row.id, deleted: true as const, deleted_at: row.deleted_at };
}

export async function bulkDeleteEntities(deps: EntityDeps, ids: string[]) {
  const unique = [...new Set(ids)];
  await refuseShared(deps.tenant, unique);
  const deleted = new Set((await deleteEntities(deps, unique)).map((r) => r.id));
  return { deleted: unique.filter((id) => deleted.has(id)), not_found: unique.filter((id) => !deleted.has(id)) };
}
