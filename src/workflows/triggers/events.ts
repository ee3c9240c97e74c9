// Event triggers (docs/workflows.md, Event triggers): which claimed events
// fire which enabled event triggers, and the runs they start. The queue
// consumer (events/delivery.ts) claims a message's events and reads their
// candidate triggers in one statement; this module narrows the candidates by
// entity, relationship rule and attribute filters, gates them on `condition`
// and inserts the runs, so a message costs at most three round trips
// whatever the number of events and triggers.
import type { Sql } from "../../db/client";
import { ApiError } from "../../lib/errors";
import { log } from "../../lib/logger";
import { EntityAccess } from "../../db/entity-access";
import { compileFilter, newCompilation } from "../../entity/query/filter";
import { Params } from "../../db/params";
import type { IndexedAttribute } from "../../entity/indexed-attributes";
import { insertRuns, type NewRun } from "../runs/start";
import { attributeFilterProblems, queryFilter, queryType } from "../../definition/language/attribute-filters";
import { runFor, type FiringTrigger, type TriggerBlock } from "./fire";

/** A claimed event that has at least one candidate trigger, as the claim statement answers it. */
export interface ClaimedEvent {
  id: string;
  entity_id: string;
  entity_type_id: string;
  action: "created" | "updated";
  payload: Record<string, unknown>;
  occurred_at: string;
  /** Enabled event triggers of the event's type and action (row uuids). */
  trigger_ids: string[];
}

/** A candidate trigger, as the claim statement answers it. */
export interface CandidateTrigger {
  id: string;
  key: string;
  workflow_id: string;
  entity_type_id: string;
  version: number;
  definition: TriggerBlock;
  /** The config of the trigger's entity type: the attribute filters compare indexed attributes by their declared type. */
  type_config: { indexed_attributes?: IndexedAttribute[] } | null;
}

export interface Claim {
  events: ClaimedEvent[];
  triggers: CandidateTrigger[];
}

interface Source {
  entityId?: string;
  relationshipRuleId?: string;
  attributeFilters?: unknown[];
}

function sourceOf(trigger: CandidateTrigger): Source {
  return (trigger.definition.source ?? {}) as Source;
}

function needsSql(source: Source): boolean {
  return !!source.relationshipRuleId || !!source.attributeFilters?.length;
}

interface Pair {
  event: ClaimedEvent;
  trigger: CandidateTrigger;
}

const skip = (pair: Pair, reason: string) =>
  log.warn("event trigger skipped", { event_id: pair.event.id, trigger_id: pair.trigger.id, workflow_id: pair.trigger.workflow_id, reason });

/**
 * The pairs whose trigger names a relationship rule or attribute filters and
 * whose event's entity satisfies them, in one statement: each trigger's
 * condition is compiled once, by the query engine's filter compiler, over
 * the event's entity snapshot as an entity-shaped row.
 */
