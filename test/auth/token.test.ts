// POST /auth/token: PAT client credentials, over HTTP Basic or in the body, exchanged for a Bearer JWT.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { basic, call, createTenant, expectError, systemQuery, type TenantCreds } from "../support/api";
import { signAccessToken } from "../../src/auth/jwt";
import { basicClient } from "../../src/auth/client-auth";
import { base64url, fromBase64url } from "../../src/lib/crypto";

const text = new TextDecoder();

async function exchange(clientId: string, clientSecret: string) {
  return call("POST", "/auth/token", { body: { grant_type: "client_credentials", client_id: clientId, client_secret: clientSecret } });
}

async function accessToken(t: { clientId: string; clientSecret: string }): Promise<string> {
  const res = await exchange(t.clientId, t.clientSecret);
  expect(res.status).toBe(200);
  return res.json.access_token;
}

const bearer = (jwt: string) => `Bearer ${jwt}`;

async function mint(creds: TenantCreds, body: Record<string, unknown> = { name: `tok-${crypto.randomUUID().slice(0, 6)}` }) {
  const res = await call("POST", "/access/api-tokens", { auth: creds.auth, body });
  expect(res.status).toBe(201);
  const d = res.json.data;
  return { id: d.id as string, clientId: d.client_id as string, clientSecret: d.client_secret as string, auth: basic(d.client_id, d.client_secret) };
}

function decodePart(jwt: string, index: 0 | 1): Record<string, any> {
  return JSON.parse(text.decode(fromBase64url(jwt.split(".")[index])));
}

function encodePart(value: unknown): string {
  return base64url(new TextEncoder().encode(JSON.stringify(value)));
}

async function permissionsWith(auth: string) {
  return call("GET", "/access/me/permissions", { auth });
}

describe("POST /auth/token: success", () => {
  it("answers 200 with exactly access_token, token_type Bearer and expires_in 3600, without a data envelope", async () => {
    const t = await createTenant();
    const res = await exchange(t.clientId, t.clientSecret);
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(["access_token", "expires_in", "token_type"]);
    expect(res.json.token_type).toBe("Bearer");
    expect(res.json.expires_in).toBe(3600);
    expect(res.json.data).toBeUndefined();
    expect(res.json.access_token).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
  });

  it("issues a JWT naming the PAT and the tenant, valid for 3600 seconds", async () => {
    const t = await createTenant();
    const jwt = await accessToken(t);
    expect(decodePart(jwt, 0)).toEqual({ alg: "HS256", typ: "JWT" });
    const claims = decodePart(jwt, 1);
    expect(claims.sub).toBe(t.tokenId);
    expect(claims.tid).toBe(t.tenantId);
    expect(claims.exp - claims.iat).toBe(3600);
    expect(Math.abs(claims.iat - Date.now() / 1000)).toBeLessThan(120);
  });

  it("the access token works as Authorization: Bearer and carries the PAT's permissions", async () => {
    const t = await createTenant();
    const jwt = await accessToken(t);
    const res = await permissionsWith(bearer(jwt));
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: { permissions: ["*:*"] } });
  });

  it("the access token works on a write route, in the PAT's tenant", async () => {
    const t = await createTenant();
    const jwt = await accessToken(t);
    const created = await call("POST", "/access/roles", { auth: bearer(jwt), body: { name: "via-jwt", permissions: ["entity:read"] } });
    expect(created.status).toBe(201);
    const rows = await systemQuery("SELECT tenant_id FROM roles WHERE id = $1", [created.json.data.id]);
    expect(rows).toEqual([{ tenant_id: t.tenantId }]);
  });

  it("a limited PAT's access token carries exactly that PAT's permissions", async () => {
    const t = await createTenant();
    expect((await call("POST", "/access/roles", { auth: t.auth, body: { name: "reader", permissions: ["entity:read"] } })).status).toBe(201);
    const limited = await mint(t, { name: "limited", role_names: ["reader"] });
    const jwt = await accessToken(limited);
    expect((await permissionsWith(bearer(jwt))).json).toEqual({ data: { permissions: ["entity:read"] } });
    expectError(await call("POST", "/access/roles", { auth: bearer(jwt), body: { name: "nope", permissions: [] } }), 403, "FORBIDDEN");
  });

  it("accepts the Bearer scheme name in any case", async () => {
    const t = await createTenant();
    const jwt = await accessToken(t);
    expect((await permissionsWith(`bearer ${jwt}`)).status).toBe(200);
    expect((await permissionsWith(`BEARER ${jwt}`)).status).toBe(200);
  });
});

