// Rekey merge (SPEC.md 3, 4.1.1): when a write gives an entity the key of
// another live entity, the written entity survives and absorbs the incumbent:
// the incumbent is soft-deleted and its live links and its artifacts move to the survivor.
// Links that would duplicate one the survivor has, or join the two, are retired.
import type { Sql } from "../../db/client";
import { ApiError } from "../../lib/errors";

export type MergeCardinality = "raise" | "trim";

const RETIRE_DUPLICATES = `
  UPDATE relationships r SET deleted_at = now()
   WHERE r.deleted_at IS NULL AND (
     (r.from_entity_id = $2 AND (r.to_entity_id = $1 OR EXISTS (
        SELECT 1 FROM relationships s WHERE s.deleted_at IS NULL AND s.rule_id = r.rule_id AND s.from_entity_id = $1 AND s.to_entity_id = r.to_entity_id)))
     OR
     (r.to_entity_id = $2 AND (r.from_entity_id = $1 OR EXISTS (
        SELECT 1 FROM relationships s WHERE s.deleted_at IS NULL AND s.rule_id = r.rule_id AND s.to_entity_id = $1 AND s.from_entity_id = r.from_entity_id))))`;

// Per rule and side, the survivor's live links beyond the rule's cap, oldest first.
const OVER_CAP = `
  WITH mine AS (
    SELECT r.id, r.rule_id, r.created_at, 'from' AS side, rr.max_to_cardinality AS cap, rr.name
      FROM relationships r JOIN relationship_rules rr ON rr.id = r.rule_id
     WHERE r.from_entity_id = $1 AND r.deleted_at IS NULL AND rr.max_to_cardinality IS NOT NULL
    UNION ALL
    SELECT r.id, r.rule_id, r.created_at, 'to', rr.max_from_cardinality, rr.name
      FROM relationships r JOIN relationship_rules rr ON rr.id = r.rule_id
     WHERE r.to_entity_id = $1 AND r.deleted_at IS NULL AND rr.max_from_cardinality IS NOT NULL
  ), ranked AS (
    SELECT id, name, cap, row_number() OVER (PARTITION BY rule_id, side ORDER BY created_at DESC, id DESC) AS n FROM mine
  )
  SELECT id, name, cap FROM ranked WHERE n > cap`;

export async function absorb(sql: Sql, survivorId: string, incumbentId: string, mode: MergeCardinality): Promise<void> {
  await sql.query("UPDATE entities SET deleted_at = now() WHERE id = $1 AND deleted_at IS NULL", [incumbentId]);
  await sql.query(RETIRE_DUPLICATES, [survivorId, incumbentId]);
  // Artifacts move whole, ids kept. One with the same artifact_type and filename
  // as one of the survivor's stays a separate artifact (nothing is renumbered
  // or lost); later uploads of that name version the more recently created one.
  await sql.query("UPDATE artifacts SET entity_id = $1 WHERE entity_id = $2", [survivorId, incumbentId]);
  await sql.query(
    `UPDATE relationships SET from_entity_id = CASE WHEN from_entity_id = $2 THEN $1 ELSE from_entity_id END,
                              to_entity_id = CASE WHEN to_entity_id = $2 THEN $1 ELSE to_entity_id END
      WHERE deleted_at IS NULL AND (from_entity_id = $2 OR to_entity_id = $2)`,
    [survivorId, incumbentId],
  );
  const { rows } = await sql.query<{ id: string; name: string; cap: number }>(OVER_CAP, [survivorId]);
  if (!rows.length) return;
  if (mode === "raise") {
    const rules = [...new Set(rows.map((r) => r.name))];
    throw new ApiError({ code: "MERGE_CARDINALITY_EXCEEDED", rules }, "Merging would exceed a relationship rule's cardinality");
  }
  await sql.query("UPDATE relationships SET deleted_at = now() WHERE id = ANY($1::uuid[])", [rows.map((r) => r.id)]);
}
