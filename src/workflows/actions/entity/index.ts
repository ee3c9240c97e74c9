// The entity actions of the catalog, each its own module: the REST routes of
// /entity (query, query-graph, upsert, bulk delete, relationships) as
// actions, through the same services and permission checks.
import type { ActionFamily } from "../types";
import { queryEntity } from "./query-entity";
import { queryEntityGraph } from "./query-entity-graph";
import { removeEntities } from "./remove-entities";
import { removeRelationships } from "./remove-relationships";
import { syncRelationships } from "./sync-relationships";
import { upsertEntity } from "./upsert-entity";
import { upsertRelationship } from "./upsert-relationship";

export const entityActions: ActionFamily = {
  queryEntity,
  queryEntityGraph,
  upsertEntity,
  removeEntities,
  upsertRelationship,
  removeRelationships,
  syncRelationships,
};
