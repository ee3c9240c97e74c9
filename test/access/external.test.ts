// /access/external-companies and /access/external-users: unique (provider, external_id) per
// tenant for companies and (provider, company, external_id) for users, is_active, linking to a
// tenant user by email only when asked.
import { describe, expect, it } from "vitest";
import { basic, call, createTenant, expectError, systemQuery, type TenantCreds } from "../support/api";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const COMPANY_KEYS = ["created_at", "external_id", "id", "is_active", "metadata", "name", "provider", "updated_at"];
const USER_KEYS = ["company_external_id", "created_at", "email", "external_id", "id", "is_active", "provider", "updated_at", "user_id"];

/** A token whose only role holds `permissions`. */
async function restricted(t: TenantCreds, permissions: string[]) {
  const name = `r-${crypto.randomUUID().slice(0, 8)}`;
  expect((await call("POST", "/access/roles", { auth: t.auth, body: { name, permissions } })).status).toBe(201);
  const res = await call("POST", "/access/api-tokens", { auth: t.auth, body: { name, role_names: [name] } });
  expect(res.status, res.text).toBe(201);
  return { auth: basic(res.json.data.client_id, res.json.data.client_secret) };
}

const postCompany = (t: { auth: string }, body: unknown) => call("POST", "/access/external-companies", { auth: t.auth, body });
const postUser = (t: { auth: string }, body: unknown) => call("POST", "/access/external-users", { auth: t.auth, body });

async function company(t: TenantCreds, body: Record<string, unknown>) {
  const res = await postCompany(t, body);
  expect(res.status, res.text).toBe(201);
  return res.json.data;
}

async function externalUser(t: TenantCreds, body: Record<string, unknown>) {
  const res = await postUser(t, body);
  expect(res.status, res.text).toBe(201);
  return res.json.data;
}

const companyRows = (tenantId: string) =>
  systemQuery("SELECT provider, external_id, name, metadata, is_active FROM external_companies WHERE tenant_id = $1 ORDER BY created_at", [tenantId]);
const mappingRows = (tenantId: string) =>
  systemQuery("SELECT provider, external_id, email, user_id, is_active FROM external_users WHERE tenant_id = $1 ORDER BY created_at", [tenantId]);
const userRows = (tenantId: string) => systemQuery("SELECT id, name, email FROM users WHERE tenant_id = $1 ORDER BY created_at, id", [tenantId]);

async function tenantUser(tenantId: string, email: string, name = "existing") {
  const [row] = await systemQuery("INSERT INTO users (tenant_id, email, name) VALUES ($1, $2, $3) RETURNING id", [tenantId, email, name]);
  return row.id as string;
}

