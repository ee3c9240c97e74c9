// POST /entity/entities/import and /entity/entities/export (docs/api.md, Entities)
import { route } from "../../gateway/route";
import { dataEnvelope } from "../../lib/schemas";
import { UPSERT_BODY_LIMIT } from "../upsert/schemas";
import { upsertResult } from "../upsert/schemas";
import { exportStream, prepareExport } from "./export";
import { importConfigSchema, importEntities, readImportConfig } from "./import";
import { exportBody } from "./schemas";

export const csvRoutes = [
  route({
    operation: "importEntities",
    method: "post",
    path: "/entity/entities/import",
    tag: "entities",
    summary: "Import a CSV body through the upsert path (X-Import-Config: URL-encoded JSON)",
    permission: ["entity", "create"],
    bodyLimit: UPSERT_BODY_LIMIT,
    documentedRequest: {
      content: { "text/csv": { schema: { type: "string", description: "RFC 4180 CSV with a header row" } } },
      headers: [
        {
          name: "X-Import-Config",
          required: true,
          description: `URL-encoded JSON: ${JSON.stringify(Object.keys(importConfigSchema.properties))}, exactly one of entity_type_id and entity_type_name`,
          schema: { type: "string", contentMediaType: "application/json" },
        },
      ],
    },
    responses: {
      200: { description: "The upsert counts", schema: dataEnvelope(upsertResult) },
      404: { description: "Unknown entity type" },
      409: { description: "on_conflict raise hit an existing entity" },
      422: {
        description: `A bad X-Import-Config (${JSON.stringify(Object.keys(importConfigSchema.properties))}), a header that does not map (with a delimiter hint when it read as one column), records that do not parse, cells that do not convert and rows that fail validation (every one, named by line and column), or over 100,000 rows`,
      },
    },
    handler: async (c) => {
      const config = readImportConfig(c.req.header("X-Import-Config"));
      return c.json({ data: await importEntities(c.var.ctx, config, c.req.raw.body) });
    },
  }),
  route({
    operation: "exportEntities",
    method: "post",
    path: "/entity/entities/export",
    tag: "entities",
    summary: "Export the entities of a type as CSV, filtered and sorted by the query compiler, streamed",
    permission: ["entity", "read"],
    body: exportBody,
    responses: {
      200: { description: "RFC 4180 CSV with a header row", contentType: "text/csv", schema: { type: "string" } },
      404: { description: "Unknown type_name" },
      422: { description: "Invalid filter or sort" },
    },
    handler: async (c, { body }) => {
      const prepared = await prepareExport(c.var.ctx.tenant, body);
      const { body: csv, done } = exportStream(c.var.ctx.tenant, prepared, body);
      c.executionCtx.waitUntil(done);
      return new Response(csv, {
        headers: { "Content-Type": "text/csv; charset=utf-8", "Content-Disposition": `attachment; filename="${prepared.type.name}.csv"` },
      });
    },
  }),
];