async function narrowInSql(sql: Sql, tenantId: string, pairs: Pair[]): Promise<Pair[]> {
  if (!pairs.length) return [];
  const params = new Params(3);
  const compilation = newCompilation(params, EntityAccess.everything.readScope(tenantId), () => undefined);
  const events = [...new Set(pairs.map((p) => p.event))];
  const triggers = [...new Set(pairs.map((p) => p.trigger))];
  const branches: string[] = [];
  const compiledTriggers = new Set<CandidateTrigger>();
  let tenant: string | undefined;
  triggers.forEach((trigger, t) => {
    const source = sourceOf(trigger);
    const parts: string[] = [];
    const bound = params.values.length;
    try {
      if (source.attributeFilters?.length) {
        const problems = attributeFilterProblems(source.attributeFilters, "attributeFilters");
        if (problems.length) throw new Error(problems.join("; "));
        parts.push(
          compileFilter(queryFilter(source.attributeFilters), queryType(trigger.entity_type_id, trigger.type_config), "e", compilation, "attributeFilters"),
        );
      }
    } catch (e) {
      // Postgres refuses a parameter no statement refers to: the failed trigger's values go.
      params.values.splice(bound);
      const reason = e instanceof ApiError ? ((e.details.errors as string[] | undefined)?.join("; ") ?? e.message) : (e as Error).message;
      for (const p of pairs) if (p.trigger === trigger) skip(p, reason);
      return;
    }
    if (source.relationshipRuleId) {
      // A live link of the rule with the entity at either end, when the event is delivered.
      const rule = params.add(source.relationshipRuleId, "uuid");
      tenant ??= params.add(tenantId, "uuid");
      const side = (end: string) =>
        `EXISTS (SELECT 1 FROM relationships r WHERE r.tenant_id = ${tenant} AND r.${end} = e.id AND r.rule_id = ${rule} AND r.deleted_at IS NULL)`;
      parts.push(`(${side("from_entity_id")} OR ${side("to_entity_id")})`);
    }
    compiledTriggers.add(trigger);
    branches.push(`WHEN ${t} THEN (${parts.join(" AND ")})`);
  });
  const candidates = pairs.filter((p) => compiledTriggers.has(p.trigger));
  if (!candidates.length) return [];
  const eventIndex = new Map(events.map((e, i) => [e, i]));
  const triggerIndex = new Map(triggers.map((t, i) => [t, i]));
  // Only `id` (rule links) and `attributes` (filter paths all start there) are read from the row.
  const rows = events.map((e, i) => ({ ord: i, id: e.entity_id, attributes: (e.payload.entity as { attributes?: unknown }).attributes ?? {} }));
  const { rows: passed } = await sql.query<{ ev: number; tr: number }>(
    `WITH e AS (SELECT * FROM jsonb_to_recordset($1::jsonb) AS e(ord int, id uuid, attributes jsonb)),
          p AS (SELECT * FROM jsonb_to_recordset($2::jsonb) AS p(ev int, tr int))
     SELECT p.ev, p.tr FROM p JOIN e ON e.ord = p.ev
      WHERE CASE p.tr ${branches.join(" ")} ELSE FALSE END`,
    [JSON.stringify(rows), JSON.stringify(candidates.map((p) => ({ ev: eventIndex.get(p.event), tr: triggerIndex.get(p.trigger) }))), ...params.values],
  );
  const keep = new Set(passed.map((r) => `${r.ev}:${r.tr}`));
  return candidates.filter((p) => keep.has(`${eventIndex.get(p.event)}:${triggerIndex.get(p.trigger)}`));
}

/** `context.input` of an event-started run: the event, the entity as the API returns it, and on `updated` what it was before. */
export function eventInput(event: ClaimedEvent): Record<string, unknown> {
  const entity = event.payload.entity as Record<string, unknown>;
  const previous = event.payload.previous as Record<string, unknown> | undefined;
  return {
    event: { id: event.id, action: event.action, occurred_at: event.occurred_at },
    entity: {
      id: entity.id,
      name: entity.name,
      type: entity.type,
      attributes: entity.attributes,
      identifier_key: entity.identifier_key,
      created_at: entity.created_at,
      updated_at: entity.updated_at,
      deleted_at: null,
    },
    ...(event.action === "updated" && previous ? { previous: { attributes: previous.attributes, name: previous.name } } : {}),
  };
}

function firing(trigger: CandidateTrigger): FiringTrigger {
  return { id: trigger.id, key: trigger.key, type: "event", workflowId: trigger.workflow_id, workflowVersion: trigger.version, definition: trigger.definition };
}

/**
 * Starts the runs a claim's events fire, in the claim's transaction. A pair
 * whose trigger cannot be evaluated (a failing expression, a filter that
 * does not suit the type) is logged and skipped; the others still start.
 * Returns the ids of the runs inserted.
 */
export async function startEventRuns(sql: Sql, tenantId: string, claim: Claim): Promise<string[]> {
  const triggers = new Map(claim.triggers.map((t) => [t.id, t]));
  const direct: Pair[] = [];
  const narrowed: Pair[] = [];
  for (const event of claim.events) {
    for (const id of event.trigger_ids) {
      const trigger = triggers.get(id);
      if (!trigger) continue;
      const pair = { event, trigger };
      const entity = event.payload.entity as { attributes?: unknown } | undefined;
      if (typeof entity !== "object" || entity === null) {
        skip(pair, "the event carries no entity snapshot");
        continue;
      }
      const source = sourceOf(trigger);
      if (source.entityId !== undefined && source.entityId !== event.entity_id) continue;
      (needsSql(source) ? narrowed : direct).push(pair);
    }
  }
  const pairs = [...direct, ...(await narrowInSql(sql, tenantId, narrowed))];
  const runs: NewRun[] = [];
  for (const pair of pairs) {
    try {
      const run = await runFor(firing(pair.trigger), { input: eventInput(pair.event), entityId: pair.event.entity_id, eventId: pair.event.id });
      if (run) runs.push(run);
    } catch (e) {
      // Whatever failed, it failed for this pair: the batch's other runs still start.
      skip(pair, (e as Error).message);
    }
  }
  return insertRuns(sql, tenantId, runs);
}