describe("POST /auth/token: refused credentials and bodies", () => {
  it("refuses a wrong secret with 401 UNAUTHORIZED and no token", async () => {
    const t = await createTenant();
    const res = await exchange(t.clientId, `${t.clientSecret}x`);
    expectError(res, 401, "UNAUTHORIZED");
    expect(res.json.access_token).toBeUndefined();
  });

  it("refuses another tenant's secret with this tenant's client_id", async () => {
    const a = await createTenant();
    const b = await createTenant();
    expectError(await exchange(a.clientId, b.clientSecret), 401, "UNAUTHORIZED");
  });

  it("refuses an unknown client_id with the same 401", async () => {
    const t = await createTenant();
    const res = await exchange("pat_000000000000000000000000", t.clientSecret);
    const err = expectError(res, 401, "UNAUTHORIZED");
    const wrongSecret = expectError(await exchange(t.clientId, "sk_wrong"), 401, "UNAUTHORIZED");
    // One message for both, so a caller cannot tell which client ids exist.
    expect(err.message).toBe(wrongSecret.message);
  });

  it("refuses a grant_type other than client_credentials with 422 VALIDATION_FAILED", async () => {
    const t = await createTenant();
    const res = await call("POST", "/auth/token", { body: { grant_type: "password", client_id: t.clientId, client_secret: t.clientSecret } });
    const err = expectError(res, 422, "VALIDATION_FAILED");
    expect(err.details.validation_errors).toEqual(['grant_type: must equal "client_credentials"']);
    expect(err.details.errors).toEqual(err.details.validation_errors);
  });

  it("lists each missing field as its own `<path>: is required` line", async () => {
    const all = expectError(await call("POST", "/auth/token", { body: {} }), 422, "VALIDATION_FAILED");
    expect(all.details.validation_errors).toEqual(["grant_type: is required", "client_id: is required", "client_secret: is required"]);
    expect(all.details.errors).toEqual(all.details.validation_errors);

    const some = expectError(await call("POST", "/auth/token", { body: { grant_type: "client_credentials", client_id: "pat_x" } }), 422, "VALIDATION_FAILED");
    expect(some.details.validation_errors).toEqual(["client_secret: is required"]);
  });

  it("refuses empty and wrongly typed fields with 422", async () => {
    const res = await call("POST", "/auth/token", { body: { grant_type: "client_credentials", client_id: "", client_secret: 5 } });
    const err = expectError(res, 422, "VALIDATION_FAILED");
    expect(err.details.validation_errors).toEqual(["client_id: String is too short (0 < 1)", "client_secret: must be string, got number"]);
  });

  it("answers malformed JSON with 400 BAD_REQUEST", async () => {
    const res = await call("POST", "/auth/token", { rawBody: '{"grant_type": "client_credentials",', headers: { "Content-Type": "application/json" } });
    expectError(res, 400, "BAD_REQUEST");
  });

  it("answers an empty body with 400 BAD_REQUEST", async () => {
    expectError(await call("POST", "/auth/token", { rawBody: "", headers: { "Content-Type": "application/json" } }), 400, "BAD_REQUEST");
  });
});

const CLIENT_CHALLENGE = 'Basic realm="platform"';
const ROUTE_CHALLENGE = 'Basic realm="platform", Bearer realm="platform"';
const INVALID_TOKEN_CHALLENGE = 'Basic realm="platform", Bearer realm="platform", error="invalid_token"';

/** A token request whose client authenticates over HTTP Basic, the body as JSON or form-encoded. */
function exchangeBasic(authorization: string, body: Record<string, string> | string = { grant_type: "client_credentials" }) {
  return typeof body === "string"
    ? call("POST", "/auth/token", { auth: authorization, rawBody: body, headers: { "Content-Type": "application/x-www-form-urlencoded" } })
    : call("POST", "/auth/token", { auth: authorization, body });
}

