// Links changed as a set, each change in one transaction: removing many
// links at once (by id, or every link of a rule between given ends) and
// making one entity's links under a rule exactly a given set. Each locks the
// entities it touches first and checks the caps with the same statements as
// a single link create (cardinality.ts), so the three writers cannot
// overshoot a cap between them.
import type { Sql, TenantDb } from "../../db/client";
import { ApiError } from "../../lib/errors";
import { refuseMissing } from "../entities/service";
import { lockEntities, overCap, violationOf, type RuleEnd, type Side } from "./cardinality";
import { presentLink, retireLinks, wrongTypes, type LinkRow } from "./links";
import { requireRule, type RuleRow } from "./rules";

/** Target ids one sync may name: the most links one entity's end may be made to hold in one transaction. */
export const MAX_SYNC_TARGETS = 1000;
/** Link ids one removal may name, as a bulk delete of entities. */
export const MAX_REMOVE_IDS = 100;

interface RuleRef {
  rule_id?: string;
  rule_name?: string;
}

const LINK_COLUMNS = "id, rule_id, from_entity_id, to_entity_id, created_at";
const column = (side: Side) => (side === "from" ? "from_entity_id" : "to_entity_id");
const opposite = (side: Side): Side => (side === "from" ? "to" : "from");

/** Removes the live links among `ids` (each end checked for update); the others are `not_found`, ids in the order given. */
export async function removeLinks(tenant: TenantDb, ids: string[]) {
  const unique = [...new Set(ids)];
  const removed = new Set((await tenant.tx((sql) => retireLinks(tenant, sql, unique))).map((r) => r.id));
  return { deleted: unique.filter((id) => removed.has(id)), not_found: unique.filter((id) => !removed.has(id)) };
}

/**
 * Removes every live link of the rule from `from_entity_id`, or only the one
 * to `to_entity_id` when it is given. An unknown rule or end is a 404, as for
 * a link create; ends with no link between them remove nothing.
 */
export async function removeLinksBetween(tenant: TenantDb, input: RuleRef & { from_entity_id: string; to_entity_id?: string }) {
  const ends = input.to_entity_id ? [input.from_entity_id, input.to_entity_id] : [input.from_entity_id];
  const done = await tenant.tx(async (sql) => {
    const rule = await requireRule(sql, input);
    const missing = await missingEnd(sql, ends);
    if (missing) return { missing };
    const { rows } = await sql.query<{ id: string }>(
      `SELECT id FROM relationships WHERE rule_id = $1 AND from_entity_id = $2 AND ($3::uuid IS NULL OR to_entity_id = $3) AND deleted_at IS NULL ORDER BY created_at, id`,
      [rule.id, input.from_entity_id, input.to_entity_id ?? null],
    );
    const removed = new Set(
      (
        await retireLinks(
          tenant,
          sql,
          rows.map((r) => r.id),
        )
      ).map((r) => r.id),
    );
    return { deleted: rows.map((r) => r.id).filter((id) => removed.has(id)) };
  });
  if ("missing" in done) return refuseMissing(tenant, [done.missing!]);
  return { deleted: done.deleted, not_found: [] as string[] };
}

export interface SyncLinksInput extends RuleRef {
  entity_id: string;
  /** Which end of the rule `entity_id` is on; `from` when absent. */
  side?: Side;
  target_ids: string[];
}

/**
 * Makes `entity_id`'s live links under the rule exactly those to
 * `target_ids`: adds the missing ones, removes the others, leaves the rest.
 * Removals count before additions, so a full end can be re-pointed in one
 * call. Over a cap (`raise`, as a link create) or on any refusal nothing is
 * changed: the whole sync is one transaction.
 */