describe("POST /access/external-companies", () => {
  it("creates: 201 with every field, name and metadata null when left out", async () => {
    const t = await createTenant();
    const before = Date.now();
    const res = await postCompany(t, { provider: "okta", external_id: "org-1", name: "Acme", metadata: { tier: "gold", seats: 40 } });
    expect(res.status).toBe(201);
    expect(Object.keys(res.json)).toEqual(["data"]);
    const c = res.json.data;
    expect(Object.keys(c).sort()).toEqual(COMPANY_KEYS);
    expect(c).toMatchObject({ provider: "okta", external_id: "org-1", name: "Acme", metadata: { tier: "gold", seats: 40 }, is_active: true });
    expect(c.id).toMatch(UUID);
    expect(c.created_at).toBe(c.updated_at);
    expect(Math.abs(Date.parse(c.created_at) - before)).toBeLessThan(120_000);
    const bare = await company(t, { provider: "okta", external_id: "org-2" });
    expect(bare).toMatchObject({ name: null, metadata: null, is_active: true });
    expect(await companyRows(t.tenantId)).toEqual([
      { provider: "okta", external_id: "org-1", name: "Acme", metadata: { tier: "gold", seats: 40 }, is_active: true },
      { provider: "okta", external_id: "org-2", name: null, metadata: null, is_active: true },
    ]);
  });

  it("refuses a second (provider, external_id) in the tenant with 409; another provider or tenant may reuse the id", async () => {
    const t = await createTenant();
    const other = await createTenant();
    await company(t, { provider: "okta", external_id: "org-1", name: "first" });
    const err = expectError(await postCompany(t, { provider: "okta", external_id: "org-1", name: "second" }), 409, "CONFLICT");
    expect(err.details).toMatchObject({ provider: "okta", external_id: "org-1" });
    await company(t, { provider: "auth0", external_id: "org-1" });
    await company(other, { provider: "okta", external_id: "org-1" });
    expect((await companyRows(t.tenantId)).map((r) => [r.provider, r.name])).toEqual([
      ["okta", "first"],
      ["auth0", null],
    ]);
  });

  it.each([
    [{ external_id: "x" }, "provider: is required"],
    [{ provider: "p" }, "external_id: is required"],
    [{ provider: 1, external_id: "x" }, "provider: must be string, got number"],
    [{ provider: "", external_id: "x" }, /^provider: /],
    [{ provider: "p", external_id: "x".repeat(501) }, /^external_id: /],
    [{ provider: "p".repeat(201), external_id: "x" }, /^provider: /],
    [{ provider: "p", external_id: "x", metadata: [1] }, /^metadata: /],
    [{ provider: "p", external_id: "x", name: 5 }, /^name: /],
    [{ provider: "p", external_id: "x", is_active: false }, "is_active: is not allowed"],
    [{ provider: "p\u0000", external_id: "x" }, "provider: must not contain NUL characters or unpaired surrogates"],
    [{ provider: "p", external_id: "x", name: "\ud800" }, "name: must not contain NUL characters or unpaired surrogates"],
  ])("refuses %j with 422 and writes nothing", async (body, line) => {
    const t = await createTenant();
    const err = expectError(await postCompany(t, body), 422, "VALIDATION_FAILED");
    expect(err.details.validation_errors).toContainEqual(typeof line === "string" ? line : expect.stringMatching(line));
    expect(await companyRows(t.tenantId)).toEqual([]);
  });

  it("needs access:create: 403 and nothing written", async () => {
    const t = await createTenant();
    expectError(await postCompany(await restricted(t, ["access:read", "access:update"]), { provider: "p", external_id: "x" }), 403, "FORBIDDEN");
    expect(await companyRows(t.tenantId)).toEqual([]);
  });
});

describe("GET /access/external-companies", () => {
  it("lists newest first, filtered by provider and external_id, paginated, this tenant only", async () => {
    const t = await createTenant();
    const other = await createTenant();
    await company(other, { provider: "okta", external_id: "theirs" });
    const a = await company(t, { provider: "okta", external_id: "a" });
    const b = await company(t, { provider: "okta", external_id: "b" });
    const c = await company(t, { provider: "auth0", external_id: "a" });
    const all = await call("GET", "/access/external-companies", { auth: t.auth });
    expect(all.json).toEqual({ data: [c, b, a], pagination: { page: 1, limit: 100, total: 3, total_pages: 1 } });
    expect((await call("GET", "/access/external-companies?provider=okta", { auth: t.auth })).json.data).toEqual([b, a]);
    expect((await call("GET", "/access/external-companies?external_id=a", { auth: t.auth })).json.data).toEqual([c, a]);
    expect((await call("GET", "/access/external-companies?provider=okta&external_id=a", { auth: t.auth })).json.data).toEqual([a]);
    expect((await call("GET", "/access/external-companies?external_id=theirs", { auth: t.auth })).json.data).toEqual([]);
    expect((await call("GET", "/access/external-companies?limit=1&page=3", { auth: t.auth })).json).toEqual({
      data: [a],
      pagination: { page: 3, limit: 1, total: 3, total_pages: 3 },
    });
    expectError(await call("GET", "/access/external-companies?name=x", { auth: t.auth }), 422, "VALIDATION_FAILED");
  });

  it("gets one by id; 404 for unknown ids and another tenant's company; 403 without access:read", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const mine = await company(t, { provider: "okta", external_id: "a", metadata: { k: [1, 2] } });
    const theirs = await company(other, { provider: "okta", external_id: "a" });
    expect((await call("GET", `/access/external-companies/${mine.id}`, { auth: t.auth })).json).toEqual({ data: mine });
    expectError(await call("GET", `/access/external-companies/${crypto.randomUUID()}`, { auth: t.auth }), 404, "NOT_FOUND");
    expectError(await call("GET", `/access/external-companies/${theirs.id}`, { auth: t.auth }), 404, "NOT_FOUND");
    expectError(await call("GET", "/access/external-companies/nope", { auth: t.auth }), 422, "VALIDATION_FAILED");
    const noRead = await restricted(t, ["access:create", "access:update"]);
    expectError(await call("GET", `/access/external-companies/${mine.id}`, { auth: noRead.auth }), 403, "FORBIDDEN");
    expectError(await call("GET", "/access/external-companies", { auth: noRead.auth }), 403, "FORBIDDEN");
  });
});

