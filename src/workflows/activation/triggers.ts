// Reconciling an activation's triggers with the activated version's blocks:
// rows are matched by the definition's trigger id, so a trigger keeps its uuid
// (and its webhook URL, secret and enabled flag) across re-activations; blocks
// added get rows, blocks removed lose theirs (and their schedules and secrets).
import type { Sql } from "../../db/client";
import { ApiError } from "../../lib/errors";
import type { TriggerBlock, TriggerType } from "../triggers/fire";
import { newSchedule, nextTick } from "../../definition/language/cron-expression";
import { resolveTrigger } from "../triggers/lookup";

export type TriggerRow = {
  id: string;
  key: string;
  type: TriggerType;
  enabled: boolean;
  definition: TriggerBlock;
  has_secret: boolean;
};

export function triggerType(block: TriggerBlock): TriggerType {
  if (block.source) return "event";
  if (block.cron !== undefined) return "cron";
  return "webhook";
}

/**
 * A trigger's readiness: `secret_missing` while a verified webhook has no
 * secret minted (every call would be refused), `ready` otherwise.
 */
export function configStatus(row: Pick<TriggerRow, "type" | "definition" | "has_secret">): "ready" | "secret_missing" {
  return row.type === "webhook" && row.definition.webhook?.verification && !row.has_secret ? "secret_missing" : "ready";
}

/** Event triggers must name entity types (and rules) of the tenant: checked at activation, when they start matching. */
async function checkEventTargets(sql: Sql, blocks: TriggerBlock[]): Promise<void> {
  const refs = blocks.flatMap((b, i) =>
    b.source ? [{ i, type: String(b.source.entityTypeId), rule: b.source.relationshipRuleId as string | undefined }] : [],
  );
  if (!refs.length) return;
  const { rows } = await sql.query<{ types: string[]; rules: string[] }>(
    `SELECT coalesce((SELECT array_agg(id::text) FROM entity_types WHERE id = ANY($1::uuid[])), '{}') AS types,
            coalesce((SELECT array_agg(id::text) FROM relationship_rules WHERE id = ANY($2::uuid[])), '{}') AS rules`,
    [refs.map((r) => r.type), refs.flatMap((r) => (r.rule ? [r.rule] : []))],
  );
  const types = new Set(rows[0].types);
  const rules = new Set(rows[0].rules);
  const errors = refs.flatMap((r) => [
    ...(types.has(r.type) ? [] : [`definition_json.triggers[${r.i}].source.entityTypeId: no entity type ${r.type} in this tenant`]),
    ...(r.rule && !rules.has(r.rule) ? [`definition_json.triggers[${r.i}].source.relationshipRuleId: no relationship rule ${r.rule} in this tenant`] : []),
  ]);
  if (errors.length) throw new ApiError("VALIDATION_FAILED", "The definition's event triggers name unknown targets", { errors, validation_errors: errors });
}

/**
 * The event triggers of a workflow another tenant shares, made the target's:
 * each `source` names the owner's entity type (and relationship rule), and
 * the target's trigger names the target's of the same name, so it fires on
 * the target's events. A name the target lacks is 422.
 */
async function targetSources(sql: Sql, workflowId: string, blocks: TriggerBlock[]): Promise<TriggerBlock[]> {
  if (!blocks.some((b) => b.source)) return blocks;
  const { rows } = await sql.query<{ kind: "entity_type" | "relationship_rule"; owner_id: string; own_id: string | null; name: string }>(
    `SELECT o.kind, o.id AS owner_id, o.name,
            CASE o.kind WHEN 'entity_type' THEN (SELECT t.id FROM entity_types t WHERE t.name = o.name)
                        ELSE (SELECT r.id FROM relationship_rules r WHERE r.name = o.name) END AS own_id
       FROM platform_shared_trigger_targets($1) o`,
    [workflowId],
  );
  const byOwnerId = new Map(rows.map((r) => [r.owner_id, r]));
  const errors: string[] = [];
  const mapped = blocks.map((b, i) => {
    if (!b.source) return b;
    const source = { ...b.source };
    for (const [field, noun] of [
      ["entityTypeId", "entity type"],
      ["relationshipRuleId", "relationship rule"],
    ] as const) {
      if (source[field] === undefined) continue;
      const target = byOwnerId.get(String(source[field]));
      if (target?.own_id) source[field] = target.own_id;
      else
        errors.push(
          `definition_json.triggers[${i}].source.${field}: ${target ? `no ${noun} named ${target.name} in this tenant` : `no ${noun} ${String(source[field])} of the owner`}`,
        );
    }
    return { ...b, source };
  });
  if (errors.length)
    throw new ApiError("VALIDATION_FAILED", "The shared workflow's event triggers name entity types or rules this tenant lacks", {
      errors,
      validation_errors: errors,
    });
  return mapped;
}

