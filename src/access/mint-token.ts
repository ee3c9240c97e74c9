// Minting a PAT, declared once and offered at two paths (POST
// /access/api-tokens and POST /auth/tokens/api), each route spreading this
// with its own literal path, tag and summary: one schema, one handler.
import type { Context } from "hono";
import type { HonoEnv } from "../gateway/env";
import { dataEnvelope } from "../lib/schemas";
import { mintToken, type MintInput } from "./api-tokens";
import { mintTokenBody, mintedToken } from "./schemas";

export const mintTokenOperation = {
  method: "post",
  permission: ["access", "create"] as [string, string],
  // Not idempotent: a replay would need the raw secret stored (only its hash is kept) and would show it twice.
  body: mintTokenBody,
  responses: { 201: { description: "Minted; client_secret is shown only here", schema: dataEnvelope(mintedToken) } },
  handler: async (c: Context<HonoEnv>, { body }: { body: MintInput }) =>
    c.json({ data: await mintToken(c.var.ctx.tenant, c.var.ctx.principal, body, c.var.ctx.clock.now()) }, 201),
} as const;
