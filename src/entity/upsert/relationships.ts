// Inline relationships of upsert rows (docs/api.md,
// `POST /entity/entities/upsert`): targets resolve by id, or by identifier
// (the target type's key attributes) plus type name. All resolution is checked
// before anything is written; the links are written after the entities, so a
// target created by the same request resolves too.
import type { EntityAccess } from "../../db/entity-access";
import type { Sql } from "../../db/client";
import { ApiError } from "../../lib/errors";
import type { EntityType } from "../entity-types/store";
import { findType } from "../entity-types/store";
import { tryIdentifierKey, valueAt } from "../entities/identifier-key";
import { lockEntities, overCap, violationOf, type RuleEnd, type Side } from "../relationships/cardinality";
import type { RuleRow } from "../relationships/rules";
import type { InlineRelationship } from "./rows";

export interface PlannedLink {
  rowIndex: number;
  ruleId: string;
  /** Which end of the rule the upserted row is on. */
  rowSide: "from" | "to";
  target: { id: string } | { typeId: string; key: string };
}

export interface Unresolved {
  index: number;
  code: "UNRESOLVED_RELATIONSHIP";
  message: string;
}

const RULES_SQL = `
  SELECT r.id, r.name, r.from_type_id, f.name AS from_type_name, r.to_type_id, t.name AS to_type_name,
         r.max_from_cardinality, r.max_to_cardinality, r.created_at
    FROM relationship_rules r JOIN entity_types f ON f.id = r.from_type_id JOIN entity_types t ON t.id = r.to_type_id
   WHERE r.name = ANY($1::text[]) OR r.id = ANY($2::uuid[])`;

/** The key of the target, read from `target_identifier` by nested or flat dotted paths. */
function targetKey(type: EntityType, identifier: Record<string, unknown>): string | undefined {
  const flat: Record<string, unknown> = {};
  for (const p of type.config.identifier_key) flat[p] = identifier[p] ?? valueAt(identifier, p.split("."));
  const nested: Record<string, unknown> = {};
  for (const [p, v] of Object.entries(flat)) {
    const segs = p.split(".");
    let cur = nested;
    segs.slice(0, -1).forEach((s) => (cur = (cur[s] ??= {}) as Record<string, unknown>));
    cur[segs[segs.length - 1]] = v;
  }
  const result = tryIdentifierKey(type.config.identifier_key, nested);
  return "key" in result ? result.key : undefined;
}

/** A row that carries inline relationships. */
interface LinkingRow {
  index: number;
  relationships: InlineRelationship[];
}

/**
 * Resolves every inline relationship before anything is written. `ownKeys`
 * are the keys the request itself writes (by-key rows), which count as
 * resolvable targets of the row type.
 */
export async function planLinks(
  sql: Sql,
  access: EntityAccess,
  rowType: EntityType,
  withRels: LinkingRow[],
  ownKeys: Set<string>,
): Promise<{ links: PlannedLink[]; unresolved: Unresolved[] }> {
  if (!withRels.length) return { links: [], unresolved: [] };
  const rels = withRels.flatMap((r) => r.relationships.map((rel) => ({ row: r, rel })));

  const ruleNames = [...new Set(rels.map((x) => x.rel.rule_name).filter((v): v is string => !!v))];
  const ruleIds = [...new Set(rels.map((x) => x.rel.rule_id).filter((v): v is string => !!v))];
  const { rows: ruleRows } = await sql.query<RuleRow & Record<string, unknown>>(RULES_SQL, [ruleNames, ruleIds]);
  const rules = new Map<string, RuleRow>();
  for (const r of ruleRows) rules.set(`id:${r.id}`, r).set(`name:${r.name}`, r);

  const targetIds = [...new Set(rels.map((x) => x.rel.target_entity_id).filter((v): v is string => !!v))];
  const { rows: found } = await sql.query<{ id: string; type_id: string }>(
    "SELECT id, type_id FROM entities WHERE id = ANY($1::uuid[]) AND deleted_at IS NULL",
    [targetIds],
  );
  const typeOfId = new Map(found.map((r) => [r.id, r.type_id]));

  const types = new Map<string, EntityType | undefined>();
  for (const name of new Set(rels.map((x) => x.rel.target_type_name).filter((v): v is string => !!v))) {
    types.set(name, name === rowType.name ? rowType : await findType(sql, { type_name: name }));
  }
  // Keys by target type: existing live entities, and the request's own rows.
  const wantedKeys = new Map<string, Set<string>>();
  const pending: { row: LinkingRow; rel: InlineRelationship; rule: RuleRow; side: "from" | "to"; type: EntityType; key: string }[] = [];
  const links: PlannedLink[] = [];
  const unresolved: Unresolved[] = [];
  const fail = (row: LinkingRow, message: string) => unresolved.push({ index: row.index, code: "UNRESOLVED_RELATIONSHIP", message });

  for (const { row, rel } of rels) {
    const rule = rel.rule_id ? rules.get(`id:${rel.rule_id}`) : rules.get(`name:${rel.rule_name}`);
    if (!rule) {
      fail(row, `relationship rule ${rel.rule_id ?? rel.rule_name} not found`);
      continue;
    }
    // `direction` names the rule's side (`from` or `to`) the target is on; default `to`.
    const side: "from" | "to" = (rel.direction ?? "to") === "to" ? "from" : "to";
    const rowTypeId = side === "from" ? rule.from_type_id : rule.to_type_id;
    const targetTypeId = side === "from" ? rule.to_type_id : rule.from_type_id;
    if (rowTypeId !== rowType.id) {
      fail(row, `rule ${rule.name} does not have ${rowType.name} on its ${side} side`);
      continue;
    }
    // A link changes its target too: a target the caller may not read is not found (in the words used
    // for a target that does not exist), one it may read but not update is refused.
    const targetTypeName = side === "from" ? rule.to_type_name : rule.from_type_name;
    const target = { id: rel.target_entity_id ?? "", type_name: targetTypeName };
    if (!access.allowsRow("read", target.type_name, target.id)) {
      fail(row, rel.target_entity_id ? `target entity ${rel.target_entity_id} not found` : `target type ${rel.target_type_name} not found`);
      continue;
    }
    access.requireRow("update", target);
    if (rel.target_entity_id) {
      const t = typeOfId.get(rel.target_entity_id);
      if (!t) fail(row, `target entity ${rel.target_entity_id} not found`);
      else if (t !== targetTypeId) fail(row, `target entity ${rel.target_entity_id} is not of the type rule ${rule.name} expects`);
      else links.push({ rowIndex: row.index, ruleId: rule.id, rowSide: side, target: { id: rel.target_entity_id } });
      continue;
    }
    const type = types.get(rel.target_type_name!);
    if (!type || type.id !== targetTypeId) {
      fail(row, `target type ${rel.target_type_name} ${type ? `is not the type rule ${rule.name} expects` : "not found"}`);
      continue;
    }
    const key = targetKey(type, rel.target_identifier!);
    if (key === undefined) {
      fail(row, `target_identifier lacks the key attributes of ${type.name} (${type.config.identifier_key.join(", ")})`);
      continue;
    }
    (wantedKeys.get(type.id) ?? wantedKeys.set(type.id, new Set()).get(type.id)!).add(key);
    pending.push({ row, rel, rule, side, type, key });
  }

  const existing = new Set<string>();
  for (const [typeId, keys] of wantedKeys) {
    const { rows: hits } = await sql.query<{ identifier_key: string }>(
      "SELECT identifier_key FROM entities WHERE type_id = $1 AND identifier_key = ANY($2::text[]) AND deleted_at IS NULL",
      [typeId, [...keys]],
    );
    for (const h of hits) existing.add(`${typeId}:${h.identifier_key}`);
  }
  for (const p of pending) {
    const resolvable = existing.has(`${p.type.id}:${p.key}`) || (p.type.id === rowType.id && ownKeys.has(p.key));
    if (!resolvable) fail(p.row, `no live ${p.type.name} with identifier_key ${p.key}`);
    else links.push({ rowIndex: p.row.index, ruleId: p.rule.id, rowSide: p.side, target: { typeId: p.type.id, key: p.key } });
  }
  return { links, unresolved };
}