describe("PUT /access/external-companies/{id}", () => {
  const put = (t: { auth: string }, id: string, body: unknown) => call("PUT", `/access/external-companies/${id}`, { auth: t.auth, body });

  it("changes only the fields given; is_active false is stored and answered; null clears name and metadata", async () => {
    const t = await createTenant();
    const c = await company(t, { provider: "okta", external_id: "a", name: "Acme", metadata: { tier: "gold" } });
    let res = await put(t, c.id, { name: "Acme Ltd" });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({
      id: c.id,
      provider: "okta",
      external_id: "a",
      name: "Acme Ltd",
      metadata: { tier: "gold" },
      is_active: true,
      created_at: c.created_at,
    });
    expect(Date.parse(res.json.data.updated_at)).toBeGreaterThan(Date.parse(c.updated_at));
    res = await put(t, c.id, { is_active: false });
    expect(res.json.data).toMatchObject({ name: "Acme Ltd", metadata: { tier: "gold" }, is_active: false });
    res = await put(t, c.id, { metadata: { tier: "silver", tags: ["a"] }, is_active: true });
    expect(res.json.data).toMatchObject({ name: "Acme Ltd", metadata: { tier: "silver", tags: ["a"] }, is_active: true });
    res = await put(t, c.id, { name: null, metadata: null });
    expect(res.json.data).toMatchObject({ name: null, metadata: null, is_active: true });
    expect(await companyRows(t.tenantId)).toEqual([{ provider: "okta", external_id: "a", name: null, metadata: null, is_active: true }]);
    expect((await call("GET", `/access/external-companies/${c.id}`, { auth: t.auth })).json.data).toEqual(res.json.data);
  });

  it("refuses provider and external_id with 422 saying they cannot change, and changes nothing", async () => {
    const t = await createTenant();
    const c = await company(t, { provider: "okta", external_id: "a", name: "Acme" });
    let err = expectError(await put(t, c.id, { provider: "auth0", name: "new" }), 422, "VALIDATION_FAILED");
    expect(err.message).toBe("provider cannot be changed");
    expect(err.details.validation_errors).toEqual(["provider: cannot be changed"]);
    err = expectError(await put(t, c.id, { provider: "okta", external_id: "a" }), 422, "VALIDATION_FAILED");
    expect(err.details.validation_errors).toEqual(["provider: cannot be changed", "external_id: cannot be changed"]);
    expect(await companyRows(t.tenantId)).toEqual([{ provider: "okta", external_id: "a", name: "Acme", metadata: null, is_active: true }]);
  });

  it("refuses bad bodies with the envelope and changes nothing", async () => {
    const t = await createTenant();
    const c = await company(t, { provider: "okta", external_id: "a", name: "Acme" });
    for (const [body, line] of [
      [{ is_active: "no" }, "is_active: must be boolean, got string"],
      [{ name: "" }, /^name: /],
      [{ extra: 1 }, "extra: is not allowed"],
      [{ name: "a\u0000" }, "name: must not contain NUL characters or unpaired surrogates"],
      [[], /^\(root\): /],
    ] as const) {
      const err = expectError(await put(t, c.id, body), 422, "VALIDATION_FAILED");
      expect(err.details.validation_errors).toContainEqual(typeof line === "string" ? line : expect.stringMatching(line));
    }
    expectError(
      await call("PUT", `/access/external-companies/${c.id}`, { auth: t.auth, rawBody: "{", headers: { "Content-Type": "application/json" } }),
      400,
      "BAD_REQUEST",
    );
    expect(await companyRows(t.tenantId)).toEqual([{ provider: "okta", external_id: "a", name: "Acme", metadata: null, is_active: true }]);
  });

  it("answers 404 for unknown ids and another tenant's company (unchanged); 403 without access:update (unchanged)", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const theirs = await company(other, { provider: "okta", external_id: "a", name: "Theirs" });
    expectError(await put(t, crypto.randomUUID(), { name: "x" }), 404, "NOT_FOUND");
    expectError(await put(t, theirs.id, { name: "x", is_active: false }), 404, "NOT_FOUND");
    expect(await companyRows(other.tenantId)).toEqual([{ provider: "okta", external_id: "a", name: "Theirs", metadata: null, is_active: true }]);
    const mine = await company(t, { provider: "okta", external_id: "a", name: "Mine" });
    expectError(await put(await restricted(t, ["access:create", "access:read"]), mine.id, { is_active: false }), 403, "FORBIDDEN");
    expect((await companyRows(t.tenantId))[0].is_active).toBe(true);
  });
});

