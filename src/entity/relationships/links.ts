// Relationship links (SPEC.md 4.5): one live link per (rule, from, to), with
// the rule's caps enforced in the writing transaction. Both entity rows are
// locked first, so concurrent writers on either end queue behind each other
// and cannot overshoot a cap.
import type { Sql, TenantDb } from "../../db/client";
import { ApiError, notFound } from "../../lib/errors";
import { requireRule, type RuleRow } from "./rules";

export type CardinalityPolicy = "raise" | "replace" | "ignore";

export interface CreateLinkInput {
  rule_id?: string;
  rule_name?: string;
  from_entity_id: string;
  to_entity_id: string;
  on_cardinality_violation?: CardinalityPolicy;
}

interface LinkRow {
  id: string;
  rule_id: string;
  from_entity_id: string;
  to_entity_id: string;
  created_at: string;
}

function presentLink(link: LinkRow, rule: RuleRow) {
  return { id: link.id, rule: { id: rule.id, name: rule.name }, from_entity_id: link.from_entity_id, to_entity_id: link.to_entity_id, created_at: link.created_at };
}

/** Locks the live entities in id order (a fixed order, so two writers cannot deadlock). */
export async function lockEntities(sql: Sql, ids: string[]): Promise<Map<string, string>> {
  const { rows } = await sql.query<{ id: string; type_id: string }>(
    "SELECT id, type_id FROM entities WHERE id = ANY($1::uuid[]) AND deleted_at IS NULL ORDER BY id FOR UPDATE",
    [[...new Set(ids)]],
  );
  return new Map(rows.map((r) => [r.id, r.type_id]));
}

interface Violation {
  side: "from" | "to";
  entity_id: string;
  cap: number;
  live: number;
}

async function violations(sql: Sql, rule: RuleRow, fromId: string, toId: string): Promise<Violation[]> {
  const { rows } = await sql.query<{ from_live: number; to_live: number }>(
    `SELECT count(*) FILTER (WHERE from_entity_id = $2)::int AS from_live, count(*) FILTER (WHERE to_entity_id = $3)::int AS to_live
       FROM relationships WHERE rule_id = $1 AND deleted_at IS NULL AND (from_entity_id = $2 OR to_entity_id = $3)`,
    [rule.id, fromId, toId],
  );
  const out: Violation[] = [];
  // max_to_cardinality caps one `from` entity's links; max_from_cardinality caps one `to` entity's.
  if (rule.max_to_cardinality !== null && rows[0].from_live >= rule.max_to_cardinality) {
    out.push({ side: "from", entity_id: fromId, cap: rule.max_to_cardinality, live: rows[0].from_live });
  }
  if (rule.max_from_cardinality !== null && rows[0].to_live >= rule.max_from_cardinality) {
    out.push({ side: "to", entity_id: toId, cap: rule.max_from_cardinality, live: rows[0].to_live });
  }
  return out;
}

/** Retires the oldest links on each violating side, just enough to make room for one more. */
async function makeRoom(sql: Sql, rule: RuleRow, found: Violation[]) {
  for (const v of found) {
    const column = v.side === "from" ? "from_entity_id" : "to_entity_id";
    await sql.query(
      `UPDATE relationships SET deleted_at = now()
        WHERE id IN (SELECT id FROM relationships WHERE rule_id = $1 AND ${column} = $2 AND deleted_at IS NULL ORDER BY created_at, id LIMIT $3)`,
      [rule.id, v.entity_id, v.live - v.cap + 1],
    );
  }
}

export async function createLink(tenant: TenantDb, input: CreateLinkInput) {
  if ((input.rule_id === undefined) === (input.rule_name === undefined)) {
    throw new ApiError("VALIDATION_FAILED", "Request failed validation", {
      validation_errors: ["(root): exactly one of rule_id and rule_name is required"],
      errors: ["(root): exactly one of rule_id and rule_name is required"],
    });
  }
  return tenant.tx(async (sql) => {
    const rule = await requireRule(sql, input);
    const types = await lockEntities(sql, [input.from_entity_id, input.to_entity_id]);
    for (const id of [input.from_entity_id, input.to_entity_id]) if (!types.has(id)) throw notFound("Entity", id);
    if (types.get(input.from_entity_id) !== rule.from_type_id || types.get(input.to_entity_id) !== rule.to_type_id) {
      throw new ApiError("UNPROCESSABLE_ENTITY", `Rule ${rule.name} links ${rule.from_type_name} to ${rule.to_type_name}; the entities are of other types`, {
        rule: rule.name,
        from_entity_type: rule.from_type_name,
        to_entity_type: rule.to_type_name,
      });
    }
    const existing = await sql.query<{ id: string }>(
      "SELECT id FROM relationships WHERE rule_id = $1 AND from_entity_id = $2 AND to_entity_id = $3 AND deleted_at IS NULL",
      [rule.id, input.from_entity_id, input.to_entity_id],
    );
    if (existing.rows.length) throw new ApiError({ code: "LINK_EXISTS", relationship_id: existing.rows[0].id }, "These entities are already linked by this rule");

    const found = await violations(sql, rule, input.from_entity_id, input.to_entity_id);
    if (found.length) {
      const policy = input.on_cardinality_violation ?? "raise";
      if (policy === "raise") throw new ApiError({ code: "CARDINALITY_VIOLATION", rule: rule.name, violations: found }, "Cardinality constraint violated");
      if (policy === "ignore") {
        throw new ApiError(
          { code: "CARDINALITY_VIOLATION_IGNORED", rule: rule.name, violations: found },
          "Link not written: cardinality constraint violated and on_cardinality_violation is ignore",
        );
      }
      await makeRoom(sql, rule, found);
    }
    const { rows } = await sql.query<LinkRow & Record<string, unknown>>(
      `INSERT INTO relationships (tenant_id, rule_id, from_entity_id, to_entity_id) VALUES ($1, $2, $3, $4)
       RETURNING id, rule_id, from_entity_id, to_entity_id, created_at`,
      [tenant.tenantId, rule.id, input.from_entity_id, input.to_entity_id],
    );
    return presentLink(rows[0], rule);
  });
}

export async function getLink(tenant: TenantDb, id: string) {
  return tenant.tx(async (sql) => {
    const { rows } = await sql.query<LinkRow & Record<string, unknown>>(
      "SELECT id, rule_id, from_entity_id, to_entity_id, created_at FROM relationships WHERE id = $1 AND deleted_at IS NULL",
      [id],
    );
    if (!rows.length) throw notFound("Relationship", id);
    return presentLink(rows[0], await requireRule(sql, { rule_id: rows[0].rule_id }));
  });
}

export async function deleteLink(tenant: TenantDb, id: string) {
  return tenant.tx(async (sql) => {
    const { rows } = await sql.query<{ id: string; deleted_at: string }>(
      "UPDATE relationships SET deleted_at = now() WHERE id = $1 AND deleted_at IS NULL RETURNING id, deleted_at",
      [id],
    );
    if (!rows.length) throw notFound("Relationship", id);
    return { id: rows[0].id, deleted: true as const, deleted_at: rows[0].deleted_at };
  });
}
