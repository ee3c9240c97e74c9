// Who a render acts for, with identity-token providers: oidc tokens verified
// against a JWKS and exchange tokens against a metadata document of X.509
// certificates, both served by the scripted outbound server (allowlisted in
// tests, test/support/outbound.ts). Keys are made here (jose) or come from
// a committed self-signed certificate (test/apps/fixtures, made once with
// openssl). The injected clock drives the key documents' cache. Refusals are
// read through the gateway: until a signature checks out every one is the
// same answer; after it, the answer names the failed check.
import { exportJWK, exportSPKI, generateKeyPair, importPKCS8, SignJWT, UnsecuredJWT, type JWTPayload } from "jose";
import { describe, expect, it, vi } from "vitest";
import certificatePem from "./fixtures/exchange-cert.pem?raw";
import certificateKeyPem from "./fixtures/exchange-key.pem?raw";
import type { Provider } from "../../src/apps/render/identity/provider";
import { base64url } from "../../src/lib/crypto";
import { call, systemQuery } from "../support/api";
import { scenario, type ScriptedResponse } from "../support/outbound";
import { addIntegration, bearerProvider, refusal, resolve, rotateToken, setupApp, testClock, type AppSetup } from "./identity-fixture";

const AUD = "app-audience";
const nowSeconds = () => Math.floor(Date.now() / 1000);

