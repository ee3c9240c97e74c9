// Loads the `relationships` of a set of entities for `include` (docs/api.md,
// Include parameters; docs/query.md, Includes): one hop, rules resolved in
// either direction, live links and live related entities only, at most `limit`
// per anchor entity, in one statement.
import { assertTenantRows, type Sql } from "../../db/client";
import { compiled, type CompiledStatement } from "../../db/params";
import { SHARED } from "../../lib/shared-marker";
import type { RelationshipEntry } from "../entities/rows";
import type { ReadScope } from "../../db/entity-access";

export interface IncludeSpec {
  /** Related type names; null means any. */
  typeNames: string[] | null;
  ruleIds?: string[] | null;
  ruleNames?: string[] | null;
  limit: number;
  /**
   * A compiled filter and sort over the related entity `e` (query
   * include_specs), with their parameters numbered from INCLUDE_FIRST_PARAM.
   */
  where?: { sql: string; orderBy: string; params: unknown[] };
}

// $7..$10 confine the related rows to the caller's read scope (db/entity-access.ts).
export const INCLUDE_FIRST_PARAM = 11;

interface LinkRow {
  tenant_id: string;
  anchor: string;
  direction: "to" | "from";
  rule_id: string;
  rule_name: string;
  id: string;
  name: string;
  type_id: string;
  type_name: string;
  attributes: Record<string, unknown>;
}

const linksSql = (where = "TRUE", orderBy = "") => `
  WITH links AS (
    SELECT r.from_entity_id AS anchor, r.to_entity_id AS related, 'to' AS direction, r.rule_id, r.created_at, r.id AS link_id
      FROM relationships r WHERE r.tenant_id = $6 AND r.from_entity_id = ANY($1::uuid[]) AND r.deleted_at IS NULL
    UNION ALL
    SELECT r.to_entity_id, r.from_entity_id, 'from', r.rule_id, r.created_at, r.id
      FROM relationships r WHERE r.tenant_id = $6 AND r.to_entity_id = ANY($1::uuid[]) AND r.deleted_at IS NULL
  ), ranked AS (
    SELECT e.tenant_id, l.anchor, l.direction, l.rule_id, rr.name AS rule_name, e.id, e.name, e.type_id, t.name AS type_name, e.attributes,
           row_number() OVER (PARTITION BY l.anchor ORDER BY ${orderBy}l.created_at, l.link_id) AS n
      FROM links l
      JOIN relationship_rules rr ON rr.id = l.rule_id AND rr.tenant_id = $6
      JOIN entities e ON e.id = l.related AND e.tenant_id = $6 AND e.deleted_at IS NULL
      JOIN entity_types t ON t.id = e.type_id AND t.tenant_id = $6
     WHERE ($2::text[] IS NULL OR t.name = ANY($2::text[]))
       AND ($3::uuid[] IS NULL OR l.rule_id = ANY($3::uuid[]))
       AND ($4::text[] IS NULL OR rr.name = ANY($4::text[]))
       AND ($7::text[] IS NULL OR t.name = ANY($7::text[]) OR e.id = ANY($8::uuid[]))
       AND ($9::uuid[] IS NULL OR e.type_id = ANY($9::uuid[]) OR e.id = ANY($10::uuid[]))
       AND ${where}
  )
  SELECT tenant_id, anchor, direction, rule_id, rule_name, id, name, type_id, type_name, attributes, n FROM ranked WHERE n <= $5 ORDER BY anchor, n`;

/**
 * One spec's statement over `anchorIds`: a row per live link with its anchor,
 * direction, rule, the related entity, and `n`, its rank under the anchor.
 * Every table names the tenant, so it also serves the owner path (no
 * row-level security); the related entity's tenant comes back to be checked.
 */
export function linksStatement(scope: ReadScope, anchorIds: string[], spec: IncludeSpec): CompiledStatement {
  return compiled(linksSql(spec.where?.sql, spec.where?.orderBy), [
    anchorIds,
    spec.typeNames,
    spec.ruleIds ?? null,
    spec.ruleNames ?? null,
    spec.limit,
    scope.tenantId,
    scope.typeNames,
    scope.entityIds,
    scope.shared?.typeIds ?? null,
    scope.shared?.entityIds ?? [],
    ...(spec.where?.params ?? []),
  ]);
}

/** Under a tenant transaction or on the owner path (a TenantReader). */
export async function loadRelationships(
  sql: Pick<Sql, "run">,
  scope: ReadScope,
  anchorIds: string[],
  specs: IncludeSpec[],
): Promise<Map<string, RelationshipEntry[]>> {
  const out = new Map<string, RelationshipEntry[]>(anchorIds.map((id) => [id, []]));
  if (!anchorIds.length) return out;
  for (const spec of specs) {
    const { rows } = await sql.run<LinkRow & Record<string, unknown>>(linksStatement(scope, anchorIds, spec));
    assertTenantRows(rows, scope.tenantId);
    for (const r of rows) {
      out.get(r.anchor)?.push({
        rule: { id: r.rule_id, name: r.rule_name },
        entity: { id: r.id, name: r.name, type: { id: r.type_id, name: r.type_name }, attributes: r.attributes, ...(scope.shared ? SHARED : {}) },
        direction: r.direction,
      });
    }
  }
  return out;
}
