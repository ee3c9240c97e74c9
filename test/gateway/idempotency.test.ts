// Idempotency-Key on POST /access/roles (docs/api.md, Idempotency keys): a repeat within the
// 24-hour window returns the first response verbatim; keys are per identity.
import { describe, expect, it } from "vitest";
import { basic, call, createTenant, expectError, systemQuery, type TenantCreds } from "../support/api";
import { sha256Hex } from "../../src/lib/crypto";

const newKey = () => `key-${crypto.randomUUID()}`;

function postRole(auth: string, body: unknown, key?: string) {
  return call("POST", "/access/roles", { auth, body, headers: key === undefined ? {} : { "Idempotency-Key": key } });
}

async function rolesNamed(tenantId: string, name: string) {
  return systemQuery<{ id: string }>("SELECT id FROM roles WHERE tenant_id = $1 AND name = $2", [tenantId, name]);
}

async function mint(creds: TenantCreds) {
  const res = await call("POST", "/access/api-tokens", { auth: creds.auth, body: { name: `tok-${crypto.randomUUID().slice(0, 6)}` } });
  expect(res.status).toBe(201);
  return { id: res.json.data.id as string, auth: basic(res.json.data.client_id, res.json.data.client_secret) };
}

describe("Idempotency-Key replays", () => {
  it("a repeat with the same key and body returns the first response verbatim, marked replayed, and creates one role", async () => {
    const t = await createTenant();
    const key = newKey();
    const body = { name: "once", permissions: ["entity:read"] };

    const first = await postRole(t.auth, body, key);
    expect(first.status).toBe(201);
    expect(first.headers.get("Idempotent-Replayed")).toBeNull();

    const second = await postRole(t.auth, body, key);
    expect(second.status).toBe(201);
    expect(second.text).toBe(first.text);
    expect(second.json.data.id).toBe(first.json.data.id);
    expect(second.json.data.created_at).toBe(first.json.data.created_at);
    expect(second.headers.get("Idempotent-Replayed")).toBe("true");
    expect(second.headers.get("Content-Type")).toBe(first.headers.get("Content-Type"));

    const third = await postRole(t.auth, body, key);
    expect(third.text).toBe(first.text);
    expect(third.headers.get("Idempotent-Replayed")).toBe("true");

    expect(await rolesNamed(t.tenantId, "once")).toEqual([{ id: first.json.data.id }]);
  });

  it("without the header, a repeat is a new request (409 for the taken name)", async () => {
    const t = await createTenant();
    const body = { name: "plain", permissions: [] };
    expect((await postRole(t.auth, body)).status).toBe(201);
    const again = await postRole(t.auth, body);
    expectError(again, 409, "CONFLICT");
    expect(again.headers.get("Idempotent-Replayed")).toBeNull();
  });

  it("treats a re-serialised but different body as a different request", async () => {
    const t = await createTenant();
    const key = newKey();
    expect((await postRole(t.auth, { name: "order", permissions: ["entity:read"] }, key)).status).toBe(201);
    const reordered = await call("POST", "/access/roles", {
      auth: t.auth,
      rawBody: JSON.stringify({ permissions: ["entity:read"], name: "order" }),
      headers: { "Content-Type": "application/json", "Idempotency-Key": key },
    });
    const err = expectError(reordered, 422, "UNPROCESSABLE_ENTITY");
    expect(err.details.code).toBe("IDEMPOTENCY_KEY_REUSED");
  });

  it("the same key with a different body is 422 UNPROCESSABLE_ENTITY (IDEMPOTENCY_KEY_REUSED), and nothing is created", async () => {
    const t = await createTenant();
    const key = newKey();
    const first = await postRole(t.auth, { name: "first", permissions: [] }, key);
    expect(first.status).toBe(201);

    const res = await postRole(t.auth, { name: "second", permissions: [] }, key);
    const err = expectError(res, 422, "UNPROCESSABLE_ENTITY");
    expect(err.details.code).toBe("IDEMPOTENCY_KEY_REUSED");
    expect(res.headers.get("Idempotent-Replayed")).toBeNull();
    expect(await rolesNamed(t.tenantId, "second")).toEqual([]);

    // The original answer is still the one replayed.
    const replay = await postRole(t.auth, { name: "first", permissions: [] }, key);
    expect(replay.text).toBe(first.text);
  });

  it("the same key on another endpoint is a different request (422 IDEMPOTENCY_KEY_REUSED)", async () => {
    const t = await createTenant();
    const key = newKey();
    expect((await postRole(t.auth, { name: "k", permissions: [] }, key)).status).toBe(201);
    const other = await call("POST", "/access/roles?x=1", { auth: t.auth, body: { name: "k", permissions: [] }, headers: { "Idempotency-Key": key } });
    expect(expectError(other, 422, "UNPROCESSABLE_ENTITY").details.code).toBe("IDEMPOTENCY_KEY_REUSED");
  });

  it("keys are per identity: another token in the same tenant may use the same key independently", async () => {
    const t = await createTenant();
    const other = await mint(t);
    const key = newKey();
    const mine = await postRole(t.auth, { name: "mine", permissions: [] }, key);
    expect(mine.status).toBe(201);

    const theirs = await postRole(other.auth, { name: "theirs", permissions: [] }, key);
    expect(theirs.status).toBe(201);
    expect(theirs.headers.get("Idempotent-Replayed")).toBeNull();
    expect(theirs.json.data.id).not.toBe(mine.json.data.id);
    expect(await rolesNamed(t.tenantId, "theirs")).toEqual([{ id: theirs.json.data.id }]);

    // Each identity replays its own answer.
    expect((await postRole(other.auth, { name: "theirs", permissions: [] }, key)).text).toBe(theirs.text);
    expect((await postRole(t.auth, { name: "mine", permissions: [] }, key)).text).toBe(mine.text);

    const records = await systemQuery("SELECT identity FROM idempotency_records WHERE tenant_id = $1 AND key = $2 ORDER BY identity", [t.tenantId, key]);
    expect(records.map((r) => r.identity).sort()).toEqual([`token:${t.tokenId}`, `token:${other.id}`].sort());
  });

  it("the same key in another tenant is independent", async () => {
    const a = await createTenant();
    const b = await createTenant();
    const key = newKey();
    const body = { name: "same", permissions: [] };
    const ra = await postRole(a.auth, body, key);
    const rb = await postRole(b.auth, body, key);
    expect(ra.status).toBe(201);
    expect(rb.status).toBe(201);
    expect(rb.headers.get("Idempotent-Replayed")).toBeNull();
    expect(rb.json.data.id).not.toBe(ra.json.data.id);
  });

  it("a Bearer token exchanged from a PAT shares that PAT's identity and keys", async () => {
    const t = await createTenant();
    const key = newKey();
    const body = { name: "shared-identity", permissions: [] };
    const first = await postRole(t.auth, body, key);
    const tok = await call("POST", "/auth/token", { body: { grant_type: "client_credentials", client_id: t.clientId, client_secret: t.clientSecret } });
    const viaJwt = await postRole(`Bearer ${tok.json.access_token}`, body, key);
    expect(viaJwt.status).toBe(201);
    expect(viaJwt.headers.get("Idempotent-Replayed")).toBe("true");
    expect(viaJwt.text).toBe(first.text);
  });
});

