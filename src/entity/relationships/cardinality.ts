// Rule caps (docs/api.md, Relationships): max_to_cardinality caps the live links of one
// `from` entity under a rule, max_from_cardinality those of one `to` entity.
// Every writer of links (POST /entity/relationships, upsert, merge) checks
// here, with one statement over all the rule ends it touches. Writers lock
// the entities first (lockEntities), so concurrent writers on an end queue
// behind each other and the count each one reads cannot go stale.
import type { Sql } from "../../db/client";
import type { CardinalityViolation } from "../../lib/errors";

export type Side = "from" | "to";

/** The live links of `entityId` on the `side` end of rule `ruleId`. */
export interface RuleEnd {
  ruleId: string;
  side: Side;
  entityId: string;
}

/** An end with no room left: `live` links under its rule `rule`'s `cap`. */
export interface OverCap extends RuleEnd {
  rule: string;
  cap: number;
  live: number;
}

/** Locks the live entities in id order (a fixed order, so two writers cannot deadlock); returns their type ids. */
export async function lockEntities(sql: Sql, ids: string[]): Promise<Map<string, string>> {
  const { rows } = await sql.query<{ id: string; type_id: string }>(
    "SELECT id, type_id FROM entities WHERE id = ANY($1::uuid[]) AND deleted_at IS NULL ORDER BY id FOR UPDATE",
    [[...new Set(ids)]],
  );
  return new Map(rows.map((r) => [r.id, r.type_id]));
}

// Each end's cap from its rule, and its live links counted by the index of
// its side (the CASE runs one subquery per end, never both).
const OVER_CAP = `
  WITH ends AS (
    SELECT e.n, e.rule_id, e.side, e.entity_id, rr.name AS rule,
           CASE e.side WHEN 'from' THEN rr.max_to_cardinality ELSE rr.max_from_cardinality END AS cap
      FROM unnest($1::uuid[], $2::text[], $3::uuid[]) WITH ORDINALITY AS e(rule_id, side, entity_id, n)
      JOIN relationship_rules rr ON rr.id = e.rule_id
  ), counted AS (
    SELECT ends.*, CASE side
             WHEN 'from' THEN (SELECT count(*) FROM relationships l WHERE l.rule_id = ends.rule_id AND l.from_entity_id = ends.entity_id AND l.deleted_at IS NULL)
             ELSE (SELECT count(*) FROM relationships l WHERE l.rule_id = ends.rule_id AND l.to_entity_id = ends.entity_id AND l.deleted_at IS NULL)
           END::int AS live
      FROM ends WHERE cap IS NOT NULL
  )
  SELECT rule_id, side, entity_id, rule, cap, live FROM counted WHERE live + $4 > cap ORDER BY n`;

/**
 * The ends (each once, in the order given) whose live links leave no room
 * for `adding` more: `live + adding > cap`. Ends of an uncapped side never are.
 */
export async function overCap(sql: Sql, ends: RuleEnd[], adding = 0): Promise<OverCap[]> {
  const unique = [...new Map(ends.map((e) => [`${e.ruleId} ${e.side} ${e.entityId}`, e])).values()];
  if (!unique.length) return [];
  const { rows } = await sql.query<{ rule_id: string; side: Side; entity_id: string; rule: string; cap: number; live: number }>(OVER_CAP, [
    unique.map((e) => e.ruleId),
    unique.map((e) => e.side),
    unique.map((e) => e.entityId),
    adding,
  ]);
  return rows.map((r) => ({ ruleId: r.rule_id, side: r.side, entityId: r.entity_id, rule: r.rule, cap: r.cap, live: r.live }));
}

/** Retires each end's oldest live links, just enough to leave room for `room` more under its cap. */
export async function retireOldest(sql: Sql, over: OverCap[], room = 0): Promise<void> {
  if (!over.length) return;
  await sql.query(
    `UPDATE relationships SET deleted_at = now()
      WHERE id IN (
        SELECT x.id FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::int[]) AS e(rule_id, side, entity_id, excess)
        CROSS JOIN LATERAL (
          SELECT l.id FROM relationships l
           WHERE l.rule_id = e.rule_id AND l.deleted_at IS NULL
             AND ((e.side = 'from' AND l.from_entity_id = e.entity_id) OR (e.side = 'to' AND l.to_entity_id = e.entity_id))
           ORDER BY l.created_at, l.id LIMIT e.excess) x)`,
    [over.map((o) => o.ruleId), over.map((o) => o.side), over.map((o) => o.entityId), over.map((o) => o.live - o.cap + room)],
  );
}

/** An over-cap end as cardinality errors report it. */
export function violationOf(o: OverCap): CardinalityViolation {
  return { rule: o.rule, side: o.side, entity_id: o.entityId, cap: o.cap, live: o.live };
}
