// The route declaration: typed path params checked before the handler, an
// optional body, a body limit of its own, and the request context's logger.
import { env } from "cloudflare:test";
import { afterEach, describe, expect, it, vi } from "vitest";
import { declaredBodyLimit } from "../../src/app";
import { Database } from "../../src/db/client";
import { readConfig } from "../../src/gateway/env";
import { RequestContext } from "../../src/gateway/request-context";
import { createLogger } from "../../src/lib/logger";
import { uuidSchema } from "../../src/lib/schemas";
import { call, createTenant, expectError } from "../support/api";
import { createType } from "../support/entities";

const MiB = 1024 * 1024;

async function openApi() {
  return (await call("GET", "/openapi.json")).json;
}

describe("declared path params", () => {
  it("checks every declared param before the handler, one line each, with 422 VALIDATION_FAILED", async () => {
    const { auth } = await createTenant();
    const err = expectError(await call("GET", "/entity/entities/not-a-uuid/artifacts/also-not", { auth }), 422, "VALIDATION_FAILED");
    expect(err.message).toBe("Path parameter failed validation");
    expect(err.details.validation_errors).toEqual(["id: must be a UUID", "artifactId: must be a UUID"]);
  });

  it("checks a capability route's param before its link", async () => {
    const err = expectError(await call("GET", "/entity/downloads/nope?tenant=x&expires=1&signature=y"), 422, "VALIDATION_FAILED");
    expect(err.details.validation_errors).toEqual(["versionId: must be a UUID"]);
  });

  it("documents each param with its declared schema", async () => {
    const doc = await openApi();
    const params = doc.paths["/entity/entities/{id}/artifacts/{artifactId}"].get.parameters.filter((p: { in: string }) => p.in === "path");
    expect(params).toEqual([
      { name: "id", in: "path", required: true, schema: uuidSchema, example: expect.stringMatching(new RegExp(uuidSchema.pattern)) },
      { name: "artifactId", in: "path", required: true, schema: uuidSchema, example: expect.stringMatching(new RegExp(uuidSchema.pattern)) },
    ]);
  });
});

describe("optional bodies", () => {
  it("are documented as not required, and required bodies stay required", async () => {
    const doc = await openApi();
    expect(doc.paths["/entity/entities/{id}/artifacts/{artifactId}/download-url"].post.requestBody.required).toBe(false);
    expect(doc.paths["/entity/entities/{id}/artifacts/{artifactId}/confirm"].post.requestBody.required).toBe(false);
    expect(doc.paths["/entity/temp-files/{id}/download-url"].post.requestBody.required).toBe(false);
    expect(doc.paths["/entity/entities"].post.requestBody.required).toBe(true);
  });

  it("read an absent body as {} and still check a sent one against the schema", async () => {
    const { auth } = await createTenant();
    const created = await call("POST", "/entity/temp-files", { auth, rawBody: "abc", headers: { "X-Temp-File-Name": "a.txt", "Content-Type": "text/plain" } });
    const id = created.json.data.id;
    const bare = await call("POST", `/entity/temp-files/${id}/download-url`, { auth });
    expect(bare.status).toBe(200);
    expect(bare.json.data.url).toContain(`/entity/temp-files/${id}/download`);
    const err = expectError(await call("POST", `/entity/temp-files/${id}/download-url`, { auth, body: { ttl: 0 } }), 422, "VALIDATION_FAILED");
    expect(err.details.validation_errors).toEqual(["ttl: 0 is less than 1"]);
  });
});

describe("per-route body limits", () => {
  it("come from the declarations, by method and path", () => {
    expect(declaredBodyLimit("POST", "/entity/entities/upsert")).toBe(32 * MiB);
    expect(declaredBodyLimit("POST", "/entity/entities/import")).toBe(32 * MiB);
    expect(declaredBodyLimit("POST", "/entity/temp-files")).toBe(26 * MiB);
    expect(declaredBodyLimit("PUT", `/entity/uploads/${crypto.randomUUID()}`)).toBe(25 * MiB);
    expect(declaredBodyLimit("POST", "/entity/entities")).toBeUndefined();
    expect(declaredBodyLimit("PUT", "/entity/entities/upsert")).toBeUndefined();
  });

  it("refuse a declared Content-Length over the route's limit before authentication", async () => {
    const over = (bytes: number) => ({ auth: null, rawBody: "x", headers: { "Content-Length": String(bytes) } });
    expect(expectError(await call("POST", "/entity/entities/upsert", over(32 * MiB + 1)), 413, "PAYLOAD_TOO_LARGE").details.limit).toBe(32 * MiB);
    expect(expectError(await call("POST", "/entity/entities", over(MiB + 1)), 413, "PAYLOAD_TOO_LARGE").details.limit).toBe(MiB);
    // Under the route's own limit the request goes on to authentication.
    expectError(await call("POST", "/entity/entities/upsert", { auth: null, body: { data: [] } }), 401, "UNAUTHORIZED");
  });
});