export const LINK_BATCH = 1000;

/**
 * Writes one batch of planned links: resolves keys to ids, locks the
 * entities involved (in id order), inserts what is not linked yet, then
 * refuses the batch if any rule cap is now exceeded.
 */
export async function writeLinks(sql: Sql, tenantId: string, links: PlannedLink[], idOf: (rowIndex: number) => string): Promise<number> {
  const byKey = links.filter((l): l is PlannedLink & { target: { typeId: string; key: string } } => "key" in l.target);
  const keyIds = new Map<string, string>();
  for (const typeId of new Set(byKey.map((l) => l.target.typeId))) {
    const keys = [...new Set(byKey.filter((l) => l.target.typeId === typeId).map((l) => l.target.key))];
    const { rows } = await sql.query<{ id: string; identifier_key: string }>(
      "SELECT id, identifier_key FROM entities WHERE type_id = $1 AND identifier_key = ANY($2::text[]) AND deleted_at IS NULL",
      [typeId, keys],
    );
    for (const r of rows) keyIds.set(`${typeId}:${r.identifier_key}`, r.id);
  }
  const triples = links.map((l) => {
    const targetId = "id" in l.target ? l.target.id : keyIds.get(`${l.target.typeId}:${l.target.key}`);
    if (!targetId) throw new ApiError("CONFLICT", "A relationship target disappeared while the upsert ran; retry the request", { index: l.rowIndex });
    const rowId = idOf(l.rowIndex);
    return l.rowSide === "from" ? [l.ruleId, rowId, targetId] : [l.ruleId, targetId, rowId];
  });
  await lockEntities(
    sql,
    triples.flatMap(([, f, t]) => [f, t]),
  );
  const { rows: inserted } = await sql.query<{ n: number }>(
    `WITH ins AS (
       INSERT INTO relationships (tenant_id, rule_id, from_entity_id, to_entity_id)
       SELECT DISTINCT $1::uuid, r, f, t FROM unnest($2::uuid[], $3::uuid[], $4::uuid[]) AS x(r, f, t)
       ON CONFLICT (tenant_id, rule_id, from_entity_id, to_entity_id) WHERE deleted_at IS NULL DO NOTHING
       RETURNING 1)
     SELECT count(*)::int AS n FROM ins`,
    [tenantId, triples.map((x) => x[0]), triples.map((x) => x[1]), triples.map((x) => x[2])],
  );
  const ends = (side: Side, at: 1 | 2): RuleEnd[] => triples.map((x) => ({ ruleId: x[0], side, entityId: x[at] }));
  const over = await overCap(sql, [...ends("from", 1), ...ends("to", 2)]);
  if (over.length) throw new ApiError({ code: "CARDINALITY_VIOLATION", violations: over.slice(0, 20).map(violationOf) }, "Cardinality constraint violated");
  return inserted[0].n;
}