export async function syncLinks(tenant: TenantDb, input: SyncLinksInput) {
  const side = input.side ?? "from";
  const far = opposite(side);
  const targets = [...new Set(input.target_ids)];
  const done = await tenant.tx(async (sql) => {
    const rule = await requireRule(sql, input);
    const types = await lockEntities(sql, [input.entity_id, ...targets]);
    const missing = [input.entity_id, ...targets].find((id) => !types.has(id));
    if (missing) return { missing };
    const typeId = { from: rule.from_type_id, to: rule.to_type_id };
    if (types.get(input.entity_id) !== typeId[side] || targets.some((id) => types.get(id) !== typeId[far])) throw wrongTypes(rule);

    const { rows: current } = await sql.query<LinkRow & Record<string, unknown>>(
      `SELECT ${LINK_COLUMNS} FROM relationships WHERE rule_id = $1 AND ${column(side)} = $2 AND deleted_at IS NULL ORDER BY created_at, id`,
      [rule.id, input.entity_id],
    );
    const farEnd = (link: LinkRow) => link[column(far)];
    const wanted = new Set(targets);
    const linked = new Set(current.map(farEnd));
    const extra = current.filter((link) => !wanted.has(farEnd(link)));
    const adding = targets.filter((id) => !linked.has(id));

    // Linking changes both ends (removed links' ends are checked by retireLinks).
    const typeName = { from: rule.from_type_name, to: rule.to_type_name };
    if (adding.length) tenant.access.requireRow("update", { id: input.entity_id, type_name: typeName[side] });
    for (const id of adding) tenant.access.requireRow("update", { id, type_name: typeName[far] });

    const retired = new Map(
      (
        await retireLinks(
          tenant,
          sql,
          extra.map((l) => l.id),
        )
      ).map((r) => [r.id, r.deleted_at]),
    );
    await refuseOverCap(
      sql,
      rule,
      { ruleId: rule.id, side, entityId: input.entity_id },
      adding.length,
      adding.map((id) => ({ ruleId: rule.id, side: far, entityId: id })),
    );
    const added = await insertLinks(sql, tenant.tenantId, rule, side, input.entity_id, adding);
    return {
      result: {
        added: added.map((link) => presentLink(link, rule)),
        removed: extra.map((link) => ({ ...presentLink(link, rule), deleted_at: retired.get(link.id)! })),
        unchanged: current.length - extra.length,
      },
    };
  });
  if ("missing" in done) return refuseMissing(tenant, [done.missing!]);
  return done.result;
}

/** The first of `ids` that is no live entity; the live ones are locked. */
async function missingEnd(sql: Sql, ids: string[]): Promise<string | undefined> {
  const types = await lockEntities(sql, ids);
  return ids.find((id) => !types.has(id));
}

/** 409 CARDINALITY_VIOLATION when `own` has no room for `adding` more links, or a far end none for one more. */
async function refuseOverCap(sql: Sql, rule: RuleRow, own: RuleEnd, adding: number, farEnds: RuleEnd[]): Promise<void> {
  if (!adding) return;
  const over = [...(await overCap(sql, [own], adding)), ...(await overCap(sql, farEnds, 1))];
  if (over.length) throw new ApiError({ code: "CARDINALITY_VIOLATION", rule: rule.name, violations: over.map(violationOf) }, "Cardinality constraint violated");
}

/** New links from (or to) `entityId` to each of `targets`, answered in the order of `targets`. */
async function insertLinks(sql: Sql, tenantId: string, rule: RuleRow, side: Side, entityId: string, targets: string[]): Promise<LinkRow[]> {
  if (!targets.length) return [];
  const from = side === "from" ? targets.map(() => entityId) : targets;
  const to = side === "from" ? targets : targets.map(() => entityId);
  const { rows } = await sql.query<LinkRow & Record<string, unknown>>(
    `INSERT INTO relationships (tenant_id, rule_id, from_entity_id, to_entity_id)
     SELECT $1, $2, f, t FROM unnest($3::uuid[], $4::uuid[]) AS x(f, t)
     RETURNING ${LINK_COLUMNS}`,
    [tenantId, rule.id, from, to],
  );
  const byTarget = new Map(rows.map((r) => [r[column(opposite(side))], r]));
  return targets.map((id) => byTarget.get(id)!);
}