describe("what is not stored", () => {
  it("a first request that failed validation (422) is not stored: a corrected retry with the same key succeeds", async () => {
    const t = await createTenant();
    const key = newKey();
    const bad = await postRole(t.auth, { name: "fixed", permissions: ["Entity:read"] }, key);
    expectError(bad, 422, "VALIDATION_FAILED");
    expect(await systemQuery("SELECT 1 FROM idempotency_records WHERE tenant_id = $1 AND key = $2", [t.tenantId, key])).toEqual([]);

    const fixed = await postRole(t.auth, { name: "fixed", permissions: ["entity:read"] }, key);
    expect(fixed.status).toBe(201);
    expect(fixed.headers.get("Idempotent-Replayed")).toBeNull();
    expect(await rolesNamed(t.tenantId, "fixed")).toEqual([{ id: fixed.json.data.id }]);
  });

  it("a first request refused with 409 is not stored either", async () => {
    const t = await createTenant();
    const key = newKey();
    expectError(await postRole(t.auth, { name: "admin", permissions: [] }, key), 409, "CONFLICT");
    const retry = await postRole(t.auth, { name: "not-admin", permissions: [] }, key);
    expect(retry.status).toBe(201);
  });

  it("a request refused for permission is not stored", async () => {
    const t = await createTenant();
    expect((await postRole(t.auth, { name: "reader", permissions: ["entity:read"] })).status).toBe(201);
    const minted = await call("POST", "/access/api-tokens", { auth: t.auth, body: { name: "reader", role_names: ["reader"] } });
    const reader = basic(minted.json.data.client_id, minted.json.data.client_secret);
    const key = newKey();
    expectError(await postRole(reader, { name: "x", permissions: [] }, key), 403, "FORBIDDEN");
    expect(await systemQuery("SELECT 1 FROM idempotency_records WHERE tenant_id = $1 AND key = $2", [t.tenantId, key])).toEqual([]);
  });

  it("stores the answer of a success, scoped to the tenant and identity", async () => {
    const t = await createTenant();
    const key = newKey();
    const res = await postRole(t.auth, { name: "stored", permissions: [] }, key);
    const rows = await systemQuery("SELECT identity, status, body FROM idempotency_records WHERE tenant_id = $1 AND key = $2", [t.tenantId, key]);
    expect(rows).toEqual([{ identity: `token:${t.tokenId}`, status: 201, body: res.text }]);
  });
});

