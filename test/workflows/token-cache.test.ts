// The TokenCache object through its client, against the scripted outbound
// server's token endpoint: exchanges are counted by what reached the server.
import { env, runInDurableObject } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import type { TokenCache } from "../../durable-objects/token-cache";
import { oauth2Token, tokenCacheObject, type ResolvedOAuth2, type TokenAnswer } from "../../src/lib/outbound/token-cache-client";
import { scenario, type ScriptedResponse } from "../support/outbound";

const namespace = () => env.TOKEN_CACHE;
const SECRET = "sup3r-secret-value";
const T0 = Date.UTC(2026, 0, 1);

async function tokenEndpoint(responses: ScriptedResponse[]) {
  const s = await scenario({ "/token": responses });
  const profile: ResolvedOAuth2 = { tokenUrl: s.url("/token"), clientId: "client-1", clientSecret: SECRET, clientAuth: "basic" };
  return { ...s, profile, exchanges: async () => (await s.requests()).length };
}

/** Sets the object's clock (and, when given, its exchange timeout) before or between calls. */
async function seam(tenantId: string, profile: ResolvedOAuth2, at: number, exchangeTimeoutMs?: number) {
  const stub = await tokenCacheObject(namespace(), tenantId, profile);
  await runInDurableObject(stub, (instance: TokenCache) => {
    instance.clock = { now: () => at };
    if (exchangeTimeoutMs !== undefined) instance.exchangeTimeoutMs = exchangeTimeoutMs;
  });
}

const tenant = () => crypto.randomUUID();
const get = (tenantId: string, profile: ResolvedOAuth2, rejected?: string) => oauth2Token(env, tenantId, profile, { rejected });
const token = (n: number, expiresIn?: unknown): ScriptedResponse => ({
  json: { access_token: `tok-${n}`, token_type: "Bearer", ...(expiresIn === undefined ? {} : { expires_in: expiresIn }) },
});

function failed(answer: TokenAnswer) {
  if (!("error" in answer)) throw new Error(`expected an error, got a token`);
  expect(JSON.stringify(answer)).not.toContain(SECRET);
  return answer.error;
}

