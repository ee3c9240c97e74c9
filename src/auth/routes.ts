// /auth/*: token exchange (unauthenticated) and PAT minting.
import { route } from "../lib/route";
import { mintTokenRoute } from "../access/routes";
import { unauthorized, verifyPat } from "./credentials";
import { ACCESS_TOKEN_TTL_SECONDS, signAccessToken } from "./jwt";

export const authRoutes = [
  route({
    method: "post",
    path: "/auth/token",
    tag: "auth",
    summary: "Exchange PAT client credentials for a Bearer access token (OAuth2 client_credentials)",
    auth: false,
    acceptsForm: true,
    body: {
      type: "object",
      required: ["grant_type", "client_id", "client_secret"],
      properties: {
        grant_type: { const: "client_credentials" },
        client_id: { type: "string", minLength: 1, maxLength: 200 },
        client_secret: { type: "string", minLength: 1, maxLength: 500 },
        scope: { type: "string" },
      },
    },
    responses: {
      200: {
        description: "An access token, without the data envelope, as OAuth2 clients expect",
        schema: {
          type: "object",
          required: ["access_token", "token_type", "expires_in"],
          properties: { access_token: { type: "string" }, token_type: { const: "Bearer" }, expires_in: { type: "integer" } },
        },
      },
    },
    handler: async (c, { body }) => {
      const principal = await c.var.ctx.database.system((sql) => verifyPat(sql, body.client_id, body.client_secret));
      if (!principal) throw unauthorized("Invalid, expired or revoked client credentials");
      const accessToken = await signAccessToken(c.env.JWT_SECRET, principal.tokenId, principal.tenantId);
      c.header("Cache-Control", "no-store");
      return c.json({ access_token: accessToken, token_type: "Bearer", expires_in: ACCESS_TOKEN_TTL_SECONDS });
    },
  }),
  mintTokenRoute("/auth/tokens/api", "auth", "Mint a personal access token (same as POST /access/api-tokens)"),
];