describe("logger", () => {
  afterEach(() => vi.restoreAllMocks());

  function lines(spy: { mock: { calls: unknown[][] } }) {
    return spy.mock.calls.map(([line]) => JSON.parse(String(line)));
  }

  it("writes one JSON object per line, base fields on every line, errors to console.error", () => {
    const out = vi.spyOn(console, "log").mockImplementation(() => {});
    const err = vi.spyOn(console, "error").mockImplementation(() => {});
    const log = createLogger({ request_id: "r-1" }).with({ tenant: "t-1" });
    log.info("hello", { n: 1 });
    log.error("broken", { reason: "x" });
    expect(lines(out)).toEqual([{ level: "info", msg: "hello", request_id: "r-1", tenant: "t-1", n: 1 }]);
    expect(lines(err)).toEqual([{ level: "error", msg: "broken", request_id: "r-1", tenant: "t-1", reason: "x" }]);
  });

  it("a request context's lines carry its request id, and its tenant once it has one", async () => {
    const out = vi.spyOn(console, "log").mockImplementation(() => {});
    const database = new Database(env.DATABASE_URL, env.NEON_WS_PROXY);
    const ctx = new RequestContext("req-7", readConfig(env), env, database, "http://platform.test/x", () => {});
    const tenantId = crypto.randomUUID();
    ctx.log.info("before auth");
    ctx.forTenant(tenantId).log.info("after auth", { step: 2 });
    expect(lines(out)).toEqual([
      { level: "info", msg: "before auth", request_id: "req-7", tenant: null },
      { level: "info", msg: "after auth", request_id: "req-7", tenant: tenantId, step: 2 },
    ]);
    expect(ctx.forTenant(tenantId).tenant.tenantId).toBe(tenantId);
    expect(() => ctx.tenant).toThrow(/No tenant/);
    await database.close();
  });
});

describe("inferred input types", () => {
  it("an entity type created and patched through the inferred body types", async () => {
    const { auth } = await createTenant();
    const type = await createType(auth, {
      name: "Gadget",
      schema: { type: "object", properties: { sku: { type: "string" } } },
      config: { identifier_key: ["sku"] },
    });
    const patched = await call("PATCH", `/entity/entity-types/${type.id}`, { auth, body: { config: { name_search: true } } });
    expect(patched.status).toBe(200);
    expect(patched.json.data.config.name_search).toBe(true);
  });
});

describe("exactly-one-of rules in the schemas", () => {
  it("name what to add when neither is sent and what to drop when both are", async () => {
    const { auth } = await createTenant();
    const neither = expectError(await call("POST", "/entity/entities", { auth, body: { name: "n", attributes: {} } }), 422, "VALIDATION_FAILED");
    expect(neither.details.validation_errors).toEqual(["(root): does not match any allowed shape (type_name is required | type_id is required)"]);
    const both = expectError(
      await call("POST", "/entity/entities", { auth, body: { type_name: "T", type_id: crypto.randomUUID(), name: "n", attributes: {} } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(both.details.validation_errors).toEqual(["(root): does not match any allowed shape (type_id: is not allowed | type_name: is not allowed)"]);
    const link = expectError(
      await call("POST", "/entity/relationships", { auth, body: { from_entity_id: crypto.randomUUID(), to_entity_id: crypto.randomUUID() } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(link.details.validation_errors).toEqual(["(root): does not match any allowed shape (rule_id is required | rule_name is required)"]);
  });

  it("hold for entity-type schemas, inline relationships and the import config", async () => {
    const { auth } = await createTenant();
    const config = { identifier_key: ["k"] };
    const neither = expectError(await call("POST", "/entity/entity-types", { auth, body: { name: "N", config } }), 422, "VALIDATION_FAILED");
    expect(neither.details.validation_errors).toEqual(["(root): does not match any allowed shape (schema is required | schema_name is required)"]);
    const type = await call("POST", "/entity/entity-types", { auth, body: { name: "T", schema: { type: "object" }, status: "active", config } });
    expect(type.status).toBe(201);
    const both = expectError(
      await call("PATCH", `/entity/entity-types/${type.json.data.id}`, { auth, body: { schema: { type: "object" }, schema_name: "s" } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(both.details.validation_errors).toEqual(["schema_name: is not allowed"]);
    const rel = { rule_name: "r", rule_id: crypto.randomUUID(), target_entity_id: crypto.randomUUID(), target_type_name: "T" };
    const upsert = expectError(
      await call("POST", "/entity/entities/upsert", { auth, body: { type_name: "T", data: [{ name: "a", attributes: { k: "1" }, relationships: [rel] }] } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(upsert.details.validation_errors).toEqual([
      "data[0].relationships[0]: does not match any allowed shape (rule_id: is not allowed | rule_name: is not allowed); does not match any allowed shape (target_type_name: is not allowed | target_identifier is required; target_entity_id: is not allowed)",
    ]);
    const header = encodeURIComponent(JSON.stringify({ entity_type_id: type.json.data.id, type_name: "T" }));
    const csv = expectError(
      await call("POST", "/entity/entities/import", { auth, rawBody: "k\n1\n", headers: { "Content-Type": "text/csv", "X-Import-Config": header } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(csv.details.validation_errors).toHaveLength(1);
    expect(csv.details.validation_errors[0]).toMatch(
      /^X-Import-Config: does not match any allowed shape \(.*type_name: is not allowed.*\| .*entity_type_id: is not allowed.*\)$/,
    );
  });
});

describe("operation names", () => {
  it("name each operation once: its operationId, unique, in camelCase", async () => {
    const res = await call("GET", "/openapi.json");
    const ids = Object.entries(res.json.paths as Record<string, Record<string, { operationId: string }>>).flatMap(([path, ops]) =>
      Object.entries(ops).map(([method, op]) => ({ path, method, id: op.operationId })),
    );
    expect(ids.length).toBeGreaterThan(100);
    expect(ids.filter((o) => !/^[a-z][A-Za-z]*$/.test(o.id))).toEqual([]);
    expect(new Set(ids.map((o) => o.id)).size).toBe(ids.length);
    expect(ids.find((o) => o.path === "/entity/entity-types" && o.method === "post")?.id).toBe("createEntityType");
    expect(ids.find((o) => o.path === "/workflows/hooks/{triggerId}" && o.method === "put")?.id).toBe("callWebhookPut");
  });
});
