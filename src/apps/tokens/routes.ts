// PUT /apps/{specId}/integrations/{integrationId}/token: the render
// credential of an integration, shown once.
import { route } from "../../lib/route";
import { dataEnvelope, uuidSchema } from "../../lib/schemas";
import { mintAppToken } from "./store";

const tokenItem = {
  type: "object",
  required: ["id", "integration_id", "created_at"],
  properties: { id: uuidSchema, integration_id: uuidSchema, created_at: { type: "string", format: "date-time" } },
} as const;

const minted = {
  ...dataEnvelope(tokenItem),
  required: ["data", "raw_token"],
  properties: { ...dataEnvelope(tokenItem).properties, raw_token: { type: "string", pattern: "^svc_at_[0-9a-f]{64}$", description: "The token itself, shown only in this answer" } },
} as const;

export const tokenRoutes = [
  route({
    operation: "mintAppToken",
    method: "put",
    path: "/apps/:specId/integrations/:integrationId/token",
    tag: "apps",
    summary: "Mint the integration's app token (svc_at_<64 hex>, shown once); ?rotate=true replaces a live one, which stops working at once",
    permission: ["app", "update"],
    params: { specId: uuidSchema, integrationId: uuidSchema },
    query: { type: "object", additionalProperties: false, properties: { rotate: { type: "boolean", default: false } } } as const,
    responses: {
      201: { description: "Minted: the first live token of the integration", schema: minted },
      200: { description: "Rotated: the old token is revoked, this one replaces it", schema: minted },
      404: { description: "No such integration of this spec's activation in the caller's tenant" },
      409: { description: "The integration has a live token and rotate is not true; nothing changed" },
    },
    handler: async (c, { params, query }) => {
      const { token, raw, rotated } = await mintAppToken(c.var.ctx.tenant, c.var.ctx.principal, params.specId, params.integrationId, query?.rotate === true);
      return c.json({ data: token, raw_token: raw }, rotated ? 200 : 201);
    },
  }),
];
