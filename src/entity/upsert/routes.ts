// POST /entity/entities/upsert
import { route } from "../../lib/route";
import { dataEnvelope, exactlyOneOf, uuidSchema } from "../../lib/schemas";
import { TYPE_NAME } from "../entity-types/routes";
import { MAX_ROWS, rowSchema } from "./rows";
import { upsertEntities, type UpsertInput } from "./service";
import { scanUpsertBody } from "./body-scan";
import { validate } from "../../lib/validate";

// The envelope is checked with `data` emptied; rows are checked one by one
// in prepareRows (with the type's schema and positions in the error lines).
export const upsertBody = {
  type: "object",
  additionalProperties: false,
  required: ["data"],
  properties: {
    type_name: TYPE_NAME,
    type_id: uuidSchema,
    data: { type: "array", maxItems: MAX_ROWS, description: `Rows (at most ${MAX_ROWS}); each as rowSchema` },
    on_conflict: { enum: ["raise", "ignore", "merge", "replace"] },
    merge_on_conflict: { type: "boolean" },
    merge_cardinality: { enum: ["raise", "trim"] },
    skip_unresolved_relationships: { type: "boolean" },
    suppress_events: { type: "boolean" },
  },
  ...exactlyOneOf("type_name", "type_id"),
} as const;

/** Upsert and CSV import take bodies of up to 32 MiB (100,000 rows), more than the default. */
export const UPSERT_BODY_LIMIT = 32 * 1024 * 1024;

export const upsertResult = {
  type: "object",
  required: ["created", "updated", "unchanged", "ignored", "ids", "errors"],
  properties: {
    created: { type: "integer" },
    updated: { type: "integer" },
    unchanged: { type: "integer" },
    ignored: { type: "integer" },
    ids: { type: "array", items: { type: "string" }, description: "Entity id per input row, in input order" },
    errors: {
      type: "array",
      description: "Relationships skipped with skip_unresolved_relationships",
      items: { type: "object", required: ["index", "code", "message"], properties: { index: { type: "integer" }, code: { const: "UNRESOLVED_RELATIONSHIP" }, message: { type: "string" } } },
    },
  },
} as const;

export const upsertRoutes = [
  route({
    method: "post",
    path: "/entity/entities/upsert",
    tag: "entities",
    summary: "Insert or update up to 100,000 entities by id or computed key",
    permission: ["entity", "update"],
    bodyLimit: UPSERT_BODY_LIMIT,
    documentedBody: { ...upsertBody, properties: { ...upsertBody.properties, data: { ...upsertBody.properties.data, items: rowSchema } } },
    responses: {
      200: { description: "Counts, ids in input order, skipped relationship errors", schema: dataEnvelope(upsertResult) },
      404: { description: "A row id matches no live entity" },
      409: { description: "on_conflict raise hit an existing entity; key collision with merge_on_conflict false; cardinality. After a committed batch, details.committed names the rows that stay written" },
      422: { description: "Rows failed validation (every problem of every row, twenty lines and a count), the row cap was exceeded, or a relationship did not resolve" },
    },
    handler: async (c) => {
      const body = scanUpsertBody(new Uint8Array(await c.req.arrayBuffer()));
      const input = validate<UpsertInput>(upsertBody, body.envelope);
      return c.json({ data: await upsertEntities(c.var.ctx, input, body.rows) });
    },
  }),
];