describe("POST /access/external-users", () => {
  it("creates the mapping and a new tenant user named from first and last name: 201", async () => {
    const t = await createTenant();
    const before = Date.now();
    const res = await postUser(t, { provider: "okta", external_id: "u-1", email: "ada@example.com", first_name: "Ada", last_name: "Lovelace" });
    expect(res.status).toBe(201);
    const u = res.json.data;
    expect(Object.keys(u).sort()).toEqual(USER_KEYS);
    expect(u).toMatchObject({ provider: "okta", external_id: "u-1", company_external_id: null, email: "ada@example.com", is_active: true });
    expect(u.id).toMatch(UUID);
    expect(u.user_id).toMatch(UUID);
    expect(u.created_at).toBe(u.updated_at);
    expect(Math.abs(Date.parse(u.created_at) - before)).toBeLessThan(120_000);
    const [user] = await systemQuery("SELECT tenant_id, name, email, is_active FROM users WHERE id = $1", [u.user_id]);
    expect(user).toEqual({ tenant_id: t.tenantId, name: "Ada Lovelace", email: "ada@example.com", is_active: true });
  });

  it("names the user from whichever name parts are given, and leaves it null without any (email optional)", async () => {
    const t = await createTenant();
    const first = await externalUser(t, { provider: "p", external_id: "1", first_name: "Ada" });
    const last = await externalUser(t, { provider: "p", external_id: "2", last_name: "Lovelace" });
    const none = await externalUser(t, { provider: "p", external_id: "3" });
    expect(none.email).toBeNull();
    const names = await systemQuery("SELECT id, name, email FROM users WHERE id = ANY($1::uuid[])", [[first.user_id, last.user_id, none.user_id]]);
    expect(Object.fromEntries(names.map((r) => [r.id, [r.name, r.email]]))).toEqual({
      [first.user_id]: ["Ada", null],
      [last.user_id]: ["Lovelace", null],
      [none.user_id]: [null, null],
    });
  });

  it("refuses an email a tenant user holds (any case) with 409 EMAIL_LINK_REFUSED, writing nothing", async () => {
    const t = await createTenant();
    const holder = await tenantUser(t.tenantId, "Bob@Example.com");
    const users = await userRows(t.tenantId);
    for (const body of [
      { provider: "okta", external_id: "b", email: "bob@example.COM" },
      { provider: "okta", external_id: "b", email: "Bob@Example.com", link_existing_email: false },
    ]) {
      const err = expectError(await postUser(t, body), 409, "CONFLICT");
      expect(err.details).toEqual({ code: "EMAIL_LINK_REFUSED", email: body.email, user_id: holder, request_id: expect.any(String) });
    }
    expect(await mappingRows(t.tenantId)).toEqual([]);
    expect(await userRows(t.tenantId)).toEqual(users);
  });

  it("links the tenant user holding the email (any case) with link_existing_email: true, creating no user", async () => {
    const t = await createTenant();
    const holder = await tenantUser(t.tenantId, "Bob@Example.com", "Bob");
    const users = await userRows(t.tenantId);
    const u = await externalUser(t, { provider: "okta", external_id: "b", email: "bob@example.com", first_name: "Robert", link_existing_email: true });
    expect(u).toMatchObject({ user_id: holder, email: "bob@example.com" });
    expect(await userRows(t.tenantId)).toEqual(users);
    // A second provider's identity may link the same user.
    expect((await externalUser(t, { provider: "auth0", external_id: "b", email: "BOB@example.com", link_existing_email: true })).user_id).toBe(holder);
    // With no user holding the email, link_existing_email creates one.
    const fresh = await externalUser(t, { provider: "okta", external_id: "c", email: "carol@example.com", link_existing_email: true });
    expect(fresh.user_id).not.toBe(holder);
    expect((await userRows(t.tenantId)).length).toBe(users.length + 1);
  });

  it("does not link another tenant's user of the same email", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const theirs = await tenantUser(other.tenantId, "same@example.com");
    const u = await externalUser(t, { provider: "okta", external_id: "s", email: "same@example.com", link_existing_email: true });
    expect(u.user_id).not.toBe(theirs);
    expect((await systemQuery("SELECT tenant_id FROM users WHERE id = $1", [u.user_id]))[0].tenant_id).toBe(t.tenantId);
  });

  it("re-posting an active mapping answers 200 with the existing row; an inactive one 409 EXTERNAL_USER_INACTIVE", async () => {
    const t = await createTenant();
    const u = await externalUser(t, { provider: "okta", external_id: "r", email: "r@example.com" });
    const again = await postUser(t, { provider: "okta", external_id: "r", email: "r@example.com", first_name: "Other" });
    expect(again.status).toBe(200);
    expect(again.json).toEqual({ data: u });
    expect((await call("PUT", `/access/external-users/${u.id}`, { auth: t.auth, body: { is_active: false } })).status).toBe(200);
    const err = expectError(await postUser(t, { provider: "okta", external_id: "r" }), 409, "CONFLICT");
    expect(err.details).toEqual({ code: "EXTERNAL_USER_INACTIVE", external_user_id: u.id, request_id: expect.any(String) });
    expect(await mappingRows(t.tenantId)).toEqual([{ provider: "okta", external_id: "r", email: "r@example.com", user_id: u.user_id, is_active: false }]);
  });

  it("two identical posts at once make one mapping and one user: one 201, one 200 with the same row", async () => {
    for (const email of ["race@example.com", undefined]) {
      const t = await createTenant();
      const users = (await userRows(t.tenantId)).length;
      const body = { provider: "okta", external_id: "race", email, first_name: "R" };
      const answers = await Promise.all([postUser(t, body), postUser(t, body), postUser(t, body)]);
      expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 201]);
      expect(new Set(answers.map((a) => a.json.data.id)).size).toBe(1);
      expect(await mappingRows(t.tenantId)).toHaveLength(1);
      expect((await userRows(t.tenantId)).length).toBe(users + 1);
    }
  });

  it.each([
    [{ external_id: "x" }, "provider: is required"],
    [{ provider: "p" }, "external_id: is required"],
    [{ provider: "p", external_id: "x", email: "not-an-email" }, /^email: /],
    [{ provider: "p", external_id: "x", email: 3 }, /^email: /],
    [{ provider: "p", external_id: "x", link_existing_email: "yes" }, "link_existing_email: must be boolean, got string"],
    [{ provider: "p", external_id: "x", first_name: "" }, /^first_name: /],
    [{ provider: "p", external_id: "x", last_name: "l".repeat(101) }, /^last_name: /],
    [{ provider: "p", external_id: "x", user_id: crypto.randomUUID() }, "user_id: is not allowed"],
    [{ provider: "p", external_id: "x\u0000" }, "external_id: must not contain NUL characters or unpaired surrogates"],
    [{ provider: "p", external_id: "x", first_name: "\udfff" }, "first_name: must not contain NUL characters or unpaired surrogates"],
  ])("refuses %j with 422 and writes nothing", async (body, line) => {
    const t = await createTenant();
    const users = await userRows(t.tenantId);
    const err = expectError(await postUser(t, body), 422, "VALIDATION_FAILED");
    expect(err.details.validation_errors).toContainEqual(typeof line === "string" ? line : expect.stringMatching(line));
    expect(await mappingRows(t.tenantId)).toEqual([]);
    expect(await userRows(t.tenantId)).toEqual(users);
  });

  it("needs access:create: 403, no mapping and no user written", async () => {
    const t = await createTenant();
    const limited = await restricted(t, ["access:read", "access:update"]);
    const users = await userRows(t.tenantId);
    expectError(await postUser(limited, { provider: "p", external_id: "x", email: "x@example.com" }), 403, "FORBIDDEN");
    expect(await mappingRows(t.tenantId)).toEqual([]);
    expect(await userRows(t.tenantId)).toEqual(users);
  });
});

