// /access/secrets: values go in, never come out. The resolver
// (resolver.ts) is the only reader of a value.
import { route } from "../../gateway/route";
import { dataEnvelope, deleted, listEnvelope, paginationQuery, uuidSchema } from "../../lib/schemas";
import { pageOf } from "../../lib/pagination";
import { validationFailed } from "../../lib/validate";
import { deleteSecret, listSecrets, putSecret } from "./store";
import { SCOPES, principalId, putBody, secretItem, MAX_SECRET_BYTES } from "./schemas";

/** A value's limit, in UTF-8 bytes. */

const encoder = new TextEncoder();

export const secretRoutes = [
  route({
    operation: "putSecret",
    method: "post",
    path: "/access/secrets",
    tag: "access",
    summary: "Create or replace a secret (its value is never answered)",
    permission: ["access", "create"],
    // Not idempotent: the idempotency record keeps a hash of the body, and a hash of a guessable value gives it away. A repeat replaces the value with itself.
    body: putBody,
    responses: {
      201: { description: "Created", schema: dataEnvelope(secretItem) },
      200: { description: "Replaced the value of the secret with this scope, principal and name", schema: dataEnvelope(secretItem) },
    },
    handler: async (c, { body }) => {
      if (encoder.encode(body.value).byteLength > MAX_SECRET_BYTES) throw validationFailed([`value: must be at most ${MAX_SECRET_BYTES} bytes of UTF-8`]);
      const { secret, created } = await putSecret(c.var.ctx.tenant, c.var.ctx.secret, {
        scope: body.scope,
        principalId: body.scope === "tenant" ? null : body.principal_id!,
        name: body.name,
        value: body.value,
      });
      return c.json({ data: secret }, created ? 201 : 200);
    },
  }),
  route({
    operation: "listSecrets",
    method: "get",
    path: "/access/secrets",
    tag: "access",
    summary: "List secrets (never their values)",
    permission: ["access", "read"],
    query: { type: "object", additionalProperties: false, properties: { scope: { enum: SCOPES }, principal_id: principalId, ...paginationQuery } },
    responses: { 200: { description: "Secrets, newest first", schema: listEnvelope(secretItem) } },
    handler: async (c, { query }) => c.json(await listSecrets(c.var.ctx.tenant, query, pageOf(query))),
  }),
  route({
    operation: "deleteSecret",
    method: "delete",
    path: "/access/secrets/:id",
    tag: "access",
    summary: "Delete a secret",
    permission: ["access", "delete"],
    params: { id: uuidSchema },
    responses: {
      200: { description: "Deleted", schema: dataEnvelope(deleted) },
      404: { description: "No such secret" },
    },
    handler: async (c, { params }) => c.json({ data: await deleteSecret(c.var.ctx.tenant, params.id) }),
  }),
];
