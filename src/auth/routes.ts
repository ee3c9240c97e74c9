// /auth/*: token exchange (unauthenticated) and PAT minting.
import type { Context } from "hono";
import type { FromSchema, JSONSchema } from "json-schema-to-ts";
import type { HonoEnv } from "../gateway/env";
import { route } from "../gateway/route";
import { jsonBody } from "../lib/body";
import type { JsonSchema } from "../lib/validate";
import { mintTokenOperation } from "../access/mint-token";
import { CLIENT_CHALLENGE, unauthorized, verifyPat } from "./credentials";
import { basicClient, checkBodyBesideBasic, type ClientCredentials } from "./client-auth";
import { ACCESS_TOKEN_TTL_SECONDS, signAccessToken } from "./jwt";
import { tokenRequest, bodyClientRequest } from "./schemas";
import { noAuth } from "../gateway/route-auth";

/** The body as JSON or form-encoded, checked against `schema`, as the route declaration would read a declared body. */
const readTokenRequest = <T>(c: Context<HonoEnv>, schema: JSONSchema) => jsonBody<T>(c, schema as JsonSchema, true);

/** The client a token request authenticates as: from its Basic header when it sends one, else from its body. */
async function clientOf(c: Context<HonoEnv>): Promise<ClientCredentials> {
  const header = c.req.header("Authorization");
  if (!header) {
    const body = await readTokenRequest<FromSchema<typeof bodyClientRequest>>(c, bodyClientRequest);
    return { clientId: body.client_id, clientSecret: body.client_secret };
  }
  // The header is decoded before the body is read: bad credentials answer 401 whatever the body holds.
  const client = basicClient(header);
  checkBodyBesideBasic(client, await readTokenRequest<FromSchema<typeof tokenRequest>>(c, tokenRequest));
  return client;
}

export const authRoutes = [
  route({
    operation: "exchangeToken",
    method: "post",
    path: "/auth/token",
    tag: "auth",
    summary: "Exchange PAT client credentials, sent as HTTP Basic or in the body, for a Bearer access token (OAuth2 client_credentials)",
    auth: noAuth,
    // Read by the handler: which fields are required depends on the Authorization header.
    documentedBody: tokenRequest,
    documentedRequest: { content: { "application/x-www-form-urlencoded": { schema: tokenRequest } } },
    responses: {
      200: {
        description: "An access token, without the data envelope, as OAuth2 clients expect",
        schema: {
          type: "object",
          required: ["access_token", "token_type", "expires_in"],
          properties: { access_token: { type: "string" }, token_type: { const: "Bearer" }, expires_in: { type: "integer" } },
        },
      },
      400: { description: "Client credentials both as HTTP Basic and in the body, or two different client ids" },
      401: {
        description: 'Unknown, wrong, expired or revoked client credentials, or a Basic header that does not decode; WWW-Authenticate: Basic realm="platform"',
      },
    },
    handler: async (c) => {
      const client = await clientOf(c);
      const principal = await c.var.ctx.database.system((sql) => verifyPat(sql, client.clientId, client.clientSecret, c.var.ctx.clock.now()));
      if (!principal) throw unauthorized("Invalid, expired or revoked client credentials", CLIENT_CHALLENGE);
      const accessToken = await signAccessToken(c.env.JWT_SECRET, principal.tokenId, principal.tenantId, c.var.ctx.clock.now());
      c.header("Cache-Control", "no-store");
      return c.json({ access_token: accessToken, token_type: "Bearer", expires_in: ACCESS_TOKEN_TTL_SECONDS });
    },
  }),
  route({
    ...mintTokenOperation,
    operation: "mintAuthToken",
    path: "/auth/tokens/api",
    tag: "auth",
    summary: "Mint a personal access token (same as POST /access/api-tokens)",
  }),
];
