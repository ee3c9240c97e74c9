// POST /entity/entities/upsert: validate everything up front, check what
// must hold before any write (by-id targets exist, `raise` keys are free,
// relationship targets resolve), then commit in batches of 1000 rows with one
// statement per batch, rows by key on two connections at once when there are
// more than 1000 of them. An error after a batch committed says which rows
// stay written.
import { pgCode, pgConstraint, type Sql, type TenantDb } from "../../db/client";
import { compiled } from "../../db/params";
import { ApiError, notFound, type PlainDetails } from "../../lib/errors";
import { recordEvents, type NewEvent } from "../../db/outbox";
import { requireActive, requireType, type EntityType } from "../entity-types/store";
import { forgetTypes, versionedType } from "../entity-types/cache";
import type { EntityDeps } from "../entities/service";
import { absorb } from "../entities/merge";
import { lockKeys, retryKeyRace } from "../entities/key-lock";
import { dedupe, loadBatch, prepareRows, type PreparedRow, type PreparedRows } from "./rows";
import { LINK_BATCH, planLinks, writeLinks, type PlannedLink, type Unresolved } from "./relationships";
import type { RowSource } from "./body-scan";
import { byKeyStatement, summarize, writeById, writeByKey, type BatchResult, type BatchRow } from "./write";
import type { FromSchema } from "json-schema-to-ts";
import type { upsertBody } from "./schemas";

export const COMMIT_BATCH = 1000;

/** The body's envelope: its rows are read one by one (body-scan.ts). */
export type UpsertInput = Omit<FromSchema<typeof upsertBody>, "data">;

export interface UpsertResult {
  created: number;
  updated: number;
  unchanged: number;
  ignored: number;
  ids: string[];
  errors: Unresolved[];
}

interface Preflight {
  links: PlannedLink[];
  unresolved: Unresolved[];
}

/**
 * Runs `work` on every item, one lane per handle, each lane taking the next
 * item as it finishes one: by-key batches hold disjoint keys, so they need no
 * order among themselves, and while one batch's statement runs on Postgres the
 * other lane's can run beside it. After a failure no lane starts another item;
 * the items in flight settle before the first failure is thrown, so what
 * committed is known.
 */
