// Rate limits (docs/api.md, Rate limits). Runs in the `rate-limits` project: RATE_LIMIT_IP=8,
// RATE_LIMIT_IDENTITY=3 per rolling 60 s. All tests here share one worker and
// its limiter objects, so every test uses its own client IP and its own tokens.
// An authenticated request spends one unit of its IP's budget and one of its identity's.
import { describe, expect, it } from "vitest";
import { basic, call, createTenant, expectError, systemQuery, type TenantCreds } from "../support/api";
import { newPat } from "../../src/access/token-format";

const IP_LIMIT = 8;
const IDENTITY_LIMIT = 3;

/** A client address no other test uses. */
const freshIp = () => `2001:db8:${crypto.randomUUID().slice(0, 4)}::${crypto.randomUUID().slice(0, 4)}`;

function get(path: string, ip: string, auth?: string) {
  return call("GET", path, { auth, headers: { "CF-Connecting-IP": ip } });
}

const me = (ip: string, auth: string) => get("/access/me/permissions", ip, auth);

/** A second admin PAT in the tenant, made in the database so that minting it spends no budget. */
async function extraToken(t: TenantCreds): Promise<{ id: string; auth: string }> {
  const pat = await newPat();
  const [row] = await systemQuery("INSERT INTO api_tokens (tenant_id, user_id, name, client_id, secret_hash) VALUES ($1, $2, 'extra', $3, $4) RETURNING id", [
    t.tenantId,
    t.userId,
    pat.clientId,
    pat.secretHash,
  ]);
  await systemQuery(
    "INSERT INTO role_bindings (tenant_id, role_id, principal_type, principal_id) SELECT $1, id, 'token', $2 FROM roles WHERE tenant_id = $1 AND name = 'admin'",
    [t.tenantId, row.id],
  );
  return { id: row.id, auth: basic(pat.clientId, pat.clientSecret) };
}

function expectBudget(res: { status: number; headers: Headers }, limit: number, remaining: number) {
  expect(res.status).toBe(200);
  expect(res.headers.get("X-Rate-Limit-Limit")).toBe(String(limit));
  expect(res.headers.get("X-Rate-Limit-Remaining")).toBe(String(remaining));
}

function expectLimited(res: { status: number; json: any; headers: Headers }, scope: "ip" | "identity", limit: number) {
  const err = expectError(res, 429, "TOO_MANY_REQUESTS");
  expect(err.details).toEqual({ scope, limit, request_id: expect.any(String) });
  expect(res.headers.get("Retry-After")).toBeNull();
  expect(res.headers.get("X-Rate-Limit-Limit")).toBeNull();
  expect(res.headers.get("X-Rate-Limit-Remaining")).toBeNull();
}

describe("identity budget (after auth)", () => {
  it("headers on successful authenticated responses describe the identity budget: 3, then remaining 2, 1, 0", async () => {
    const t = await createTenant();
    const ip = freshIp();
    expectBudget(await me(ip, t.auth), IDENTITY_LIMIT, 2);
    expectBudget(await me(ip, t.auth), IDENTITY_LIMIT, 1);
    expectBudget(await me(ip, t.auth), IDENTITY_LIMIT, 0);
  });

  it("the 4th authenticated call is 429 TOO_MANY_REQUESTS {scope: identity, limit: 3}, with no Retry-After and no X-Rate-Limit-* headers", async () => {
    const t = await createTenant();
    const ip = freshIp();
    for (let i = 0; i < IDENTITY_LIMIT; i++) expect((await me(ip, t.auth)).status).toBe(200);
    expectLimited(await me(ip, t.auth), "identity", IDENTITY_LIMIT);
    // Still refused on any route, and from any address: the budget is the identity's.
    expectLimited(await get("/access/roles", ip, t.auth), "identity", IDENTITY_LIMIT);
    expectLimited(await me(freshIp(), t.auth), "identity", IDENTITY_LIMIT);
  });

  it("a refused request does not reach the handler", async () => {
    const t = await createTenant();
    const ip = freshIp();
    for (let i = 0; i < IDENTITY_LIMIT; i++) expect((await me(ip, t.auth)).status).toBe(200);
    const res = await call("POST", "/access/roles", { auth: t.auth, body: { name: "blocked", permissions: [] }, headers: { "CF-Connecting-IP": ip } });
    expectLimited(res, "identity", IDENTITY_LIMIT);
    expect(await systemQuery("SELECT 1 FROM roles WHERE tenant_id = $1 AND name = 'blocked'", [t.tenantId])).toEqual([]);
  });

  it("another token in the same tenant has its own budget", async () => {
    const t = await createTenant();
    const other = await extraToken(t);
    const ip = freshIp();
    for (let i = 0; i < IDENTITY_LIMIT; i++) expect((await me(ip, t.auth)).status).toBe(200);
    expectLimited(await me(ip, t.auth), "identity", IDENTITY_LIMIT);

    expectBudget(await me(ip, other.auth), IDENTITY_LIMIT, 2);
    expectBudget(await me(ip, other.auth), IDENTITY_LIMIT, 1);
    // IP spent so far: 4 + 2 = 6 of 8.
  });

  it("a token in another tenant is unaffected", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const ip = freshIp();
    for (let i = 0; i < IDENTITY_LIMIT; i++) expect((await me(ip, a.auth)).status).toBe(200);
    expectLimited(await me(ip, a.auth), "identity", IDENTITY_LIMIT);
    expectBudget(await me(ip, b.auth), IDENTITY_LIMIT, 2);
  });

  it("a Bearer access token spends its PAT's budget: they are one identity", async () => {
    const t = await createTenant();
    const ip = freshIp();
    const exchanged = await call("POST", "/auth/token", {
      body: { grant_type: "client_credentials", client_id: t.clientId, client_secret: t.clientSecret },
      headers: { "CF-Connecting-IP": ip },
    });
    expect(exchanged.status).toBe(200);
    const bearer = `Bearer ${exchanged.json.access_token}`;
    expectBudget(await me(ip, t.auth), IDENTITY_LIMIT, 2);
    expectBudget(await me(ip, bearer), IDENTITY_LIMIT, 1);
    expectBudget(await me(ip, t.auth), IDENTITY_LIMIT, 0);
    expectLimited(await me(ip, bearer), "identity", IDENTITY_LIMIT);
  });
});

