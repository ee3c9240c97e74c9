// GET /apps/components: every named catalogue, for host kits and authors.
import { route } from "../../gateway/route";
import { noAuth } from "../../gateway/route-auth";
import { CATALOGUES } from "../../definition/language/components/catalogue";

const schemaObject = { type: "object", description: "A JSON Schema", additionalProperties: true } as const;

const catalogueList = {
  type: "object",
  required: ["data"],
  properties: {
    data: {
      type: "array",
      items: {
        type: "object",
        required: ["name", "components"],
        properties: {
          name: { type: "string", examples: ["standard/1"] },
          components: {
            type: "object",
            additionalProperties: {
              type: "object",
              required: ["description", "config", "state", "handlers"],
              properties: {
                description: { type: "string" },
                config: schemaObject,
                state: schemaObject,
                handlers: { type: "object", additionalProperties: { type: "object", required: ["payload"], properties: { payload: schemaObject } } },
              },
            },
          },
        },
      },
    },
  },
} as const;

const LISTED = Object.entries(CATALOGUES).map(([name, components]) => ({ name, components }));

export const componentRoutes = [
  route({
    operation: "listComponentCatalogues",
    method: "get",
    path: "/apps/components",
    tag: "apps",
    summary: "The component catalogues: each component's description and the JSON Schemas of its config, state and handler payloads",
    auth: noAuth,
    responses: { 200: { description: "Every catalogue, by name", schema: catalogueList } },
    // A named catalogue never changes meaning (a new one gets a new name), so hosts may cache the list for an hour.
    handler: async (c) => c.json({ data: LISTED }, 200, { "Cache-Control": "public, max-age=3600" }),
  }),
];