describe("POST /auth/token: client credentials over HTTP Basic", () => {
  it("exchanges Basic credentials with a JSON body of only grant_type, and the token works", async () => {
    const t = await createTenant();
    const res = await exchangeBasic(t.auth);
    expect(res.status).toBe(200);
    expect(Object.keys(res.json).sort()).toEqual(["access_token", "expires_in", "token_type"]);
    expect(res.headers.get("Cache-Control")).toBe("no-store");
    expect(decodePart(res.json.access_token, 1).sub).toBe(t.tokenId);
    expect((await permissionsWith(bearer(res.json.access_token))).json).toEqual({ data: { permissions: ["*:*"] } });
  });

  it("takes the form-encoded body OAuth2 clients send, with scope ignored", async () => {
    const t = await createTenant();
    const res = await exchangeBasic(t.auth, "grant_type=client_credentials&scope=anything");
    expect(res.status).toBe(200);
    expect(decodePart(res.json.access_token, 1).tid).toBe(t.tenantId);
  });

  it("decodes each half by form-urlencoding rules", async () => {
    const t = await createTenant();
    // Percent-encoding characters that need none is still valid form encoding.
    const encoded = `%70at${t.clientId.slice(3)}:${t.clientSecret.replace("_", "%5F")}`;
    expect(encoded).not.toBe(`${t.clientId}:${t.clientSecret}`);
    const res = await exchangeBasic(`Basic ${btoa(encoded)}`);
    expect(res.status).toBe(200);
    expect(decodePart(res.json.access_token, 1).sub).toBe(t.tokenId);
  });

  it("reads + as a space and %XX as UTF-8 bytes", () => {
    expect(basicClient(`Basic ${btoa("a+b%20c:s%2B%C3%A9")}`)).toEqual({ clientId: "a b c", clientSecret: "s+\u00e9" });
    expect(basicClient(`basic ${btoa("pat_1:")}`)).toEqual({ clientId: "pat_1", clientSecret: "" });
  });

  it("accepts the body naming the same client_id as the header", async () => {
    const t = await createTenant();
    expect((await exchangeBasic(t.auth, { grant_type: "client_credentials", client_id: t.clientId })).status).toBe(200);
  });

  it("refuses credentials in both places with 400, saying to send them once", async () => {
    const t = await createTenant();
    const both = await exchangeBasic(t.auth, { grant_type: "client_credentials", client_id: t.clientId, client_secret: t.clientSecret });
    const err = expectError(both, 400, "BAD_REQUEST");
    expect(err.message).toBe("Client credentials were sent both as HTTP Basic and in the body: with Basic, leave client_id and client_secret out of the body");
    expect(both.json.access_token).toBeUndefined();
    // A secret alone in the body is a second authentication too.
    expect(expectError(await exchangeBasic(t.auth, "grant_type=client_credentials&client_secret=sk_x"), 400, "BAD_REQUEST").message).toBe(err.message);
  });

  it("refuses a body client_id other than the header's with 400", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const err = expectError(await exchangeBasic(a.auth, { grant_type: "client_credentials", client_id: b.clientId }), 400, "BAD_REQUEST");
    expect(err.message).toBe("The body's client_id differs from the client id of the Basic credentials: leave client_id out of the body");
  });

  it("still validates the body: grant_type is required and must be client_credentials", async () => {
    const t = await createTenant();
    expect(expectError(await exchangeBasic(t.auth, {}), 422, "VALIDATION_FAILED").details.validation_errors).toEqual(["grant_type: is required"]);
    expect(expectError(await exchangeBasic(t.auth, { grant_type: "password" }), 422, "VALIDATION_FAILED").details.validation_errors).toEqual([
      'grant_type: must equal "client_credentials"',
    ]);
  });

  it("answers wrong Basic credentials with 401 and the Basic challenge", async () => {
    const t = await createTenant();
    const res = await exchangeBasic(basic(t.clientId, `${t.clientSecret}x`));
    const err = expectError(res, 401, "UNAUTHORIZED");
    expect(err.message).toBe("Invalid, expired or revoked client credentials");
    expect(res.headers.get("WWW-Authenticate")).toBe(CLIENT_CHALLENGE);
    // The same answer for credentials sent in the body.
    const viaBody = await exchange(t.clientId, `${t.clientSecret}x`);
    expect(expectError(viaBody, 401, "UNAUTHORIZED").message).toBe(err.message);
    expect(viaBody.headers.get("WWW-Authenticate")).toBe(CLIENT_CHALLENGE);
  });

  it("answers a Basic header that does not decode with 401 before reading the body", async () => {
    const t = await createTenant();
    const message = "Malformed Basic credentials: expected base64 of client_id:client_secret, each form-urlencoded";
    for (const authorization of [
      "Basic !!!",
      `Basic ${btoa(t.clientId)}`,
      `Basic ${btoa(`:${t.clientSecret}`)}`,
      `Basic ${btoa(`${t.clientId}:%zz`)}`,
      `Basic ${btoa(`pat%00x:${t.clientSecret}`)}`,
    ]) {
      const res = await exchangeBasic(authorization, { bogus: "body" });
      expect(expectError(res, 401, "UNAUTHORIZED").message, authorization).toBe(message);
      expect(res.headers.get("WWW-Authenticate")).toBe(CLIENT_CHALLENGE);
    }
  });

  it("answers another scheme with 401 naming the ways to authenticate", async () => {
    const t = await createTenant();
    const res = await exchangeBasic(bearer(await accessToken(t)));
    expect(expectError(res, 401, "UNAUTHORIZED").message).toBe(
      "POST /auth/token takes client credentials as Authorization: Basic base64(client_id:client_secret), or as client_id and client_secret in the body",
    );
    expect(res.headers.get("WWW-Authenticate")).toBe(CLIENT_CHALLENGE);
  });

  it("is documented in the OpenAPI document: only grant_type required, JSON or form", async () => {
    const op = (await call("GET", "/openapi.json")).json.paths["/auth/token"].post;
    expect(op.requestBody.content["application/json"].schema.required).toEqual(["grant_type"]);
    expect(op.requestBody.content["application/x-www-form-urlencoded"].schema.required).toEqual(["grant_type"]);
    expect(Object.keys(op.responses).sort()).toEqual(["200", "400", "401", "413", "422", "429"]);
  });
});

