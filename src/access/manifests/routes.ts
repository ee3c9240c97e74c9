// /access/manifests: the shares each app spec's `shares` block provisions.
import { route } from "../../gateway/route";
import { listEnvelope, paginationQuery, uuidSchema } from "../../lib/schemas";
import { pageOf } from "../../lib/pagination";
import { listManifests } from "./store";
import { manifestItem } from "./schemas";

export const manifestRoutes = [
  route({
    operation: "listManifests",
    method: "get",
    path: "/access/manifests",
    tag: "access",
    summary: "List the manifests of this tenant's app specs (one per spec, derived from its shares block alone)",
    permission: ["access", "read"],
    query: { type: "object", additionalProperties: false, properties: { ...paginationQuery, spec_id: uuidSchema } },
    responses: { 200: { description: "Manifests, newest spec first", schema: listEnvelope(manifestItem) } },
    handler: async (c, { query }) => c.json(await listManifests(c.var.ctx.tenant, query ?? {}, pageOf(query))),
  }),
];