describe("TokenCache: the exchange", () => {
  it("POSTs the client-credentials form with a Basic header, and answers the token as fresh", async () => {
    const s = await tokenEndpoint([token(1, 3600)]);
    const t = tenant();
    expect(await get(t, { ...s.profile, scope: "read write", audience: "api" })).toEqual({ token: "tok-1", fresh: true });
    const [seen] = await s.requests();
    expect(seen.method).toBe("POST");
    expect(seen.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(seen.headers.accept).toBe("application/json");
    expect(seen.headers.authorization).toBe(`Basic ${btoa(`client-1:${SECRET}`)}`);
    expect(seen.body).toBe("grant_type=client_credentials&scope=read+write&audience=api");
  });

  it("keeps the token in memory only: nothing is written to the object's storage", async () => {
    const s = await tokenEndpoint([token(1, 3600)]);
    const t = tenant();
    expect(await get(t, s.profile)).toEqual({ token: "tok-1", fresh: true });
    const stub = await tokenCacheObject(namespace(), t, s.profile);
    expect(await runInDurableObject(stub, async (_: TokenCache, state) => (await state.storage.list()).size)).toBe(0);
  });

  it("clientAuth body sends the id and secret as form fields and no Authorization", async () => {
    const s = await tokenEndpoint([token(1)]);
    expect(await get(tenant(), { ...s.profile, clientAuth: "body" })).toEqual({ token: "tok-1", fresh: true });
    const [seen] = await s.requests();
    expect(seen.headers.authorization).toBeUndefined();
    expect(seen.body).toBe(`grant_type=client_credentials&client_id=client-1&client_secret=${SECRET}`);
  });

  it("without a TOKEN_CACHE binding: HTTP_AUTH_TOKEN_CACHE_UNAVAILABLE, nothing sent", async () => {
    const s = await tokenEndpoint([token(1)]);
    expect(await oauth2Token({}, tenant(), s.profile)).toEqual({
      error: {
        status: 400,
        code: "BAD_REQUEST",
        message: "OAuth2 profiles cannot be used here: no token cache is available",
        details: { code: "HTTP_AUTH_TOKEN_CACHE_UNAVAILABLE" },
      },
    });
    expect(await s.exchanges()).toBe(0);
  });
});

describe("TokenCache: reuse", () => {
  it("reuses a 3600 s token for 3540 s from the request, then exchanges again", async () => {
    const s = await tokenEndpoint([token(1, 3600), token(2, 3600)]);
    const t = tenant();
    await seam(t, s.profile, T0);
    expect(await get(t, s.profile)).toEqual({ token: "tok-1", fresh: true });
    await seam(t, s.profile, T0 + 3_539_999);
    expect(await get(t, s.profile)).toEqual({ token: "tok-1", fresh: false });
    expect(await s.exchanges()).toBe(1);
    await seam(t, s.profile, T0 + 3_540_000);
    expect(await get(t, s.profile)).toEqual({ token: "tok-2", fresh: true });
    expect(await get(t, s.profile)).toEqual({ token: "tok-2", fresh: false });
    expect(await s.exchanges()).toBe(2);
  });

  it.each([
    [120, 60],
    [60, 30],
    [undefined, 300],
    ["3600", 300],
  ])("expires_in %s is reused %s s", async (expiresIn, seconds) => {
    const s = await tokenEndpoint([token(1, expiresIn), token(2, expiresIn)]);
    const t = tenant();
    await seam(t, s.profile, T0);
    await get(t, s.profile);
    await seam(t, s.profile, T0 + seconds * 1000 - 1);
    expect(await get(t, s.profile)).toEqual({ token: "tok-1", fresh: false });
    await seam(t, s.profile, T0 + seconds * 1000);
    expect(await get(t, s.profile)).toEqual({ token: "tok-2", fresh: true });
    expect(await s.exchanges()).toBe(2);
  });

  it("a token living 1 s or less is used once: each caller, concurrent or not, gets its own exchange", async () => {
    const s = await tokenEndpoint([token(1, 1), token(2, 1), token(3, 0)]);
    const t = tenant();
    await seam(t, s.profile, T0);
    const both = await Promise.all([get(t, s.profile), get(t, s.profile)]);
    expect(both.map((a) => ("token" in a ? a.token : a)).sort()).toEqual(["tok-1", "tok-2"]);
    expect(both.every((a) => "fresh" in a && a.fresh)).toBe(true);
    expect(await get(t, s.profile)).toEqual({ token: "tok-3", fresh: true });
    expect(await s.exchanges()).toBe(3);
  });

  it("50 concurrent callers share exactly one exchange", async () => {
    // The delay keeps the exchange in flight while the callers arrive; the count does not depend on it.
    const s = await tokenEndpoint([{ ...token(1, 3600), delayMs: 200 }]);
    const t = tenant();
    const answers = await Promise.all(Array.from({ length: 50 }, () => get(t, s.profile)));
    expect(new Set(answers.map((a) => ("token" in a ? a.token : "error")))).toEqual(new Set(["tok-1"]));
    expect(await s.exchanges()).toBe(1);
  });

  it("changing any of the six key fields starts a fresh entry", async () => {
    const s = await tokenEndpoint([token(1, 3600), token(2, 3600), token(3, 3600), token(4, 3600), token(5, 3600), token(6, 3600), token(7, 3600)]);
    const other = await scenario({ "/token": [token(9, 3600)] });
    const t = tenant();
    const variants: ResolvedOAuth2[] = [
      s.profile,
      { ...s.profile, clientId: "client-2" },
      { ...s.profile, clientSecret: `${SECRET}-2` },
      { ...s.profile, scope: "read" },
      { ...s.profile, audience: "api" },
      { ...s.profile, clientAuth: "body" },
    ];
    const minted = [];
    for (const p of variants) minted.push(await get(t, p));
    expect(minted).toEqual([1, 2, 3, 4, 5, 6].map((n) => ({ token: `tok-${n}`, fresh: true })));
    // Each entry is still there, reused.
    for (const [i, p] of variants.entries()) expect(await get(t, p)).toEqual({ token: `tok-${i + 1}`, fresh: false });
    expect(await s.exchanges()).toBe(6);
    expect(await get(t, { ...s.profile, tokenUrl: other.url("/token") })).toEqual({ token: "tok-9", fresh: true });
  });

  it("tenants never share a token: the same profile in two tenants is two exchanges", async () => {
    const s = await tokenEndpoint([token(1, 3600), token(2, 3600)]);
    const [a, b] = [tenant(), tenant()];
    expect(await get(a, s.profile)).toEqual({ token: "tok-1", fresh: true });
    expect(await get(b, s.profile)).toEqual({ token: "tok-2", fresh: true });
    expect(await get(a, s.profile)).toEqual({ token: "tok-1", fresh: false });
    expect(await get(b, s.profile)).toEqual({ token: "tok-2", fresh: false });
    expect(await s.exchanges()).toBe(2);
  });
});

describe("TokenCache: refresh after a 401", () => {
  it("the rejected token is replaced by one new exchange; a stale rejection gets the current token", async () => {
    const s = await tokenEndpoint([token(1, 3600), token(2, 3600), token(3, 3600)]);
    const t = tenant();
    expect(await get(t, s.profile)).toEqual({ token: "tok-1", fresh: true });
    expect(await get(t, s.profile, "tok-1")).toEqual({ token: "tok-2", fresh: true });
    // Another caller's 401 on tok-1 arriving late: tok-2 is already there.
    expect(await get(t, s.profile, "tok-1")).toEqual({ token: "tok-2", fresh: false });
    expect(await get(t, s.profile)).toEqual({ token: "tok-2", fresh: false });
    expect(await s.exchanges()).toBe(2);
  });

  it("two concurrent refreshes with the same rejected token share one exchange", async () => {
    const s = await tokenEndpoint([token(1, 3600), { ...token(2, 3600), delayMs: 200 }, token(3, 3600)]);
    const t = tenant();
    await get(t, s.profile);
    const [x, y] = await Promise.all([get(t, s.profile, "tok-1"), get(t, s.profile, "tok-1")]);
    expect("token" in x && x.token).toBe("tok-2");
    expect("token" in y && y.token).toBe("tok-2");
    expect(await s.exchanges()).toBe(2);
  });

  it("a refresh with an unknown token on an empty cache exchanges once", async () => {
    const s = await tokenEndpoint([token(1, 3600)]);
    expect(await get(tenant(), s.profile, "never-issued")).toEqual({ token: "tok-1", fresh: true });
    expect(await s.exchanges()).toBe(1);
  });
});

describe("TokenCache: failed exchanges", () => {
  const exchangeFailed = (s: { profile: ResolvedOAuth2 }, status: number, body_preview: string, reason?: string) => {
    const tokenUrl = s.profile.tokenUrl;
    return {
      status: 400,
      code: "BAD_REQUEST",
      message: `The OAuth2 token exchange with ${tokenUrl} failed${status ? ` (status ${status})` : ""}${reason ? `: ${reason}` : ""}`,
      details: { code: "HTTP_AUTH_TOKEN_EXCHANGE_FAILED", status, token_url: tokenUrl, ...(reason ? { reason } : {}), body_preview },
    };
  };

  it("a non-2xx answer, with the secret and tokens in its body hidden; the failure is not cached", async () => {
    const body = JSON.stringify({ error: "invalid_client", echo: SECRET, access_token: "leaked-token" });
    const s = await tokenEndpoint([{ status: 401, body }, token(2)]);
    const t = tenant();
    expect(failed(await get(t, s.profile))).toEqual(exchangeFailed(s, 401, '{"error":"invalid_client","echo":"***","access_token":"***"}'));
    expect(await get(t, s.profile)).toEqual({ token: "tok-2", fresh: true });
    expect(await s.exchanges()).toBe(2);
  });

  it("a 2xx without access_token, or with an empty one", async () => {
    const s = await tokenEndpoint([{ json: { token_type: "Bearer" } }, { json: { access_token: "" } }]);
    const t = tenant();
    expect(failed(await get(t, s.profile))).toEqual(exchangeFailed(s, 200, '{"token_type":"Bearer"}', "the token endpoint's answer has no access_token"));
    expect(failed(await get(t, s.profile))).toEqual(exchangeFailed(s, 200, '{"access_token":"***"}', "the token endpoint's answer has no access_token"));
  });

  it("a 2xx that is not JSON, its preview cut at 200 characters", async () => {
    const body = `access_token=abc&secret=${SECRET}&${"x".repeat(300)}`;
    const s = await tokenEndpoint([{ status: 200, headers: { "content-type": "text/plain" }, body }]);
    const preview = `access_token=***&secret=***&${"x".repeat(300)}`.slice(0, 200);
    expect(failed(await get(tenant(), s.profile))).toEqual(exchangeFailed(s, 200, preview, "the token endpoint's answer is not JSON"));
  });

  it("a redirect is not followed: the 3xx is the failure", async () => {
    const s = await tokenEndpoint([{ status: 302, headers: { location: "/elsewhere" }, body: "" }]);
    expect(failed(await get(tenant(), s.profile))).toEqual(exchangeFailed(s, 302, "", "the token endpoint redirected; redirects are not followed"));
    expect((await s.requests()).map((r) => r.path)).toEqual(["/token"]);
  });

  it("a timeout is status 0 with the reason, never retried; concurrent callers share the failure", async () => {
    const s = await tokenEndpoint([{ ...token(1), delayMs: 2_000 }]);
    const t = tenant();
    await seam(t, s.profile, T0, 300);
    const answers = await Promise.all([get(t, s.profile), get(t, s.profile)]);
    for (const a of answers) expect(failed(a)).toEqual(exchangeFailed(s, 0, "", "no complete answer within 300 ms"));
    expect(await s.exchanges()).toBe(1);
  });

  it("the token URL's query never shows in the error", async () => {
    const s = await tokenEndpoint([{ status: 500, body: "down" }]);
    const profile = { ...s.profile, tokenUrl: `${s.profile.tokenUrl}?key=abc` };
    expect(failed(await get(tenant(), profile)).details).toEqual({
      code: "HTTP_AUTH_TOKEN_EXCHANGE_FAILED",
      status: 500,
      token_url: s.profile.tokenUrl,
      body_preview: "down",
    });
  });

  it("a token URL the guard refuses fails as a refused target, nothing sent", async () => {
    const profile: ResolvedOAuth2 = { tokenUrl: "http://10.0.0.1/token", clientId: "c", clientSecret: SECRET, clientAuth: "basic" };
    const error = failed(await get(tenant(), profile));
    expect(error.status).toBe(400);
    expect(error.code).toBe("BAD_REQUEST");
    expect(error.details.code).toBe("OUTBOUND_TARGET_REFUSED");
    expect(error.details.reason).toEqual(expect.stringContaining("10.0.0.1"));
  });
});