describe("WWW-Authenticate on Bearer refusals", () => {
  it('a Bearer token that fails verification adds error="invalid_token"', async () => {
    const t = await createTenant();
    const jwt = await accessToken(t);
    const forged = await signAccessToken("some-other-secret-0123456789abcdef", t.tokenId, t.tenantId, Date.now());
    for (const token of [forged, "not-a-jwt", `${jwt}x`]) {
      const res = await permissionsWith(bearer(token));
      expectError(res, 401, "UNAUTHORIZED");
      expect(res.headers.get("WWW-Authenticate")).toBe(INVALID_TOKEN_CHALLENGE);
    }
  });

  it("so does a well-signed token whose PAT was revoked", async () => {
    const t = await createTenant();
    const pat = await mint(t);
    const jwt = await accessToken(pat);
    expect((await call("DELETE", `/access/api-tokens/${pat.id}`, { auth: t.auth })).status).toBe(200);
    const res = await permissionsWith(bearer(jwt));
    expectError(res, 401, "UNAUTHORIZED");
    expect(res.headers.get("WWW-Authenticate")).toBe(INVALID_TOKEN_CHALLENGE);
  });

  it("a bare Bearer scheme and failed Basic credentials carry the plain challenge", async () => {
    const t = await createTenant();
    for (const authorization of ["Bearer", basic(t.clientId, "sk_wrong")]) {
      const res = await permissionsWith(authorization);
      expectError(res, 401, "UNAUTHORIZED");
      expect(res.headers.get("WWW-Authenticate")).toBe(ROUTE_CHALLENGE);
    }
  });
});

describe("Bearer access tokens follow their PAT", () => {
  it("stops working at once when its PAT is revoked", async () => {
    const t = await createTenant();
    const pat = await mint(t);
    const jwt = await accessToken(pat);
    expect((await permissionsWith(bearer(jwt))).status).toBe(200);

    const revoked = await call("DELETE", `/access/api-tokens/${pat.id}`, { auth: t.auth });
    expect(revoked.status).toBe(200);

    expectError(await permissionsWith(bearer(jwt)), 401, "UNAUTHORIZED");
    expectError(await permissionsWith(pat.auth), 401, "UNAUTHORIZED");
    expectError(await exchange(pat.clientId, pat.clientSecret), 401, "UNAUTHORIZED");
    // The tenant's other token is untouched.
    expect((await permissionsWith(t.auth)).status).toBe(200);
  });

  it("an expired PAT is 401 over Basic, over Bearer, and at the exchange", async () => {
    const t = await createTenant();
    const pat = await mint(t);
    const jwt = await accessToken(pat);
    expect((await permissionsWith(pat.auth)).status).toBe(200);
    expect((await permissionsWith(bearer(jwt))).status).toBe(200);

    await systemQuery("UPDATE api_tokens SET expires_at = now() - interval '1 minute' WHERE id = $1", [pat.id]);

    expectError(await permissionsWith(pat.auth), 401, "UNAUTHORIZED");
    expectError(await permissionsWith(bearer(jwt)), 401, "UNAUTHORIZED");
    expectError(await exchange(pat.clientId, pat.clientSecret), 401, "UNAUTHORIZED");
  });

  it("a PAT whose expires_at is still ahead keeps working", async () => {
    const t = await createTenant();
    const pat = await mint(t);
    await systemQuery("UPDATE api_tokens SET expires_at = now() + interval '1 hour' WHERE id = $1", [pat.id]);
    expect((await permissionsWith(pat.auth)).status).toBe(200);
    expect((await permissionsWith(bearer(await accessToken(pat)))).status).toBe(200);
  });
});