async function rsaKey(kid: string) {
  const { publicKey, privateKey } = await generateKeyPair("RS256", { extractable: true });
  return { kid, privateKey, publicKey, jwk: { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" } };
}
type Key = Awaited<ReturnType<typeof rsaKey>>;

function signFor(key: { privateKey: CryptoKey; kid: string }, claims: JWTPayload, header: Record<string, unknown> = {}) {
  return new SignJWT({
    iss: "https://idp.example/tenant-1/",
    aud: AUD,
    tid: "tenant-1",
    sub: "person-1",
    email: "p1@example.com",
    exp: nowSeconds() + 600,
    ...claims,
  })
    .setProtectedHeader({ alg: "RS256", kid: key.kid, ...header })
    .sign(key.privateKey);
}

async function oidcApp(jwks: ScriptedResponse[], auth: Partial<Provider["auth"]> = {}, provider: Partial<Provider> = {}, setup: AppSetup = {}) {
  const s = await scenario({ "/t/tenant-1/keys": jwks });
  const app = await setupApp({
    ...setup,
    provider: {
      auth: {
        type: "oidc",
        jwksUriTemplate: s.url("/t/{tid}/keys"),
        issuerPattern: "https://idp\\.example/[a-z0-9-]+/",
        audience: [AUD, "other"],
        requiredClaims: ["email"],
        ...auth,
      },
      autoCreateUsers: true,
      identity: {
        user_external_id: { source: "jwt_claim", path: "sub" },
        user_email: { source: "jwt_claim", path: "email" },
        team_id: { source: "jwt_claim", path: "ext.team" },
        shout: { $jsonata: "$uppercase(sub)" },
      },
      ...provider,
    },
  });
  return { s, app };
}

const sign = signFor;

const withToken = (token: string, extra: Record<string, unknown> = {}) => ({ headers: { Authorization: `Bearer ${token}` }, ...extra });

/** A render refused through the gateway: its status, challenge, and error envelope without the request id (the one part that differs between requests). */
async function refusedRender(integrationId: string, headers: Record<string, string> = {}) {
  const res = await call("POST", `/apps/run/${integrationId}`, { headers, body: {} });
  const { request_id, ...details } = res.json?.error?.details ?? {};
  expect(typeof request_id, res.text).toBe("string");
  return { status: res.status, challenge: res.headers.get("WWW-Authenticate"), error: { ...res.json.error, details } };
}

const bearerHeader = (token: string) => ({ Authorization: `Bearer ${token}` });

/** The one answer to every refusal before a credential is verified. */
const SAME_REFUSAL = {
  status: 401,
  challenge: 'Bearer realm="apps"',
  error: { status: 401, code: "UNAUTHORIZED", message: "The render credential is not valid for this integration", details: {} },
};

/** The answer to a signature-verified token failing `check`. */
const checkFailed = (check: string) => ({
  status: 401,
  challenge: 'Bearer realm="apps"',
  error: { status: 401, code: "UNAUTHORIZED", message: `The identity token failed the check: ${check}`, details: { check } },
});

describe("oidc", () => {
  it("accepts a token signed by a JWKS key, reads the claims, and belongs to the integration's company", async () => {
    const key = await rsaKey("k1");
    const { s, app } = await oidcApp([{ json: { keys: [key.jwk] } }]);
    const who = await resolve(app.integrationId, withToken(await sign(key, { ext: { team: "blue" } }), { body: { user: "ignored" } }));
    expect(who.identity).toEqual({ user_external_id: "person-1", user_email: "p1@example.com", team_id: "blue", shout: "PERSON-1" });
    expect([who.companyExternalId, who.externalCompanyId]).toEqual([app.companyExternalId, app.companyId]);
    expect((await s.requests()).map((r) => r.path)).toEqual(["/t/tenant-1/keys"]);
    // Kept: a second render fetches nothing.
    await resolve(app.integrationId, withToken(await sign(key, {})));
    expect((await s.requests()).length).toBe(1);
  });

  it("refuses forged, unsigned, HS256 and garbage tokens with the one refusal, and names the check a signed token fails", async () => {
    const key = await rsaKey("k1");
    const forger = await rsaKey("k1");
    const { app } = await oidcApp([{ json: { keys: [key.jwk] } }]);
    const publicPem = new TextEncoder().encode(await exportSPKI(key.publicKey));
    const hs256 = await new SignJWT({
      iss: "https://idp.example/tenant-1/",
      aud: AUD,
      tid: "tenant-1",
      sub: "x",
      email: "x@example.com",
      exp: nowSeconds() + 600,
    })
      .setProtectedHeader({ alg: "HS256", kid: "k1" })
      .sign(publicPem);
    const none = new UnsecuredJWT({
      iss: "https://idp.example/tenant-1/",
      aud: AUD,
      tid: "tenant-1",
      sub: "x",
      email: "x@example.com",
      exp: nowSeconds() + 600,
    }).encode();
    const unverified: Record<string, string> = {
      forged: await sign(forger, {}),
      none,
      hs256,
      garbage: "not.a.jwt",
      noKid: await sign(key, {}, { kid: undefined }),
    };
    for (const [name, token] of Object.entries(unverified)) {
      expect([name, await refusedRender(app.integrationId, bearerHeader(token))]).toEqual([name, SAME_REFUSAL]);
    }
    const named: Record<string, [string, string]> = {
      expired: [await sign(key, { exp: nowSeconds() - 120 }), "expired"],
      notYet: [await sign(key, { nbf: nowSeconds() + 120 }), "not yet valid"],
      noExp: [await sign(key, { exp: undefined }), "required claim exp"],
      issuer: [await sign(key, { iss: "https://evil.example/tenant-1/" }), "issuer"],
      issuerPrefixOnly: [await sign(key, { iss: "https://idp.example/tenant-1/extra/../" }), "issuer"],
      audience: [await sign(key, { aud: "someone-else" }), "audience"],
      noAudience: [await sign(key, { aud: undefined }), "audience"],
      requiredMissing: [await sign(key, { email: undefined }), "required claim email"],
      requiredEmpty: [await sign(key, { email: "" }), "required claim email"],
    };
    for (const [name, [token, check]] of Object.entries(named)) {
      expect([name, await refusedRender(app.integrationId, bearerHeader(token))]).toEqual([name, checkFailed(check)]);
    }
    // Within the 60 s skew both ways.
    expect((await resolve(app.integrationId, withToken(await sign(key, { exp: nowSeconds() - 30, nbf: nowSeconds() + 30 })))).identity.user_external_id).toBe(
      "person-1",
    );
    expect(await systemQuery(`SELECT external_id FROM external_users WHERE tenant_id = $1`, [app.tenant.tenantId])).toEqual([{ external_id: "person-1" }]);
  });

  it("an unknown kid fetches the JWKS again at most once a minute; a rotated key is found by that fetch", async () => {
    const old = await rsaKey("old");
    const rotated = await rsaKey("new");
    const { s, app } = await oidcApp([{ json: { keys: [old.jwk] } }, { json: { keys: [old.jwk] } }, { json: { keys: [old.jwk, rotated.jwk] } }]);
    const clock = testClock();
    // Tokens that outlive the clock's walk.
    const sign = (key: Key, claims: JWTPayload) => signFor(key, { exp: nowSeconds() + 3600, ...claims });
    await resolve(app.integrationId, withToken(await sign(old, {}), { clock }));
    clock.advance(10_000);
    expect((await refusal(resolve(app.integrationId, withToken(await sign(rotated, {}), { clock })))).status).toBe(401);
    expect((await s.requests()).length).toBe(1);
    clock.advance(55_000);
    expect((await refusal(resolve(app.integrationId, withToken(await sign(rotated, {}), { clock })))).status).toBe(401);
    expect((await s.requests()).length).toBe(2);
    clock.advance(30_000);
    expect((await refusal(resolve(app.integrationId, withToken(await sign(rotated, {}), { clock })))).status).toBe(401);
    expect((await s.requests()).length).toBe(2);
    clock.advance(40_000);
    expect((await resolve(app.integrationId, withToken(await sign(rotated, {}), { clock }))).identity.user_external_id).toBe("person-1");
    expect((await s.requests()).length).toBe(3);
    // Ten minutes on, the kept JWKS is fetched again even for a known kid.
    clock.advance(10 * 60_000);
    await resolve(app.integrationId, withToken(await sign(old, {}), { clock }));
    expect((await s.requests()).length).toBe(4);
  });

  it("a tid outside [A-Za-z0-9_-]{1,128} is refused before anything is fetched", async () => {
    const key = await rsaKey("k1");
    const { s, app } = await oidcApp([{ json: { keys: [key.jwk] } }]);
    for (const tid of ["..%2F..", "../x", "..", "a".repeat(129), "a".repeat(200), "a.b", "a/b", "a?b", "a#b", "", undefined, 7]) {
      expect([tid, await refusedRender(app.integrationId, bearerHeader(await sign(key, { tid })))]).toEqual([tid, SAME_REFUSAL]);
    }
    expect(await s.requests()).toEqual([]);
    // The longest value allowed goes into the URL as it is.
    const longest = "A-z_9".repeat(25) + "abc";
    await refusedRender(app.integrationId, bearerHeader(await sign(key, { tid: longest })));
    expect((await s.requests()).map((r) => r.path)).toEqual([`/t/${longest}/keys`]);
  });

  it("a JWKS that is HTML, too large, not JSON keys or slow fails the render with 401", async () => {
    const key = await rsaKey("k1");
    const token = await sign(key, {});
    const answers: Record<string, ScriptedResponse> = {
      html: { headers: { "content-type": "text/html" }, body: "<html><body>login</body></html>" },
      huge: { json: { keys: [key.jwk], padding: "x".repeat(300 * 1024) } },
      error: { status: 500, json: { keys: [key.jwk] } },
      noKeys: { json: { nothing: true } },
    };
    for (const [name, answer] of Object.entries(answers)) {
      const { app } = await oidcApp([answer]);
      const e = await refusal(resolve(app.integrationId, withToken(token)));
      expect([name, e.status, e.code]).toEqual([name, 401, "UNAUTHORIZED"]);
    }
    const { app } = await oidcApp([{ json: { keys: [key.jwk] }, delayMs: 8000 }]);
    const started = Date.now();
    expect((await refusal(resolve(app.integrationId, withToken(token)))).status).toBe(401);
    expect(Date.now() - started).toBeLessThan(7500);
  });

  it("a company claim must name the integration's company (403)", async () => {
    const key = await rsaKey("k1");
    const { app } = await oidcApp(
      [{ json: { keys: [key.jwk] } }],
      {},
      { identity: { user_external_id: { source: "jwt_claim", path: "sub" }, company_external_id: { source: "jwt_claim", path: "org" } } },
    );
    expect((await resolve(app.integrationId, withToken(await sign(key, { org: app.companyExternalId })))).companyExternalId).toBe(app.companyExternalId);
    const e = await refusal(resolve(app.integrationId, withToken(await sign(key, { org: "elsewhere" }))));
    expect([e.status, e.code]).toEqual([403, "FORBIDDEN"]);
  });

  it("allowEmailLink links only to a user already holding an active identity under one of this app's integrations", async () => {
    const key = await rsaKey("k1");
    const { app } = await oidcApp([{ json: { keys: [key.jwk] } }], {}, { allowEmailLink: true }, { otherProviders: { partner: bearerProvider() } });
    // A tenant user with the email and no external identity: not linked.
    const stranger = await call("POST", "/access/users", { auth: app.tenant.auth, body: { email: "stranger@example.com" } });
    const a = await resolve(app.integrationId, withToken(await sign(key, { sub: "s-1", email: "stranger@example.com" })));
    expect(a.userId).not.toBe(stranger.json.data.id);
    // A user known under another integration of the app (another provider): linked.
    const other = await addIntegration(app, `co-b-${crypto.randomUUID().slice(0, 6)}`, "partner");
    expect(other.integrationId).toBeTruthy();
    const known = await call("POST", "/access/external-users", {
      auth: app.tenant.auth,
      body: { provider: "partner", external_id: "k-9", email: "known@example.com" },
    });
    expect(known.status).toBe(201);
    const b = await resolve(app.integrationId, withToken(await sign(key, { sub: "k-oidc", email: "known@example.com" })));
    expect(b.userId).toBe(known.json.data.user_id);
    // Once every identity of that user is deactivated, a new one with the email is not linked.
    for (const { id } of await systemQuery(`SELECT id FROM external_users WHERE user_id = $1`, [known.json.data.user_id])) {
      expect((await call("PUT", `/access/external-users/${id}`, { auth: app.tenant.auth, body: { is_active: false } })).status).toBe(200);
    }
    const c = await resolve(app.integrationId, withToken(await sign(key, { sub: "k-oidc-2", email: "known@example.com" })));
    expect(c.userId).not.toBe(known.json.data.user_id);
  });
});

const der = certificatePem.replace(/-----[^-]+-----/g, "").replace(/\s+/g, "");
const thumbprint = async () =>
  base64url(
    new Uint8Array(
      await crypto.subtle.digest(
        "SHA-1",
        Uint8Array.from(atob(der), (c) => c.charCodeAt(0)),
      ),
    ),
  );

/** An exchange provider whose metadata document the scripted server serves, and tokens signed by its certificate's key. */
async function exchangeApp(auth: Partial<Provider["auth"]> = {}) {
  const x5t = await thumbprint();
  const s = await scenario({
    "/metadata": [
      {
        json: {
          keys: [
            { keyinfo: { x5t: "other" }, keyvalue: { type: "x509Certificate", value: "AAAA" } },
            { keyinfo: { x5t }, keyvalue: { type: "x509Certificate", value: der } },
          ],
        },
      },
    ],
  });
  const host = new URL(s.url("/")).host;
  const app = await setupApp({
    provider: {
      auth: { type: "exchange", audience: "https://app.example/", trustedAmurlHosts: [host], ...auth },
      autoCreateUsers: true,
      identity: {
        user_external_id: { source: "jwt_claim", path: "appctx.msexchuid" },
        version: { source: "jwt_claim", path: "appctx.version" },
        upper: { $jsonata: "$uppercase(appctx.msexchuid)" },
      },
    },
  });
  const signer = { privateKey: await importPKCS8(certificateKeyPem, "RS256"), kid: "unused" };
  const token = (claims: JWTPayload = {}, header: Record<string, unknown> = { x5t }, amurl = s.url("/metadata")) =>
    new SignJWT({
      aud: "https://app.example/",
      exp: nowSeconds() + 600,
      appctx: JSON.stringify({ amurl, msexchuid: "mx-1", version: "ExIdTok.V1" }),
      ...claims,
    })
      .setProtectedHeader({ alg: "RS256", ...header })
      .sign(signer.privateKey);
  return { s, app, token, x5t };
}

describe("exchange", () => {
  it("verifies the token by the certificate its x5t picks and reads the parsed appctx", async () => {
    const { s, app, token } = await exchangeApp();
    const who = await resolve(app.integrationId, withToken(await token()));
    expect(who.identity).toEqual({ user_external_id: "mx-1", version: "ExIdTok.V1", upper: "MX-1" });
    expect(who.companyExternalId).toBe(app.companyExternalId);
    expect((await s.requests()).map((r) => r.path)).toEqual(["/metadata"]);
  });

  it("refuses an unknown x5t, another signer, an untrusted or non-https amurl, a bad appctx, expiry and a wrong audience with 401", async () => {
    const { s, app, token } = await exchangeApp();
    const other = await rsaKey("x");
    const cases: Record<string, Promise<string>> = {
      unknownX5t: token({}, { x5t: "bm9wZQ" }),
      noX5t: token({}, {}),
      forged: new SignJWT({ aud: "https://app.example/", exp: nowSeconds() + 600, appctx: JSON.stringify({ amurl: s.url("/metadata"), msexchuid: "mx-1" }) })
        .setProtectedHeader({ alg: "RS256", x5t: await thumbprint() })
        .sign(other.privateKey),
      untrustedHost: token({}, undefined, s.url("/metadata", "other")),
      notHttps: token({}, undefined, "http://metadata.example/metadata"),
      elsewhere: token({}, undefined, "https://evil.example/metadata"),
      appctxNotJson: token({ appctx: "{nope" }),
      appctxMissing: token({ appctx: undefined }),
      expired: token({ exp: nowSeconds() - 120 }),
      audience: token({ aud: "https://other.example/" }),
    };
    for (const [name, pending] of Object.entries(cases)) {
      const e = await refusal(resolve(app.integrationId, withToken(await pending)));
      expect([name, e.status, e.code]).toEqual([name, 401, "UNAUTHORIZED"]);
    }
    expect(await systemQuery(`SELECT 1 FROM external_users WHERE tenant_id = $1`, [app.tenant.tenantId])).toEqual([]);
  });

  it("a provider without trustedAmurlHosts or audience accepts no token", async () => {
    const { app, token } = await exchangeApp({ trustedAmurlHosts: [] });
    expect((await refusal(resolve(app.integrationId, withToken(await token())))).status).toBe(401);
  });
});

describe("what an unverified caller learns", () => {
  it("every refusal before a verified credential is the same answer, whatever the integration, its provider type or the failure", async () => {
    const key = await rsaKey("k1");
    const stranger = await rsaKey("k1");
    const unknownKid = await rsaKey("unknown");
    const bearer = await setupApp();
    const revoked = bearer.token;
    await rotateToken(bearer);
    const { app: oidc } = await oidcApp([{ json: { keys: [key.jwk] } }]);
    const unreachable = await setupApp({
      provider: {
        auth: { type: "oidc", jwksUriTemplate: "http://127.0.0.1:1/keys", issuerPattern: ".*", audience: AUD },
        identity: { user_external_id: { source: "jwt_claim", path: "sub" } },
      },
    });
    const exchange = await setupApp({
      provider: {
        auth: { type: "exchange", audience: AUD, trustedAmurlHosts: ["metadata.example"] },
        identity: { user_external_id: { source: "jwt_claim", path: "sub" } },
      },
    });
    // An integration whose spec version no longer declares its company's provider.
    const orphan = await setupApp();
    await systemQuery(`UPDATE external_companies SET provider = 'gone' WHERE id = $1`, [orphan.companyId]);
    const answers: Record<string, Awaited<ReturnType<typeof refusedRender>>> = {
      unknownIntegration: await refusedRender(crypto.randomUUID(), bearerHeader(bearer.token.replace(/.$/, "0"))),
      unknownIntegrationNoCredential: await refusedRender(crypto.randomUUID()),
      bearerMissing: await refusedRender(bearer.integrationId),
      bearerNotBearer: await refusedRender(bearer.integrationId, { Authorization: `Basic ${btoa("a:b")}` }),
      bearerMalformed: await refusedRender(bearer.integrationId, bearerHeader("svc_at_short")),
      bearerWrong: await refusedRender(bearer.integrationId, bearerHeader(`svc_at_${"0".repeat(64)}`)),
      bearerRevoked: await refusedRender(bearer.integrationId, bearerHeader(revoked)),
      bearerOtherIntegration: await refusedRender(bearer.integrationId, bearerHeader(oidc.token)),
      oidcMissing: await refusedRender(oidc.integrationId),
      oidcGarbage: await refusedRender(oidc.integrationId, bearerHeader("garbage")),
      oidcAppToken: await refusedRender(oidc.integrationId, bearerHeader(oidc.token)),
      oidcUnknownKid: await refusedRender(oidc.integrationId, bearerHeader(await sign(unknownKid, {}))),
      oidcBadSignature: await refusedRender(oidc.integrationId, bearerHeader(await sign(stranger, {}))),
      oidcUnknownKidExpired: await refusedRender(oidc.integrationId, bearerHeader(await sign(unknownKid, { exp: nowSeconds() - 600 }))),
      oidcKeysUnreachable: await refusedRender(unreachable.integrationId, bearerHeader(await sign(key, {}))),
      exchangeGarbage: await refusedRender(exchange.integrationId, bearerHeader("garbage")),
      exchangeUntrustedAmurl: await refusedRender(
        exchange.integrationId,
        bearerHeader(await sign(key, { appctx: JSON.stringify({ amurl: "https://evil.example/m" }) }, { x5t: "abc" })),
      ),
      noSuchProvider: await refusedRender(orphan.integrationId, bearerHeader(orphan.token)),
    };
    for (const [name, answer] of Object.entries(answers)) expect([name, answer]).toEqual([name, SAME_REFUSAL]);
    // Byte for byte, not only equal as objects.
    expect(new Set(Object.values(answers).map((a) => JSON.stringify(a))).size).toBe(1);
  });

  it("the service logs why it refused (the operator's to read); the answer stays the one refusal", async () => {
    const bearer = await setupApp();
    const revoked = bearer.token;
    await rotateToken(bearer);
    const logged = vi.spyOn(console, "log");
    try {
      const unknown = crypto.randomUUID();
      expect(await refusedRender(unknown)).toEqual(SAME_REFUSAL);
      expect(await refusedRender(bearer.integrationId, bearerHeader(revoked))).toEqual(SAME_REFUSAL);
      expect(await refusedRender(bearer.integrationId, bearerHeader("svc_at_short"))).toEqual(SAME_REFUSAL);
      const lines = logged.mock.calls
        .map(([line]) => (typeof line === "string" && line.startsWith("{") ? JSON.parse(line) : {}))
        .filter((line) => line.msg === "render credential refused");
      expect(lines.map(({ level, integration, reason }) => ({ level, integration, reason }))).toEqual([
        { level: "warn", integration: unknown, reason: "unknown integration" },
        { level: "warn", integration: bearer.integrationId, reason: "unknown, revoked or another integration's app token" },
        { level: "warn", integration: bearer.integrationId, reason: "not an app token" },
      ]);
    } finally {
      logged.mockRestore();
    }
  });

  it("a non-UUID integration id is a malformed path parameter (422), as on any route", async () => {
    const res = await call("POST", "/apps/run/not-a-uuid", { body: {} });
    expect([res.status, res.json.error.code]).toEqual([422, "VALIDATION_FAILED"]);
  });

  it("a company mismatch after a verified token stays 403", async () => {
    const key = await rsaKey("k1");
    const { app } = await oidcApp(
      [{ json: { keys: [key.jwk] } }],
      {},
      { identity: { user_external_id: { source: "jwt_claim", path: "sub" }, company_external_id: { source: "jwt_claim", path: "org" } } },
    );
    const res = await call("POST", `/apps/run/${app.integrationId}`, { headers: bearerHeader(await sign(key, { org: "elsewhere" })), body: {} });
    expect([res.status, res.json.error.code]).toEqual([403, "FORBIDDEN"]);
  });

  it("an exchange token names the check it fails once its signature is verified", async () => {
    const { app, token } = await exchangeApp();
    expect(await refusedRender(app.integrationId, bearerHeader(await token({ exp: nowSeconds() - 120 })))).toEqual(checkFailed("expired"));
    expect(await refusedRender(app.integrationId, bearerHeader(await token({ aud: "https://other.example/" })))).toEqual(checkFailed("audience"));
  });

  it("a hostile key server: 10 distinct URLs per integration per minute are fetched, the 11th is refused without a fetch", async () => {
    const key = await rsaKey("k1");
    const tids = Array.from({ length: 12 }, (_, i) => `tenant-${i}`);
    const s = await scenario(Object.fromEntries(tids.map((tid) => [`/t/${tid}/keys`, [{ json: { keys: [key.jwk] } }]])));
    const app = await setupApp({
      provider: {
        auth: { type: "oidc", jwksUriTemplate: s.url("/t/{tid}/keys"), issuerPattern: ".*", audience: AUD },
        autoCreateUsers: true,
        identity: { user_external_id: { source: "jwt_claim", path: "sub" } },
      },
    });
    // Ten distinct tids: ten fetches, ten renders verified (the company check is what answers them).
    for (const tid of tids.slice(0, 10))
      expect((await resolve(app.integrationId, withToken(await sign(key, { tid })))).identity.user_external_id).toBe("person-1");
    expect((await s.requests()).length).toBe(10);
    // The eleventh URL within the minute: the one refusal, and the key server sees nothing.
    expect(await refusedRender(app.integrationId, bearerHeader(await sign(key, { tid: tids[10] })))).toEqual(SAME_REFUSAL);
    expect((await s.requests()).map((r) => r.path)).not.toContain(`/t/${tids[10]}/keys`);
    expect((await s.requests()).length).toBe(10);
    // A document already fetched still serves.
    expect((await resolve(app.integrationId, withToken(await sign(key, { tid: tids[0] })))).identity.user_external_id).toBe("person-1");
    // The budget is the integration's: another integration of the same key server fetches.
    const other = await setupApp({
      provider: {
        auth: { type: "oidc", jwksUriTemplate: s.url("/t/{tid}/keys"), issuerPattern: ".*", audience: AUD },
        autoCreateUsers: true,
        identity: { user_external_id: { source: "jwt_claim", path: "sub" } },
      },
    });
    expect((await resolve(other.integrationId, withToken(await sign(key, { tid: tids[11] })))).identity.user_external_id).toBe("person-1");
    expect((await s.requests()).length).toBe(11);
  });

  it("a failing key server is asked once within 60 s", async () => {
    const key = await rsaKey("k1");
    const token = await signFor(key, { exp: nowSeconds() + 3600 });
    const failing = await oidcApp([{ status: 503, body: "down" }, { json: { keys: [key.jwk] } }]);
    expect(await refusedRender(failing.app.integrationId, bearerHeader(token))).toEqual(SAME_REFUSAL);
    expect(await refusedRender(failing.app.integrationId, bearerHeader(token))).toEqual(SAME_REFUSAL);
    expect((await failing.s.requests()).length).toBe(1);
    // To the edge of the 60 s, on the injected clock.
    const { s, app } = await oidcApp([{ status: 503, body: "down" }, { json: { keys: [key.jwk] } }]);
    const clock = testClock();
    expect((await refusal(resolve(app.integrationId, withToken(token, { clock })))).status).toBe(401);
    clock.advance(59_999);
    expect((await refusal(resolve(app.integrationId, withToken(token, { clock })))).status).toBe(401);
    expect((await s.requests()).length).toBe(1);
    clock.advance(1);
    expect((await resolve(app.integrationId, withToken(token, { clock }))).identity.user_external_id).toBe("person-1");
    expect((await s.requests()).length).toBe(2);
  });
});