async function inLanes<T, H>(items: T[], handles: H[], work: (handle: H, item: T) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: { error: unknown } | undefined;
  await Promise.all(
    handles.map(async (handle) => {
      while (!failure && next < items.length) {
        const item = items[next++];
        try {
          await work(handle, item);
        } catch (error) {
          failure ??= { error };
        }
      }
    }),
  );
  if (failure) throw failure.error;
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

/** By-id row index → the live entity (another one) holding the row's new key. */
async function keyHolders(sql: Sql, typeId: string, rows: { index: number; id: string; key: string }[]): Promise<Map<number, string>> {
  const { rows: held } = await sql.query<{ ord: number; holder: string }>(
    `SELECT i.ord, e.id AS holder FROM unnest($1::int[], $2::uuid[], $3::text[]) AS i(ord, id, key)
       JOIN entities e ON e.type_id = $4 AND e.identifier_key = i.key AND e.deleted_at IS NULL AND e.id <> i.id`,
    [rows.map((r) => r.index), rows.map((r) => r.id), rows.map((r) => r.key), typeId],
  );
  return new Map(held.map((h) => [h.ord, h.holder]));
}

function mergeRefused(collisions: Map<number, string>) {
  return new ApiError("CONFLICT", "A row's new identifier_key belongs to another live entity and merge_on_conflict is false", {
    indexes: [...collisions.keys()].slice(0, 20),
  });
}

/** What an error answered after a commit reports as written (`details.committed`). */
interface Committed {
  /** Transactions committed before the error: entity batches, then link batches. */
  batches: number;
  /** Request positions whose entity was written (created, updated or left as it was). */
  rows: number;
  /** Those positions as inclusive [first, last] ranges, in order. */
  ranges: [number, number][];
  /** Links inserted by the committed link batches. */
  links: number;
}

/** Sorted positions as inclusive ranges. */
function rangesOf(positions: number[]): [number, number][] {
  const out: [number, number][] = [];
  for (const p of positions) {
    const last = out[out.length - 1];
    if (last && last[1] === p - 1) last[1] = p;
    else out.push([p, p]);
  }
  return out;
}

/** The ranges in a message, by the rows' own labels; many ranges are left to the details. */
function rangesText(ranges: [number, number][], label: (i: number) => string): string {
  if (ranges.length > 3) return `in ${ranges.length} ranges, listed in details.committed.ranges`;
  return ranges.map(([a, b]) => (a === b ? label(a) : `${label(a)} to ${label(b)}`)).join(", ");
}

/**
 * An error met after some batches committed, saying which rows stay written
 * (the committed batches are not undone). Errors other than ApiError stay
 * 500s, logged where they are rendered.
 */
function afterCommit(e: unknown, committed: Committed, count: number, label: (i: number) => string): unknown {
  if (!(e instanceof ApiError)) return e;
  const batches = `${committed.batches} committed batch${committed.batches === 1 ? "" : "es"}`;
  const links = committed.links ? `, with ${committed.links} link${committed.links === 1 ? "" : "s"},` : "";
  const message = `${e.message.replace(/\.$/, "")}; ${committed.rows} of ${count} rows (${rangesText(committed.ranges, label)}) were already written${links} by ${batches} and stay written`;
  // The error's own details, detail code included, gain `committed`.
  return new ApiError(e.code, message, { ...e.details, committed } as PlainDetails);
}

/** The type an upsert writes: active, and open to the caller for both create and update. */
export async function upsertType(deps: EntityDeps, ref: { type_name?: string; type_id?: string }): Promise<EntityType> {
  const type = await deps.tenant.tx((sql) => requireType(sql, ref));
  allowUpsert(deps, type);
  return type;
}

function refuseRaise(keys: string[]) {
  return new ApiError("CONFLICT", "Rows match existing entities and on_conflict is raise; nothing was written", { identifier_keys: keys });
}

/** The checks an upsert makes of its type before reading rows by it. */
function allowUpsert(deps: EntityDeps, type: EntityType): void {
  requireActive(type);
  deps.tenant.access.requireType("create", type.name);
  deps.tenant.access.requireType("update", type.name);
}

/**
 * Rows are read from `source` on demand (see body-scan.ts). The common small
 * upsert (one batch, every row matched by key, no inline relationships) goes
 * as one tenant batch with the type from the isolate's cache (or read first,
 * one more trip): its statement writes only while the type is the version
 * its rows were checked by, and is run again from the type read afresh when
 * it changed. Every other upsert reads the type afresh and takes writeRows.
 */
export async function upsertEntities(deps: EntityDeps, input: UpsertInput, source: RowSource): Promise<UpsertResult> {
  const { tenant } = deps;
  if (source.count === 0 || source.count > COMMIT_BATCH) {
    const type = await upsertType(deps, input);
    return writeRows(deps, input, type, prepareRows(type, source), source);
  }
  for (let attempt = 0; attempt < 2; attempt++) {
    const known = await tenant.read((reader) => versionedType(reader, input, attempt === 0));
    if (!known) throw notFound("Entity type", input.type_id ?? input.type_name);
    const { type, version } = known;
    let prepared: PreparedRows;
    try {
      allowUpsert(deps, type);
      prepared = prepareRows(type, source);
    } catch (e) {
      // A refusal by a cached type may be the cache's: decided again by the type as it is now.
      if (!known.cached) throw e;
      forgetTypes(tenant.tenantId, new Set([type.id]));
      continue;
    }
    const { byId, byKey, standsFor } = dedupe(prepared);
    if (byId.length || prepared.relationships.size) {
      if (!known.cached) return writeRows(deps, input, type, prepared, source);
      // writeRows checks no version: its type is the one as it is now, the rows checked again if it changed.
      const fresh = await tenant.read((reader) => versionedType(reader, input, false));
      if (!fresh) throw notFound("Entity type", input.type_id ?? input.type_name);
      allowUpsert(deps, fresh.type);
      return writeRows(deps, input, fresh.type, fresh.version === version ? prepared : prepareRows(fresh.type, source), source);
    }
    const onConflict = input.on_conflict ?? "replace";
    const statement = byKeyStatement(tenant.tenantId, type, loadBatch(prepared, byKey, source), onConflict, input.suppress_events ?? false, version);
    const [written] = await tenant.batch([statement]).catch(async (e) => {
      if (onConflict !== "raise" || pgCode(e) !== "23505" || pgConstraint(e) !== "entities_live_key") throw e;
      // The statement wrote nothing; which keys are taken is read now, for the answer.
      const { rows: taken } = await tenant.read((reader) =>
        reader.run<{ identifier_key: string }>(
          compiled(
            "SELECT identifier_key FROM entities WHERE tenant_id = $1::uuid AND type_id = $2::uuid AND identifier_key = ANY($3::text[]) AND deleted_at IS NULL LIMIT 20",
            [tenant.tenantId, type.id, byKey.map((i) => prepared.keys[i])],
          ),
        ),
      );
      if (taken.length) throw refuseRaise(taken.map((r) => r.identifier_key));
      throw new ApiError("CONFLICT", "A row matched an entity created concurrently and on_conflict is raise", {});
    });
    const out = written.rows[0] as BatchRow & { type_current: boolean };
    if (!out.type_current) {
      forgetTypes(tenant.tenantId, new Set([type.id]));
      continue;
    }
    const result = summarize(out, onConflict);
    deps.publish(result.eventIds);
    const idAt: string[] = [];
    byKey.forEach((p, i) => (idAt[p] = result.ids[i]));
    return {
      created: result.created,
      updated: result.updated,
      unchanged: result.unchanged,
      ignored: result.ignored,
      ids: Array.from(standsFor, (w) => idAt[w]),
      errors: [],
    };
  }
  throw new ApiError({ code: "CONCURRENT_MODIFICATION" }, "The entity type changed while the entities were being written; retry the request");
}

/**
 * Writes rows a RowChecker passed: the checks that need the database, then
 * the batches. `source` gives each row's text again for its batch, and its
 * label for messages.
 */
export async function writeRows(
  deps: EntityDeps,
  input: UpsertInput,
  type: EntityType,
  prepared: PreparedRows,
  source: Pick<RowSource, "count" | "text" | "label">,
): Promise<UpsertResult> {
  const count = source.count;
  const onConflict = input.on_conflict ?? "replace";
  const suppress = input.suppress_events ?? false;
  const tenantId = deps.tenant.tenantId;
  const { byId, byKey, standsFor } = dedupe(prepared);
  const keyOf = (i: number) => prepared.keys[i];
  const idOf = (i: number) => prepared.ids[i]!;

  const pre: Preflight = await deps.tenant.tx(async (sql) => {
    if (byId.length) {
      const { rows: live } = await sql.query<{ id: string }>("SELECT id FROM entities WHERE id = ANY($1::uuid[]) AND type_id = $2 AND deleted_at IS NULL", [
        byId.map(idOf),
        type.id,
      ]);
      const liveIds = new Set(live.map((r) => r.id));
      const missing = byId.map(idOf).filter((id) => !liveIds.has(id));
      if (missing.length)
        throw new ApiError("NOT_FOUND", `${missing.length} row id(s) match no live ${type.name}; nothing was written`, { missing_ids: missing.slice(0, 20) });
      // Refused here, before anything is written; the batches check again under their key locks.
      if (input.merge_on_conflict === false) {
        const collisions = await keyHolders(
          sql,
          type.id,
          byId.map((i) => ({ index: i, id: idOf(i), key: keyOf(i) })),
        );
        if (collisions.size) throw mergeRefused(collisions);
      }
    }
    if (onConflict === "raise" && byKey.length) {
      const { rows: taken } = await sql.query<{ identifier_key: string }>(
        "SELECT identifier_key FROM entities WHERE type_id = $1 AND identifier_key = ANY($2::text[]) AND deleted_at IS NULL LIMIT 20",
        [type.id, byKey.map(keyOf)],
      );
      if (taken.length) throw refuseRaise(taken.map((r) => r.identifier_key));
    }
    const linking = [...prepared.relationships].map(([index, relationships]) => ({ index, relationships }));
    const { links, unresolved } = await planLinks(sql, deps.tenant.access, type, linking, new Set(byKey.map(keyOf)));
    return { links, unresolved };
  });
  if (pre.unresolved.length && !input.skip_unresolved_relationships) {
    throw new ApiError("UNPROCESSABLE_ENTITY", `${pre.unresolved.length} inline relationship(s) do not resolve; nothing was written`, {
      unresolved: pre.unresolved.slice(0, 20),
      unresolved_count: pre.unresolved.length,
    });
  }

  const idAt: string[] = new Array(count);
  const totals = { created: 0, updated: 0, unchanged: 0, ignored: 0 };
  const absorbBatch = (rows: PreparedRow[], result: BatchResult) => {
    rows.forEach((r, i) => (idAt[r.index] = result.ids[i]));
    totals.created += result.created;
    totals.updated += result.updated;
    totals.unchanged += result.unchanged;
    totals.ignored += result.ignored;
    deps.publish(result.eventIds);
  };

  const committed = { batches: 0, links: 0 };
  const writeKeyBatch = async (tenant: TenantDb, indices: number[]) => {
    const batch = loadBatch(prepared, indices, source);
    const result = await tenant.tx(async (sql) => {
      const r = await writeByKey(sql, tenantId, type, batch, onConflict, suppress);
      // A key taken between the check and this batch: `raise` still means raise.
      if (onConflict === "raise" && r.unchanged) throw new ApiError("CONFLICT", "A row matched an entity created concurrently and on_conflict is raise", {});
      return r;
    });
    absorbBatch(batch, result);
    committed.batches++;
  };
  try {
    const keyBatches = chunks(byKey, COMMIT_BATCH);
    if (keyBatches.length > 1) {
      await deps.tenant.withOwnConnection((own) => inLanes(keyBatches, [deps.tenant, own], writeKeyBatch));
    } else {
      for (const indices of keyBatches) await writeKeyBatch(deps.tenant, indices);
    }

    for (const indices of chunks(byId, COMMIT_BATCH)) {
      const batch = loadBatch(prepared, indices, source);
      // Key holders are read under the batch's key locks, so a concurrent rekey
      // onto one of these keys has either committed (and is merged) or waits.
      const result = await retryKeyRace(() =>
        deps.tenant.tx(async (sql) => {
          await lockKeys(
            sql,
            type.id,
            batch.map((r) => r.key),
          );
          const collisions = await keyHolders(
            sql,
            type.id,
            batch.map((r) => ({ index: r.index, id: r.id!, key: r.key })),
          );
          if (collisions.size && input.merge_on_conflict === false) throw mergeRefused(collisions);
          const merged: NewEvent[] = [];
          for (const row of batch) {
            const holder = collisions.get(row.index);
            if (!holder) continue;
            await absorb(sql, row.id!, holder, input.merge_cardinality ?? "raise");
            merged.push({
              entityId: row.id!,
              entityTypeId: type.id,
              action: "merged",
              suppressed: suppress,
              payload: { entity: { id: row.id, type: { id: type.id, name: type.name } }, merged_entity_id: holder },
            });
          }
          const mergedIds = await recordEvents(sql, tenantId, merged);
          const r = await writeById(sql, tenantId, type, batch, suppress);
          r.eventIds.unshift(...mergedIds);
          return r;
        }),
      );
      absorbBatch(batch, result);
      committed.batches++;
    }

    for (const batch of chunks(pre.links, LINK_BATCH)) {
      committed.links += await deps.tenant.tx((sql) => writeLinks(sql, tenantId, batch, (rowIndex) => idAt[standsFor[rowIndex]]));
      committed.batches++;
    }
  } catch (e) {
    if (!committed.batches) throw e;
    const written: number[] = [];
    standsFor.forEach((winner, p) => idAt[winner] !== undefined && written.push(p));
    const label = (i: number) => source.label?.(i) ?? `data[${i}]`;
    throw afterCommit(e, { batches: committed.batches, rows: written.length, ranges: rangesOf(written), links: committed.links }, count, label);
  }

  const ids = Array.from(standsFor, (winner) => idAt[winner]);
  return { ...totals, ids, errors: pre.unresolved };
}