describe("forged and tampered access tokens are 401", () => {
  it("a token signed here with the service's key is accepted (control for the cases below)", async () => {
    const t = await createTenant();
    const jwt = await signAccessToken(env.JWT_SECRET, t.tokenId, t.tenantId, Date.now());
    expect((await permissionsWith(bearer(jwt))).status).toBe(200);
  });

  it("refuses a token with one character of its signature changed", async () => {
    const t = await createTenant();
    const jwt = await accessToken(t);
    const [h, p, s] = jwt.split(".");
    // A middle character: every bit of it is significant (the last one has unused low bits).
    const i = 10;
    const flipped = `${s.slice(0, i)}${s[i] === "A" ? "B" : "A"}${s.slice(i + 1)}`;
    expect(flipped).not.toBe(s);
    expectError(await permissionsWith(bearer(`${h}.${p}.${flipped}`)), 401, "UNAUTHORIZED");
    expect((await permissionsWith(bearer(jwt))).status).toBe(200);
  });

  it("refuses a token whose payload was altered, signature kept", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const jwt = await accessToken(a);
    const [h, p, s] = jwt.split(".");
    const claims = decodePart(jwt, 1);
    const otherToken = encodePart({ ...claims, sub: b.tokenId, tid: b.tenantId });
    const longerLife = encodePart({ ...claims, exp: claims.exp + 86_400 });
    expect(otherToken).not.toBe(p);
    expectError(await permissionsWith(bearer(`${h}.${otherToken}.${s}`)), 401, "UNAUTHORIZED");
    expectError(await permissionsWith(bearer(`${h}.${longerLife}.${s}`)), 401, "UNAUTHORIZED");
  });

  it("refuses a token signed with another key", async () => {
    const t = await createTenant();
    const jwt = await signAccessToken("some-other-secret-0123456789abcdef", t.tokenId, t.tenantId, Date.now());
    expectError(await permissionsWith(bearer(jwt)), 401, "UNAUTHORIZED");
  });

  it("refuses an unsigned alg:none token", async () => {
    const t = await createTenant();
    const claims = decodePart(await accessToken(t), 1);
    const none = `${encodePart({ alg: "none", typ: "JWT" })}.${encodePart(claims)}.`;
    expectError(await permissionsWith(bearer(none)), 401, "UNAUTHORIZED");
  });

  it("refuses a correctly signed token past its exp", async () => {
    const t = await createTenant();
    const jwt = await signAccessToken(env.JWT_SECRET, t.tokenId, t.tenantId, Date.now() - 2 * 3600 * 1000);
    expectError(await permissionsWith(bearer(jwt)), 401, "UNAUTHORIZED");
  });

  it("refuses a correctly signed token whose tenant does not own the PAT it names", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const jwt = await signAccessToken(env.JWT_SECRET, a.tokenId, b.tenantId, Date.now());
    expectError(await permissionsWith(bearer(jwt)), 401, "UNAUTHORIZED");
  });

  it("refuses a token naming a PAT that does not exist", async () => {
    const t = await createTenant();
    const jwt = await signAccessToken(env.JWT_SECRET, crypto.randomUUID(), t.tenantId, Date.now());
    expectError(await permissionsWith(bearer(jwt)), 401, "UNAUTHORIZED");
  });

  it("refuses garbage and a truncated token", async () => {
    const t = await createTenant();
    const jwt = await accessToken(t);
    expectError(await permissionsWith(bearer("not-a-jwt")), 401, "UNAUTHORIZED");
    expectError(await permissionsWith(bearer(jwt.split(".").slice(0, 2).join("."))), 401, "UNAUTHORIZED");
    expectError(await permissionsWith(bearer(`${jwt}.extra`)), 401, "UNAUTHORIZED");
  });

  it("does not accept the access token as a Basic credential", async () => {
    const t = await createTenant();
    const jwt = await accessToken(t);
    expectError(await permissionsWith(`Basic ${jwt}`), 401, "UNAUTHORIZED");
  });
});