describe("IP budget (before auth)", () => {
  it("unauthenticated /healthz calls show the IP budget, 8, counting down to 0", async () => {
    const ip = freshIp();
    for (let i = 1; i <= IP_LIMIT; i++) expectBudget(await get("/healthz", ip), IP_LIMIT, IP_LIMIT - i);
  });

  it("the 9th call from one IP is 429 {scope: ip, limit: 8}, with no Retry-After and no X-Rate-Limit-* headers", async () => {
    const ip = freshIp();
    for (let i = 0; i < IP_LIMIT; i++) expect((await get("/healthz", ip)).status).toBe(200);
    expectLimited(await get("/healthz", ip), "ip", IP_LIMIT);
    // Every route is behind the IP limit, including the token exchange and unknown paths.
    expectLimited(await call("POST", "/auth/token", { body: {}, headers: { "CF-Connecting-IP": ip } }), "ip", IP_LIMIT);
    expectLimited(await get("/no-such-route", ip), "ip", IP_LIMIT);
  });

  it("a different IP is unaffected", async () => {
    const spent = freshIp();
    for (let i = 0; i < IP_LIMIT; i++) expect((await get("/healthz", spent)).status).toBe(200);
    expectLimited(await get("/healthz", spent), "ip", IP_LIMIT);

    expectBudget(await get("/healthz", freshIp()), IP_LIMIT, IP_LIMIT - 1);
  });

  it("an authenticated request spends the IP budget too; over it, 429 is scope ip even with identity budget left", async () => {
    const t = await createTenant();
    const ip = freshIp();
    for (let i = 0; i < IP_LIMIT - 1; i++) expect((await get("/healthz", ip)).status).toBe(200);
    // The 8th request from this IP: allowed; its headers describe the identity budget.
    expectBudget(await me(ip, t.auth), IDENTITY_LIMIT, 2);
    // The 9th: the IP is spent, though the identity still has 2.
    expectLimited(await me(ip, t.auth), "ip", IP_LIMIT);
    // The IP refusal came before authentication, so it cost the identity nothing.
    expectBudget(await me(freshIp(), t.auth), IDENTITY_LIMIT, 1);
  });

  it("requests refused for their credentials still spend the IP budget", async () => {
    const ip = freshIp();
    for (let i = 0; i < IP_LIMIT; i++) expectError(await me(ip, basic("pat_nobody", "sk_nothing")), 401, "UNAUTHORIZED");
    expectLimited(await get("/healthz", ip), "ip", IP_LIMIT);
  });

  it("falls back to the first X-Forwarded-For address when CF-Connecting-IP is absent", async () => {
    const ip = freshIp();
    const viaForwarded = () => call("GET", "/healthz", { headers: { "X-Forwarded-For": `${ip}, 10.0.0.1` } });
    expectBudget(await viaForwarded(), IP_LIMIT, IP_LIMIT - 1);
    expectBudget(await get("/healthz", ip), IP_LIMIT, IP_LIMIT - 2);
  });
});