/**
 * Makes the workflow's trigger rows (the tenant's: row-level security
 * confines every statement) and cron schedules match `blocks`; answers the
 * rows in definition order. `shared`: the workflow is another tenant's.
 */
export async function reconcileTriggers(
  sql: Sql,
  tenantId: string,
  workflowId: string,
  written: TriggerBlock[],
  now: Date,
  shared = false,
): Promise<TriggerRow[]> {
  const blocks = shared ? await targetSources(sql, workflowId, written) : written;
  await checkEventTargets(sql, blocks);
  const desired = blocks.map((b) => ({
    key: b.id,
    type: triggerType(b),
    definition: b,
    entity_type_id: b.source ? String(b.source.entityTypeId) : null,
    event_action: b.source ? String(b.source.eventAction) : null,
  }));
  await sql.query(`DELETE FROM workflow_triggers WHERE workflow_id = $1 AND key <> ALL($2::text[])`, [workflowId, desired.map((d) => d.key)]);
  const { rows } = await sql.query<TriggerRow>(
    `INSERT INTO workflow_triggers (tenant_id, workflow_id, key, type, definition, entity_type_id, event_action)
     SELECT $1, $2, d.key, d.type, d.definition, d.entity_type_id, d.event_action
       FROM jsonb_to_recordset($3::jsonb) AS d(key text, type text, definition jsonb, entity_type_id uuid, event_action text)
     ON CONFLICT (tenant_id, workflow_id, key) DO UPDATE
        SET type = excluded.type, definition = excluded.definition, entity_type_id = excluded.entity_type_id,
            event_action = excluded.event_action, updated_at = now(),
            -- A secret belongs to a verified webhook; a trigger that stops being one drops it.
            secret_ciphertext = CASE WHEN excluded.type = 'webhook' AND excluded.definition->'webhook' ? 'verification'
                                     THEN workflow_triggers.secret_ciphertext END
     RETURNING id, key, type, enabled, definition, secret_ciphertext IS NOT NULL AS has_secret`,
    [tenantId, workflowId, JSON.stringify(desired)],
  );
  await reconcileSchedules(sql, tenantId, workflowId, rows, now);
  return inDefinitionOrder(rows, blocks);
}

export function inDefinitionOrder(rows: TriggerRow[], blocks: TriggerBlock[]): TriggerRow[] {
  const order = new Map(blocks.map((b, i) => [b.id, i]));
  return [...rows].sort((a, b) => (order.get(a.key) ?? Infinity) - (order.get(b.key) ?? Infinity));
}

/**
 * Enables or disables a trigger by its definition id or uuid (named as every
 * trigger route names it: triggers/lookup.ts). Enabling a cron trigger
 * schedules it from now: the ticks it missed while disabled are not made up.
 */
export async function setTriggerEnabled(sql: Sql, workflowId: string, ref: string, enabled: boolean, now: Date): Promise<TriggerRow> {
  const before = await resolveTrigger(sql, workflowId, ref);
  await sql.query(`UPDATE workflow_triggers SET enabled = $2, updated_at = now() WHERE id = $1`, [before.id, enabled]);
  if (before.type === "cron" && enabled && !before.enabled) {
    await sql.query(`UPDATE cron_schedules SET next_run_at = $2 WHERE trigger_id = $1`, [before.id, nextTick(before.definition.cron!, now).toISOString()]);
  }
  return { ...before, enabled };
}

/** A cron trigger whose expression is unchanged keeps its schedule (and offset); a new or changed one starts afresh from now. */
async function reconcileSchedules(sql: Sql, tenantId: string, workflowId: string, rows: TriggerRow[], now: Date): Promise<void> {
  const crons = rows.filter((r) => r.type === "cron");
  await sql.query(`DELETE FROM cron_schedules WHERE workflow_id = $1 AND trigger_id <> ALL($2::uuid[])`, [workflowId, crons.map((r) => r.id)]);
  if (!crons.length) return;
  const schedules = crons.map((r) => {
    const cron = r.definition.cron!;
    const s = newSchedule(cron, now);
    return { trigger_id: r.id, cron, offset_seconds: s.offsetSeconds, catch_up: s.catchUp, next_run_at: s.nextRunAt.toISOString() };
  });
  await sql.query(
    `INSERT INTO cron_schedules (tenant_id, workflow_id, trigger_id, cron, offset_seconds, catch_up, next_run_at)
     SELECT $1, $2, s.trigger_id, s.cron, s.offset_seconds, s.catch_up, s.next_run_at
       FROM jsonb_to_recordset($3::jsonb) AS s(trigger_id uuid, cron text, offset_seconds int, catch_up boolean, next_run_at timestamptz)
     ON CONFLICT (trigger_id) DO UPDATE
        SET cron = excluded.cron, catch_up = excluded.catch_up, next_run_at = excluded.next_run_at, last_run_at = NULL
      WHERE cron_schedules.cron IS DISTINCT FROM excluded.cron`,
    [tenantId, workflowId, JSON.stringify(schedules)],
  );
}
