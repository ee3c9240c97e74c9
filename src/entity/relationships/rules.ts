// Relationship rules (docs/api.md, Relationships): a directed connection between two entity
// types with optional cardinality caps.
import type { Sql, TenantDb } from "../../db/client";
import { pgCode } from "../../db/client";
import { ApiError, notFound } from "../../lib/errors";
import { offsetOf, paginated, type Page } from "../../lib/pagination";
import { requireType } from "../entity-types/store";
import type { FromSchema } from "json-schema-to-ts";
import type { createRuleBody } from "./schemas";

export interface RuleRow {
  id: string;
  name: string;
  from_type_id: string;
  from_type_name: string;
  to_type_id: string;
  to_type_name: string;
  max_from_cardinality: number | null;
  max_to_cardinality: number | null;
  created_at: string;
}

const RULE_SELECT = `
  SELECT r.id, r.name, r.from_type_id, f.name AS from_type_name, r.to_type_id, t.name AS to_type_name,
         r.max_from_cardinality, r.max_to_cardinality, r.created_at
    FROM relationship_rules r
    JOIN entity_types f ON f.id = r.from_type_id
    JOIN entity_types t ON t.id = r.to_type_id`;

export function presentRule(r: RuleRow) {
  return {
    id: r.id,
    name: r.name,
    from_entity_type: { id: r.from_type_id, name: r.from_type_name },
    to_entity_type: { id: r.to_type_id, name: r.to_type_name },
    max_from_cardinality: r.max_from_cardinality,
    max_to_cardinality: r.max_to_cardinality,
    created_at: r.created_at,
  };
}

export async function findRule(sql: Sql, ref: { rule_id?: string; rule_name?: string }): Promise<RuleRow | undefined> {
  const { rows } = await sql.query<RuleRow & Record<string, unknown>>(ref.rule_id ? `${RULE_SELECT} WHERE r.id = $1` : `${RULE_SELECT} WHERE r.name = $1`, [
    ref.rule_id ?? ref.rule_name,
  ]);
  return rows[0];
}

export async function requireRule(sql: Sql, ref: { rule_id?: string; rule_name?: string }): Promise<RuleRow> {
  const rule = await findRule(sql, ref);
  if (!rule) throw notFound("Relationship rule", ref.rule_id ?? ref.rule_name);
  return rule;
}

export type CreateRuleInput = FromSchema<typeof createRuleBody>;

export async function createRule(tenant: TenantDb, input: CreateRuleInput) {
  try {
    return await tenant.tx(async (sql) => {
      const from = await requireType(sql, { type_id: input.from_entity_type_id, type_name: input.from_entity_type_name });
      const to = await requireType(sql, { type_id: input.to_entity_type_id, type_name: input.to_entity_type_name });
      const { rows } = await sql.query<{ id: string }>(
        `INSERT INTO relationship_rules (tenant_id, name, from_type_id, to_type_id, max_from_cardinality, max_to_cardinality)
         VALUES ($1, $2, $3, $4, $5, $6) RETURNING id`,
        [tenant.tenantId, input.name, from.id, to.id, input.max_from_cardinality ?? null, input.max_to_cardinality ?? null],
      );
      return presentRule(await requireRule(sql, { rule_id: rows[0].id }));
    });
  } catch (e) {
    if (pgCode(e) === "23505") throw new ApiError("CONFLICT", `Relationship rule ${input.name} already exists`, { name: input.name });
    throw e;
  }
}

export async function getRule(tenant: TenantDb, id: string) {
  return presentRule(await tenant.tx((sql) => requireRule(sql, { rule_id: id })));
}

/** Rules where the named type is on either side. */
export async function listRules(tenant: TenantDb, filter: { entity_type_name?: string; name?: string }, page: Page) {
  return tenant.tx(async (sql) => {
    const where = `WHERE ($1::text IS NULL OR f.name = $1 OR t.name = $1) AND ($2::text IS NULL OR r.name = $2)`;
    const params = [filter.entity_type_name ?? null, filter.name ?? null];
    const { rows } = await sql.query<RuleRow & Record<string, unknown>>(`${RULE_SELECT} ${where} ORDER BY r.name LIMIT $3 OFFSET $4`, [
      ...params,
      page.limit,
      offsetOf(page),
    ]);
    const { rows: counted } = await sql.query<{ total: number }>(
      `SELECT count(*)::int AS total FROM relationship_rules r JOIN entity_types f ON f.id = r.from_type_id JOIN entity_types t ON t.id = r.to_type_id ${where}`,
      params,
    );
    return paginated(rows.map(presentRule), page, counted[0].total);
  });
}