describe("POST /access/external-users with company_external_id", () => {
  const companyMappings = (tenantId: string) =>
    systemQuery("SELECT company_external_id, external_id, user_id FROM external_users WHERE tenant_id = $1 ORDER BY created_at", [tenantId]);

  it("makes the same external_id of two companies two persons; re-posting answers each its own; without a company it is a third, unbound", async () => {
    const t = await createTenant();
    await company(t, { provider: "okta", external_id: "co-a" });
    await company(t, { provider: "okta", external_id: "co-b" });
    const a = await externalUser(t, { provider: "okta", external_id: "u", company_external_id: "co-a" });
    const b = await externalUser(t, { provider: "okta", external_id: "u", company_external_id: "co-b" });
    const unbound = await externalUser(t, { provider: "okta", external_id: "u" });
    expect([a.company_external_id, b.company_external_id, unbound.company_external_id]).toEqual(["co-a", "co-b", null]);
    expect(new Set([a.user_id, b.user_id, unbound.user_id]).size).toBe(3);
    for (const [body, row] of [
      [{ provider: "okta", external_id: "u", company_external_id: "co-b" }, b],
      [{ provider: "okta", external_id: "u" }, unbound],
    ] as const) {
      const again = await postUser(t, body);
      expect([again.status, again.json.data]).toEqual([200, row]);
    }
    expect(await companyMappings(t.tenantId)).toEqual([
      { company_external_id: "co-a", external_id: "u", user_id: a.user_id },
      { company_external_id: "co-b", external_id: "u", user_id: b.user_id },
      { company_external_id: null, external_id: "u", user_id: unbound.user_id },
    ]);
    expect((await call("GET", "/access/external-users?company_external_id=co-b", { auth: t.auth })).json.data).toEqual([b]);
    expect((await call("GET", "/access/external-users?company_external_id=co-c", { auth: t.auth })).json.data).toEqual([]);
  });

  it("does not link another company's person by email unless asked", async () => {
    const t = await createTenant();
    await company(t, { provider: "okta", external_id: "co-a" });
    await company(t, { provider: "okta", external_id: "co-b" });
    const a = await externalUser(t, { provider: "okta", external_id: "u", company_external_id: "co-a", email: "u@example.com" });
    const err = expectError(await postUser(t, { provider: "okta", external_id: "u", company_external_id: "co-b", email: "u@example.com" }), 409, "CONFLICT");
    expect(err.details).toMatchObject({ code: "EMAIL_LINK_REFUSED", user_id: a.user_id });
    expect(await companyMappings(t.tenantId)).toEqual([{ company_external_id: "co-a", external_id: "u", user_id: a.user_id }]);
  });

  it("refuses a company not registered under that provider in this tenant (unknown, another provider's, another tenant's) with 422, writing nothing", async () => {
    const t = await createTenant();
    const other = await createTenant();
    await company(t, { provider: "auth0", external_id: "co-auth0" });
    await company(other, { provider: "okta", external_id: "co-theirs" });
    const users = await userRows(t.tenantId);
    for (const companyExternalId of ["co-nobody", "co-auth0", "co-theirs"]) {
      const err = expectError(
        await postUser(t, { provider: "okta", external_id: "u", company_external_id: companyExternalId, email: "u@example.com" }),
        422,
        "UNPROCESSABLE_ENTITY",
      );
      expect(err.details).toMatchObject({ provider: "okta", company_external_id: companyExternalId });
    }
    for (const [value, line] of [
      ["", /^company_external_id: /],
      [7, "company_external_id: must be string, got number"],
      ["c".repeat(501), /^company_external_id: /],
      [null, /^company_external_id: /],
    ] as const) {
      const err = expectError(await postUser(t, { provider: "okta", external_id: "u", company_external_id: value }), 422, "VALIDATION_FAILED");
      expect(err.details.validation_errors).toContainEqual(typeof line === "string" ? line : expect.stringMatching(line));
    }
    expectError(await call("GET", "/access/external-users?company_external_id=", { auth: t.auth }), 422, "VALIDATION_FAILED");
    expect(await mappingRows(t.tenantId)).toEqual([]);
    expect(await userRows(t.tenantId)).toEqual(users);
  });

  it("refuses to change company_external_id with 422", async () => {
    const t = await createTenant();
    await company(t, { provider: "okta", external_id: "co-a" });
    const u = await externalUser(t, { provider: "okta", external_id: "u", company_external_id: "co-a" });
    const err = expectError(
      await call("PUT", `/access/external-users/${u.id}`, { auth: t.auth, body: { company_external_id: "co-b" } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(err.details.validation_errors).toEqual(["company_external_id: cannot be changed"]);
    // A company's own change body has no such field: it is merely not allowed there.
    const c = await company(t, { provider: "okta", external_id: "co-c" });
    const companyErr = expectError(
      await call("PUT", `/access/external-companies/${c.id}`, { auth: t.auth, body: { company_external_id: "x" } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(companyErr.details.validation_errors).toEqual(["company_external_id: is not allowed"]);
    expect((await companyMappings(t.tenantId))[0].company_external_id).toBe("co-a");
  });
});

describe("GET /access/external-users", () => {
  it("lists newest first, filtered by provider, external_id and email (any case), this tenant only; gets by id", async () => {
    const t = await createTenant();
    const other = await createTenant();
    await externalUser(other, { provider: "okta", external_id: "a", email: "a@example.com" });
    const a = await externalUser(t, { provider: "okta", external_id: "a", email: "A@Example.com" });
    const b = await externalUser(t, { provider: "okta", external_id: "b" });
    const c = await externalUser(t, { provider: "auth0", external_id: "a", email: "a@example.com", link_existing_email: true });
    expect(c.user_id).toBe(a.user_id);
    expect((await call("GET", "/access/external-users", { auth: t.auth })).json).toEqual({
      data: [c, b, a],
      pagination: { page: 1, limit: 100, total: 3, total_pages: 1 },
    });
    expect((await call("GET", "/access/external-users?provider=okta", { auth: t.auth })).json.data).toEqual([b, a]);
    expect((await call("GET", "/access/external-users?external_id=a", { auth: t.auth })).json.data).toEqual([c, a]);
    expect((await call("GET", "/access/external-users?email=a@EXAMPLE.com", { auth: t.auth })).json.data).toEqual([c, a]);
    expect((await call("GET", "/access/external-users?provider=auth0&email=a@example.com", { auth: t.auth })).json.data).toEqual([c]);
    expect((await call("GET", "/access/external-users?limit=2&page=2", { auth: t.auth })).json).toEqual({
      data: [a],
      pagination: { page: 2, limit: 2, total: 3, total_pages: 2 },
    });
    expect((await call("GET", `/access/external-users/${b.id}`, { auth: t.auth })).json).toEqual({ data: b });
    expectError(await call("GET", "/access/external-users?user_id=x", { auth: t.auth }), 422, "VALIDATION_FAILED");
  });

  it("404 for unknown ids and another tenant's external user; 403 without access:read", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const theirs = await externalUser(other, { provider: "okta", external_id: "a" });
    expectError(await call("GET", `/access/external-users/${crypto.randomUUID()}`, { auth: t.auth }), 404, "NOT_FOUND");
    expectError(await call("GET", `/access/external-users/${theirs.id}`, { auth: t.auth }), 404, "NOT_FOUND");
    const noRead = await restricted(t, ["access:create", "access:update"]);
    expectError(await call("GET", "/access/external-users", { auth: noRead.auth }), 403, "FORBIDDEN");
    expectError(await call("GET", `/access/external-users/${theirs.id}`, { auth: noRead.auth }), 403, "FORBIDDEN");
  });
});

describe("PUT /access/external-users/{id}", () => {
  const put = (t: { auth: string }, id: string, body: unknown) => call("PUT", `/access/external-users/${id}`, { auth: t.auth, body });

  it("changes is_active alone, and the email of the mapping and its tenant user", async () => {
    const t = await createTenant();
    const u = await externalUser(t, { provider: "okta", external_id: "a", email: "old@example.com" });
    let res = await put(t, u.id, { is_active: false });
    expect(res.status).toBe(200);
    expect(res.json.data).toMatchObject({ id: u.id, email: "old@example.com", is_active: false, user_id: u.user_id, created_at: u.created_at });
    expect(Date.parse(res.json.data.updated_at)).toBeGreaterThan(Date.parse(u.updated_at));
    res = await put(t, u.id, { email: "New@example.com", is_active: true });
    expect(res.json.data).toMatchObject({ email: "New@example.com", is_active: true });
    expect((await systemQuery("SELECT email, is_active FROM users WHERE id = $1", [u.user_id]))[0]).toEqual({ email: "New@example.com", is_active: true });
    // The same address in another case is the user's own: allowed.
    expect((await put(t, u.id, { email: "new@EXAMPLE.com" })).json.data.email).toBe("new@EXAMPLE.com");
    expect((await call("GET", `/access/external-users/${u.id}`, { auth: t.auth })).json.data.email).toBe("new@EXAMPLE.com");
  });

  it("refuses an email another tenant user holds with 409 EMAIL_LINK_REFUSED, changing nothing", async () => {
    const t = await createTenant();
    const holder = await tenantUser(t.tenantId, "taken@example.com");
    const u = await externalUser(t, { provider: "okta", external_id: "a", email: "mine@example.com" });
    const err = expectError(await put(t, u.id, { email: "TAKEN@example.com", is_active: false }), 409, "CONFLICT");
    expect(err.details).toEqual({ code: "EMAIL_LINK_REFUSED", email: "TAKEN@example.com", user_id: holder, request_id: expect.any(String) });
    expect(await mappingRows(t.tenantId)).toEqual([{ provider: "okta", external_id: "a", email: "mine@example.com", user_id: u.user_id, is_active: true }]);
    expect((await systemQuery("SELECT email FROM users WHERE id = $1", [u.user_id]))[0].email).toBe("mine@example.com");
  });

  it("refuses provider, external_id and bad fields with 422, changing nothing", async () => {
    const t = await createTenant();
    const u = await externalUser(t, { provider: "okta", external_id: "a", email: "a@example.com" });
    let err = expectError(await put(t, u.id, { external_id: "b" }), 422, "VALIDATION_FAILED");
    expect(err.message).toBe("external_id cannot be changed");
    expect(err.details.validation_errors).toEqual(["external_id: cannot be changed"]);
    for (const [body, line] of [
      [{ email: "nope" }, /^email: /],
      [{ is_active: 0 }, "is_active: must be boolean, got number"],
      [{ user_id: crypto.randomUUID() }, "user_id: is not allowed"],
      [{ email: "a\u0000@example.com" }, "email: must not contain NUL characters or unpaired surrogates"],
    ] as const) {
      err = expectError(await put(t, u.id, body), 422, "VALIDATION_FAILED");
      expect(err.details.validation_errors).toContainEqual(typeof line === "string" ? line : expect.stringMatching(line));
    }
    expect(await mappingRows(t.tenantId)).toEqual([{ provider: "okta", external_id: "a", email: "a@example.com", user_id: u.user_id, is_active: true }]);
  });

  it("404 for unknown ids and another tenant's external user (unchanged); 403 without access:update (unchanged)", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const theirs = await externalUser(other, { provider: "okta", external_id: "a", email: "t@example.com" });
    expectError(await put(t, crypto.randomUUID(), { is_active: false }), 404, "NOT_FOUND");
    expectError(await put(t, theirs.id, { is_active: false, email: "x@example.com" }), 404, "NOT_FOUND");
    expect(await mappingRows(other.tenantId)).toEqual([
      { provider: "okta", external_id: "a", email: "t@example.com", user_id: theirs.user_id, is_active: true },
    ]);
    const mine = await externalUser(t, { provider: "okta", external_id: "a" });
    expectError(await put(await restricted(t, ["access:create", "access:read"]), mine.id, { is_active: false }), 403, "FORBIDDEN");
    expect((await mappingRows(t.tenantId))[0].is_active).toBe(true);
  });
});
