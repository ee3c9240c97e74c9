// Relationship links (docs/api.md, Relationships): one live link per (rule, from, to), with
// the rule's caps enforced in the writing transaction. Both entity rows are
// locked first, so concurrent writers on either end queue behind each other
// and cannot overshoot a cap.
import { refuseMissing } from "../entities/service";
import type { Sql, TenantDb } from "../../db/client";
import { ApiError, notFound } from "../../lib/errors";
import { lockEntities, overCap, retireOldest, violationOf } from "./cardinality";
import { requireRule, type RuleRow } from "./rules";
import type { FromSchema } from "json-schema-to-ts";
import type { linkBody } from "./schemas";

export type CardinalityPolicy = "raise" | "replace" | "ignore";

export type CreateLinkInput = FromSchema<typeof linkBody>;

export interface LinkRow {
  id: string;
  rule_id: string;
  from_entity_id: string;
  to_entity_id: string;
  created_at: string;
}

/** 422: entities of other types than the rule links. */
export function wrongTypes(rule: RuleRow): ApiError {
  return new ApiError("UNPROCESSABLE_ENTITY", `Rule ${rule.name} links ${rule.from_type_name} to ${rule.to_type_name}; the entities are of other types`, {
    rule: rule.name,
    from_entity_type: rule.from_type_name,
    to_entity_type: rule.to_type_name,
  });
}

export function presentLink(link: LinkRow, rule: RuleRow) {
  return {
    id: link.id,
    rule: { id: rule.id, name: rule.name },
    from_entity_id: link.from_entity_id,
    to_entity_id: link.to_entity_id,
    created_at: link.created_at,
  };
}

export async function createLink(tenant: TenantDb, input: CreateLinkInput) {
  const done = await tenant.tx(async (sql) => {
    const rule = await requireRule(sql, input);
    const types = await lockEntities(sql, [input.from_entity_id, input.to_entity_id]);
    const missing = [input.from_entity_id, input.to_entity_id].find((id) => !types.has(id));
    if (missing) return { missing, link: null };
    if (types.get(input.from_entity_id) !== rule.from_type_id || types.get(input.to_entity_id) !== rule.to_type_id) throw wrongTypes(rule);
    // Linking changes both ends.
    tenant.access.requireRow("update", { id: input.from_entity_id, type_name: rule.from_type_name });
    tenant.access.requireRow("update", { id: input.to_entity_id, type_name: rule.to_type_name });
    const existing = await sql.query<{ id: string }>(
      "SELECT id FROM relationships WHERE rule_id = $1 AND from_entity_id = $2 AND to_entity_id = $3 AND deleted_at IS NULL",
      [rule.id, input.from_entity_id, input.to_entity_id],
    );
    if (existing.rows.length)
      throw new ApiError({ code: "LINK_EXISTS", relationship_id: existing.rows[0].id }, "These entities are already linked by this rule");

    // Room for this one more link at both ends?
    const over = await overCap(
      sql,
      [
        { ruleId: rule.id, side: "from", entityId: input.from_entity_id },
        { ruleId: rule.id, side: "to", entityId: input.to_entity_id },
      ],
      1,
    );
    if (over.length) {
      const found = over.map(violationOf);
      const policy = input.on_cardinality_violation ?? "raise";
      if (policy === "raise") throw new ApiError({ code: "CARDINALITY_VIOLATION", rule: rule.name, violations: found }, "Cardinality constraint violated");
      if (policy === "ignore") {
        throw new ApiError(
          { code: "CARDINALITY_VIOLATION_IGNORED", rule: rule.name, violations: found },
          "Link not written: cardinality constraint violated and on_cardinality_violation is ignore",
        );
      }
      await retireOldest(sql, over, 1);
    }
    const { rows } = await sql.query<LinkRow & Record<string, unknown>>(
      `INSERT INTO relationships (tenant_id, rule_id, from_entity_id, to_entity_id) VALUES ($1, $2, $3, $4)
       RETURNING id, rule_id, from_entity_id, to_entity_id, created_at`,
      [tenant.tenantId, rule.id, input.from_entity_id, input.to_entity_id],
    );
    return { missing: null, link: presentLink(rows[0], rule) };
  });
  return done.link ?? refuseMissing(tenant, [done.missing!]);
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

/**
 * Soft-deletes the live links among `ids` inside the caller's transaction,
 * after checking update on both ends of each (unlinking changes both).
 * Answers the links it removed; ids of no live link are left out.
 */
export async function retireLinks(tenant: TenantDb, sql: Sql, ids: string[]): Promise<{ id: string; deleted_at: string }[]> {
  if (!ids.length) return [];
  const { rows: ends } = await sql.query<{ id: string; type_name: string }>(
    `SELECT e.id, t.name AS type_name FROM relationships r JOIN entities e ON e.id IN (r.from_entity_id, r.to_entity_id) JOIN entity_types t ON t.id = e.type_id
      WHERE r.id = ANY($1::uuid[]) AND r.deleted_at IS NULL`,
    [ids],
  );
  for (const end of ends) tenant.access.requireRow("update", end);
  const { rows } = await sql.query<{ id: string; deleted_at: string }>(
    "UPDATE relationships SET deleted_at = now() WHERE id = ANY($1::uuid[]) AND deleted_at IS NULL RETURNING id, deleted_at",
    [ids],
  );
  return rows;
}

export async function deleteLink(tenant: TenantDb, id: string) {
  return tenant.tx(async (sql) => {
    const [row] = await retireLinks(tenant, sql, [id]);
    if (!row) throw notFound("Relationship", id);
    return { id: row.id, deleted: true as const, deleted_at: row.deleted_at };
  });
}
