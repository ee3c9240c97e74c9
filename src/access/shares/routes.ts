// /access/shares: which of the tenant's resources other tenants may read.
import { route } from "../../gateway/route";
import { dataEnvelope, deleted, listEnvelope, paginationQuery, uuidSchema } from "../../lib/schemas";
import { pageOf } from "../../lib/pagination";
import { createShare, deleteShare, getShare, listOutgoing, listReceived } from "./store";
import { RESOURCE_TYPE, shareItem, receivedItem, createShareBody } from "./schemas";

export const shareRoutes = [
  route({
    operation: "createShare",
    method: "post",
    path: "/access/shares",
    tag: "access",
    summary: "Share a resource with another tenant (read-only)",
    permission: ["access", "create"],
    idempotent: true,
    body: createShareBody,
    responses: {
      201: { description: "Shared", schema: dataEnvelope(shareItem) },
      404: { description: "The resource is not one of the caller's" },
      409: { description: "Already shared with that tenant (details.share_id)" },
      422: { description: "Unknown or own target tenant, or an action other than read" },
    },
    handler: async (c, { body }) => c.json({ data: await createShare(c.var.ctx.tenant, body) }, 201),
  }),
  route({
    operation: "listShares",
    method: "get",
    path: "/access/shares",
    tag: "access",
    summary: "List the shares this tenant made",
    permission: ["access", "read"],
    query: {
      type: "object",
      additionalProperties: false,
      properties: { ...paginationQuery, resource_type: RESOURCE_TYPE, resource_id: uuidSchema, target_tenant_id: uuidSchema },
    },
    responses: { 200: { description: "Outgoing shares, newest first", schema: listEnvelope(shareItem) } },
    handler: async (c, { query }) => c.json(await listOutgoing(c.var.ctx.tenant, query ?? {}, pageOf(query))),
  }),
  // Declared before /access/shares/:id, which would otherwise take "received" as an id.
  route({
    operation: "listReceivedShares",
    method: "get",
    path: "/access/shares/received",
    tag: "access",
    summary: "List the shares other tenants made to this tenant",
    permission: ["access", "read"],
    query: {
      type: "object",
      additionalProperties: false,
      properties: { ...paginationQuery, resource_type: RESOURCE_TYPE, resource_id: uuidSchema, owner_tenant_id: uuidSchema },
    },
    responses: { 200: { description: "Received shares, newest first", schema: listEnvelope(receivedItem) } },
    handler: async (c, { query }) => c.json(await listReceived(c.var.ctx.tenant, query ?? {}, pageOf(query))),
  }),
  route({
    operation: "getShare",
    method: "get",
    path: "/access/shares/:id",
    tag: "access",
    summary: "Get a share this tenant made",
    permission: ["access", "read"],
    params: { id: uuidSchema },
    responses: { 200: { description: "Share", schema: dataEnvelope(shareItem) }, 404: { description: "No such share made by this tenant" } },
    handler: async (c, { params }) => c.json({ data: await getShare(c.var.ctx.tenant, params.id) }),
  }),
  route({
    operation: "deleteShare",
    method: "delete",
    path: "/access/shares/:id",
    tag: "access",
    summary: "Revoke a share; the target tenant loses access at once",
    permission: ["access", "delete"],
    params: { id: uuidSchema },
    responses: {
      200: {
        description: "Revoked",
        schema: dataEnvelope(deleted),
      },
      404: { description: "No such share made by this tenant (a received share cannot be revoked by its target)" },
    },
    handler: async (c, { params }) => c.json({ data: await deleteShare(c.var.ctx.tenant, params.id) }),
  }),
];
