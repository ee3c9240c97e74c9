// Rekey merge (docs/api.md, `PUT /entity/entities/{id}`): when a write gives an
// entity the key of another live entity, the written entity survives and
// absorbs the incumbent: the incumbent is soft-deleted and its live links and
// its artifacts move to the survivor. Links that would duplicate one the
// survivor has, or join the two, are retired.
import type { Sql } from "../../db/client";
import { ApiError } from "../../lib/errors";
import { lockEntities, overCap, retireOldest, type RuleEnd } from "../relationships/cardinality";

export type MergeCardinality = "raise" | "trim";

const RETIRE_DUPLICATES = `
  UPDATE relationships r SET deleted_at = now()
   WHERE r.deleted_at IS NULL AND (
     (r.from_entity_id = $2 AND (r.to_entity_id = $1 OR EXISTS (
        SELECT 1 FROM relationships s WHERE s.deleted_at IS NULL AND s.rule_id = r.rule_id AND s.from_entity_id = $1 AND s.to_entity_id = r.to_entity_id)))
     OR
     (r.to_entity_id = $2 AND (r.from_entity_id = $1 OR EXISTS (
        SELECT 1 FROM relationships s WHERE s.deleted_at IS NULL AND s.rule_id = r.rule_id AND s.to_entity_id = $1 AND s.from_entity_id = r.from_entity_id))))`;

export async function absorb(sql: Sql, survivorId: string, incumbentId: string, mode: MergeCardinality): Promise<void> {
  // Both ends locked before any link moves, as every link writer does, so a concurrent link to the survivor cannot overshoot its caps.
  await lockEntities(sql, [survivorId, incumbentId]);
  await sql.query("UPDATE entities SET deleted_at = now() WHERE id = $1 AND deleted_at IS NULL", [incumbentId]);
  await sql.query(RETIRE_DUPLICATES, [survivorId, incumbentId]);
  // Artifacts move whole, ids kept. One with the same artifact_type and filename
  // as one of the survivor's stays a separate artifact (nothing is renumbered
  // or lost); later uploads of that name version the more recently created one.
  await sql.query("UPDATE artifacts SET entity_id = $1 WHERE entity_id = $2", [survivorId, incumbentId]);
  const { rows: moved } = await sql.query<{ rule_id: string; from_entity_id: string; to_entity_id: string }>(
    `UPDATE relationships SET from_entity_id = CASE WHEN from_entity_id = $2 THEN $1 ELSE from_entity_id END,
                              to_entity_id = CASE WHEN to_entity_id = $2 THEN $1 ELSE to_entity_id END
      WHERE deleted_at IS NULL AND (from_entity_id = $2 OR to_entity_id = $2)
      RETURNING rule_id, from_entity_id, to_entity_id`,
    [survivorId, incumbentId],
  );
  // Only the survivor's ends under the moved links' rules gained links.
  const ends = moved.flatMap((l): RuleEnd[] => [
    ...(l.from_entity_id === survivorId ? [{ ruleId: l.rule_id, side: "from" as const, entityId: survivorId }] : []),
    ...(l.to_entity_id === survivorId ? [{ ruleId: l.rule_id, side: "to" as const, entityId: survivorId }] : []),
  ]);
  const over = await overCap(sql, ends);
  if (!over.length) return;
  if (mode === "raise") {
    const rules = [...new Set(over.map((o) => o.rule))];
    throw new ApiError({ code: "MERGE_CARDINALITY_EXCEEDED", rules }, "Merging would exceed a relationship rule's cardinality");
  }
  // trim keeps the newest links up to each cap.
  await retireOldest(sql, over);
}
