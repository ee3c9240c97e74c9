// POST /entity/entities/upsert
import { route } from "../../gateway/route";
import { dataEnvelope, freeFormObject } from "../../lib/schemas";
import { rowSchema } from "./rows";
import { upsertEntities, type UpsertInput } from "./service";
import { scanUpsertBody } from "./body-scan";
import { validate } from "../../lib/validate";
import { upsertBody, upsertResult, UPSERT_BODY_LIMIT } from "./schemas";

const documentedRow = { ...rowSchema, properties: { ...rowSchema.properties, attributes: freeFormObject } } as const;

export const upsertRoutes = [
  route({
    operation: "upsertEntities",
    method: "post",
    path: "/entity/entities/upsert",
    tag: "entities",
    summary: "Insert or update up to 100,000 entities by id or computed key",
    permission: ["entity", "update"],
    // The small upsert sends one batch over HTTP; the others open the WebSocket on their first transaction.
    overHttp: true,
    bodyLimit: UPSERT_BODY_LIMIT,
    // A row's attributes are documented as any keys, which they are: the row check leaves out
    // `additionalProperties: true` only because the validator would visit every attribute for it.
    documentedBody: { ...upsertBody, properties: { ...upsertBody.properties, data: { ...upsertBody.properties.data, items: documentedRow } } },
    responses: {
      200: { description: "Counts, ids in input order, skipped relationship errors", schema: dataEnvelope(upsertResult) },
      404: { description: "A row id matches no live entity" },
      409: {
        description:
          "on_conflict raise hit an existing entity; key collision with merge_on_conflict false; cardinality. After a committed batch, details.committed names the rows that stay written",
      },
      422: {
        description:
          "Rows failed validation (every problem of every row, twenty lines and a count), the row cap was exceeded, or a relationship did not resolve",
      },
    },
    handler: async (c) => {
      const body = scanUpsertBody(new Uint8Array(await c.req.arrayBuffer()));
      const input = validate<UpsertInput>(upsertBody, body.envelope);
      return c.json({ data: await upsertEntities(c.var.ctx, input, body.rows) });
    },
  }),
];