describe("the 24-hour window", () => {
  it("a record older than 24 hours is not replayed: the request runs again", async () => {
    const t = await createTenant();
    const key = newKey();
    const body = { name: "aged", permissions: [] };
    const first = await postRole(t.auth, body, key);
    expect(first.status).toBe(201);

    await systemQuery("UPDATE idempotency_records SET created_at = now() - interval '25 hours' WHERE tenant_id = $1 AND key = $2", [t.tenantId, key]);

    // Run again, not replayed: the name is now taken.
    const again = await postRole(t.auth, body, key);
    expectError(again, 409, "CONFLICT");
    expect(again.headers.get("Idempotent-Replayed")).toBeNull();
    expect(await rolesNamed(t.tenantId, "aged")).toEqual([{ id: first.json.data.id }]);
  });

  it("after 24 hours the key may carry a different request", async () => {
    const t = await createTenant();
    const key = newKey();
    expect((await postRole(t.auth, { name: "old", permissions: [] }, key)).status).toBe(201);
    await systemQuery("UPDATE idempotency_records SET created_at = now() - interval '25 hours' WHERE tenant_id = $1 AND key = $2", [t.tenantId, key]);

    const fresh = await postRole(t.auth, { name: "new", permissions: [] }, key);
    expect(fresh.status).toBe(201);
    expect(fresh.headers.get("Idempotent-Replayed")).toBeNull();
    // And the fresh answer is what is replayed from now on.
    const replay = await postRole(t.auth, { name: "new", permissions: [] }, key);
    expect(replay.headers.get("Idempotent-Replayed")).toBe("true");
    expect(replay.text).toBe(fresh.text);
  });

  it("a record just inside 24 hours is still replayed", async () => {
    const t = await createTenant();
    const key = newKey();
    const body = { name: "young", permissions: [] };
    const first = await postRole(t.auth, body, key);
    await systemQuery("UPDATE idempotency_records SET created_at = now() - interval '23 hours 59 minutes' WHERE tenant_id = $1 AND key = $2", [
      t.tenantId,
      key,
    ]);
    const again = await postRole(t.auth, body, key);
    expect(again.status).toBe(201);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.text).toBe(first.text);
  });
});

describe("requests still in progress", () => {
  async function claim(t: TenantCreds, key: string, body: unknown, age: string) {
    const hash = await sha256Hex(`POST /access/roles\n${JSON.stringify(body)}`);
    await systemQuery(`INSERT INTO idempotency_records (tenant_id, identity, key, request_hash, created_at) VALUES ($1, $2, $3, $4, now() - $5::interval)`, [
      t.tenantId,
      `token:${t.tokenId}`,
      key,
      hash,
      age,
    ]);
  }

  it("a repeat while the first is still running is 409 CONFLICT (IDEMPOTENCY_IN_PROGRESS)", async () => {
    const t = await createTenant();
    const key = newKey();
    const body = { name: "running", permissions: [] };
    await claim(t, key, body, "10 seconds");
    const res = await postRole(t.auth, body, key);
    expect(expectError(res, 409, "CONFLICT").details.code).toBe("IDEMPOTENCY_IN_PROGRESS");
    expect(await rolesNamed(t.tenantId, "running")).toEqual([]);
  });

  it("a claim abandoned for more than five minutes is taken over", async () => {
    const t = await createTenant();
    const key = newKey();
    const body = { name: "abandoned", permissions: [] };
    await claim(t, key, body, "6 minutes");
    const res = await postRole(t.auth, body, key);
    expect(res.status).toBe(201);
    expect(res.headers.get("Idempotent-Replayed")).toBeNull();
  });
});

describe("the key itself", () => {
  it("an over-long key (256 characters) is 400 BAD_REQUEST and nothing is created", async () => {
    const t = await createTenant();
    const res = await postRole(t.auth, { name: "long-key", permissions: [] }, "k".repeat(256));
    expectError(res, 400, "BAD_REQUEST");
    expect(await rolesNamed(t.tenantId, "long-key")).toEqual([]);
  });

  it("a 255-character key is accepted and replayed", async () => {
    const t = await createTenant();
    const key = `${crypto.randomUUID()}${"k".repeat(255 - 36)}`;
    expect(key).toHaveLength(255);
    const body = { name: "max-key", permissions: [] };
    const first = await postRole(t.auth, body, key);
    expect(first.status).toBe(201);
    const again = await postRole(t.auth, body, key);
    expect(again.headers.get("Idempotent-Replayed")).toBe("true");
    expect(again.text).toBe(first.text);
  });

  it("a key with spaces or control characters is 400", async () => {
    const t = await createTenant();
    expectError(await postRole(t.auth, { name: "x", permissions: [] }, "has space"), 400, "BAD_REQUEST");
    expectError(await postRole(t.auth, { name: "x", permissions: [] }, "tab\there"), 400, "BAD_REQUEST");
    expect(await rolesNamed(t.tenantId, "x")).toEqual([]);
  });
});
