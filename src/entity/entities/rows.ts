// Entity rows as SQL returns them, and their API shape (docs/api.md, Entities).
import { SHARED } from "../../lib/shared-marker";

export interface EntityRow {
  id: string;
  name: string;
  type_id: string;
  type_name: string;
  attributes: Record<string, unknown>;
  identifier_key: string;
  created_at: string;
  updated_at: string;
  deleted_at: string | null;
}

/** The select list that yields an EntityRow from `entities e JOIN entity_types t`. */
export const ENTITY_COLUMNS = `e.id, e.name, e.type_id, t.name AS type_name, e.attributes, e.identifier_key, e.created_at, e.updated_at, e.deleted_at`;

export interface RelationshipEntry {
  rule: { id: string; name: string };
  entity: { id: string; name: string; type: { id: string; name: string }; attributes: Record<string, unknown>; source_type?: "shared" };
  direction: "to" | "from";
}

export function presentEntity(row: EntityRow, relationships?: RelationshipEntry[], shared = false) {
  return {
    id: row.id,
    name: row.name,
    type: { id: row.type_id, name: row.type_name },
    attributes: row.attributes,
    identifier_key: row.identifier_key,
    created_at: row.created_at,
    updated_at: row.updated_at,
    deleted_at: row.deleted_at,
    ...(shared ? SHARED : {}),
    ...(relationships ? { relationships } : {}),
  };
}

export type PresentedEntity = ReturnType<typeof presentEntity>;
