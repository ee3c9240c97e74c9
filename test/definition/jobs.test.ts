// /definition/jobs through the gateway, and how workflow saves bind their
// reference steps to published jobs.
import { describe, expect, it } from "vitest";
import { call, createTenant, expectError, systemQuery, type TenantCreds } from "../support/api";
import { roleToken } from "../access/fixture";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

const jobDoc = (x: number) => ({ actions: [{ name: "pipe", config: { value: x } }] });

const trigger = [{ id: "manual", webhook: { methods: ["POST"] } }];

/** An inline step `a` and a reference step `r` to the job `enrich`. */
const withReference = (jobName = "enrich") => ({
  jobs: [
    { id: "a", actions: [{ name: "pipe", config: {} }] },
    { id: "r", name: jobName, dependencies: ["a"] },
  ],
  triggers: trigger,
});

async function publish(t: TenantCreds, name: string, definition_json: unknown) {
  const res = await call("POST", "/definition/jobs", { auth: t.auth, body: { name, definition_json } });
  expect(res.status, res.text).toBe(201);
  return res.json.data;
}

async function footprint(tenantId: string) {
  return {
    jobs: await systemQuery("SELECT id, name, version, definition_json FROM job_definitions WHERE tenant_id = $1 ORDER BY id", [tenantId]),
    definitions: await systemQuery("SELECT id, version, definition_json, updated_at FROM workflow_definitions WHERE tenant_id = $1 ORDER BY id", [tenantId]),
    versions: await systemQuery("SELECT workflow_id, version, job_refs FROM workflow_versions WHERE tenant_id = $1 ORDER BY workflow_id, version", [tenantId]),
  };
}

async function refused(t: TenantCreds, send: () => Promise<{ status: number; json: any }>, status: number, code: string) {
  const before = await footprint(t.tenantId);
  const err = expectError(await send(), status, code);
  expect(await footprint(t.tenantId)).toEqual(before);
  return err;
}

describe("POST /definition/jobs", () => {
  it("publishes version 1, then version 2 under a new id; another name starts at 1", async () => {
    const t = await createTenant();
    const v1 = await publish(t, "enrich", jobDoc(1));
    expect(Object.keys(v1)).toEqual(["id", "name", "version", "status", "definition_json", "created_at"]);
    expect(v1).toMatchObject({ name: "enrich", version: 1, status: "active", definition_json: jobDoc(1) });
    expect(v1.id).toMatch(UUID);
    const v2 = await publish(t, "enrich", jobDoc(2));
    expect(v2).toMatchObject({ name: "enrich", version: 2, status: "active", definition_json: jobDoc(2) });
    expect(v2.id).not.toBe(v1.id);
    expect((await publish(t, "score", jobDoc(3))).version).toBe(1);
    // Another tenant's versions are its own.
    expect((await publish(await createTenant(), "enrich", jobDoc(9))).version).toBe(1);

    expect((await call("GET", `/definition/jobs/${v1.id}`, { auth: t.auth })).json.data).toEqual(v1);
    expect((await call("GET", `/definition/jobs/${v2.id}`, { auth: t.auth })).json.data).toEqual(v2);
  });

  it("gives concurrent publishes of one name distinct consecutive versions", async () => {
    const t = await createTenant();
    const all = await Promise.all(Array.from({ length: 6 }, (_, i) => publish(t, "race", jobDoc(i))));
    expect(all.map((j) => j.version).sort()).toEqual([1, 2, 3, 4, 5, 6]);
    expect(new Set(all.map((j) => j.id)).size).toBe(6);
  });

  const badBodies: [string, unknown, string][] = [
    ["no actions", { name: "j", definition_json: {} }, "definition_json"],
    ["a string document", { name: "j", definition_json: "actions: []" }, "definition_json: must be object, got string"],
    ["no document", { name: "j" }, "definition_json: is required"],
    ["a name with a space", { name: "my job", definition_json: jobDoc(1) }, "name: must match the pattern"],
    ["a numeric name", { name: 1, definition_json: jobDoc(1) }, "name: must be string, got number"],
    ["a NUL in the name", { name: "j\u0000", definition_json: jobDoc(1) }, "name: must not contain NUL characters or unpaired surrogates"],
    [
      "a lone surrogate in the document",
      { name: "j", definition_json: { actions: [{ name: "pipe", config: { s: "\udc00" } }] } },
      "definition_json.actions[0].config.s: must not contain NUL",
    ],
    ["an unknown field", { name: "j", definition_json: jobDoc(1), version: 2 }, "version: is not allowed"],
  ];
  it.each(badBodies)("refuses %s with 422, storing nothing", async (_, body, line) => {
    const t = await createTenant();
    const err = await refused(t, () => call("POST", "/definition/jobs", { auth: t.auth, body }), 422, "VALIDATION_FAILED");
    expect(err.details.errors.join("\n")).toContain(line);
  });

  it("needs definition:create", async () => {
    const t = await createTenant();
    const reader = await roleToken(t.auth, ["definition:read"]);
    const err = await refused(
      t,
      () => call("POST", "/definition/jobs", { auth: reader.auth, body: { name: "j", definition_json: jobDoc(1) } }),
      403,
      "FORBIDDEN",
    );
    expect(err.details).toMatchObject({ resource: "definition", action: "create" });
    expect((await call("GET", "/definition/jobs", { auth: reader.auth })).status).toBe(200);
  });
});

describe("GET /definition/jobs", () => {
  it("lists by name, newest version first, and filters by name", async () => {
    const t = await createTenant();
    const e1 = await publish(t, "enrich", jobDoc(1));
    const e2 = await publish(t, "enrich", jobDoc(2));
    const s1 = await publish(t, "score", jobDoc(3));
    const all = await call("GET", "/definition/jobs", { auth: t.auth });
    expect(all.json.data.map((j: { id: string }) => j.id)).toEqual([e2.id, e1.id, s1.id]);
    expect(all.json.pagination).toEqual({ page: 1, limit: 100, total: 3, total_pages: 1 });
    const enrich = await call("GET", "/definition/jobs?name=enrich", { auth: t.auth });
    expect(enrich.json.data).toEqual([e2, e1]);
    expect(enrich.json.pagination.total).toBe(2);
    const paged = await call("GET", "/definition/jobs?name=enrich&limit=1&page=2", { auth: t.auth });
    expect(paged.json.data).toEqual([e1]);
    expect((await call("GET", "/definition/jobs?name=nope", { auth: t.auth })).json.data).toEqual([]);
  });

  it("answers 404 for an unknown id and another tenant's, 422 for a non-uuid", async () => {
    const t = await createTenant();
    const theirs = await publish(await createTenant(), "enrich", jobDoc(1));
    expectError(await call("GET", `/definition/jobs/${crypto.randomUUID()}`, { auth: t.auth }), 404, "NOT_FOUND");
    expectError(await call("GET", `/definition/jobs/${theirs.id}`, { auth: t.auth }), 404, "NOT_FOUND");
    expectError(await call("GET", "/definition/jobs/enrich", { auth: t.auth }), 422, "VALIDATION_FAILED");
    expect((await call("GET", `/definition/jobs?name=enrich`, { auth: t.auth })).json.data).toEqual([]);
  });
});

describe("reference steps bind at save", () => {
  it("binds to the latest version, keeps that binding until the next save, and rebinds then", async () => {
    const t = await createTenant();
    const v1 = await publish(t, "enrich", jobDoc(1));
    const res = await call("POST", "/definition/workflows", { auth: t.auth, body: { name: "w", definition_json: withReference() } });
    expect(res.status, res.text).toBe(201);
    const wf = res.json.data;
    expect(wf.job_refs).toEqual({ r: v1.id });

    const v2 = await publish(t, "enrich", jobDoc(2));
    expect((await call("GET", `/definition/workflows/${wf.id}`, { auth: t.auth })).json.data.job_refs).toEqual({ r: v1.id });

    const saved = await call("PUT", `/definition/workflows/${wf.id}`, { auth: t.auth, body: { name: "w", definition_json: withReference() } });
    expect(saved.json.data).toMatchObject({ version: 2, job_refs: { r: v2.id } });
    expect((await call("GET", `/definition/workflows/${wf.id}`, { auth: t.auth })).json.data.job_refs).toEqual({ r: v2.id });
    const versions = await systemQuery("SELECT version, job_refs FROM workflow_versions WHERE workflow_id = $1 ORDER BY version", [wf.id]);
    expect(versions).toEqual([
      { version: 1, job_refs: { r: v1.id } },
      { version: 2, job_refs: { r: v2.id } },
    ]);
  });

  it("binds each reference step of a YAML definition, two steps may share one job", async () => {
    const t = await createTenant();
    const job = await publish(t, "enrich", jobDoc(1));
    const yaml =
      "jobs:\n  - id: one\n    name: enrich\n  - id: two\n    name: enrich\n    dependencies: [one]\ntriggers:\n  - id: manual\n    webhook:\n      methods: [POST]\n";
    const res = await call("POST", "/definition/workflows", { auth: t.auth, body: { name: "y", source_yaml: yaml } });
    expect(res.status, res.text).toBe(201);
    expect(res.json.data.job_refs).toEqual({ one: job.id, two: job.id });
  });

  it("saves a name with no published job, leaving its step unbound", async () => {
    const t = await createTenant();
    const res = await call("POST", "/definition/workflows", { auth: t.auth, body: { name: "w", definition_json: withReference("nope") } });
    expect(res.status, res.text).toBe(201);
    expect(res.json.data.job_refs).toEqual({});
    const check = await call("POST", "/definition/workflows/validate", { auth: t.auth, body: { definition_json: withReference("nope") } });
    expect(check.json.data).toEqual({ valid: true, errors: [] });
  });

  it("validates a malformed document's steps, saying nothing of bindings", async () => {
    const t = await createTenant();
    for (const jobs of ["r", [null, 5, { id: "r", name: 3 }, { name: "enrich" }]]) {
      const res = await call("POST", "/definition/workflows/validate", { auth: t.auth, body: { definition_json: { jobs, triggers: trigger } } });
      expect(res.status, res.text).toBe(200);
      expect(res.json.data.valid).toBe(false);
      expect(res.json.data.errors.join("\n")).not.toContain("no published job");
    }
  });

  it("unbinds a step whose update names an unpublished job", async () => {
    const t = await createTenant();
    const job = await publish(t, "enrich", jobDoc(1));
    const wf = (await call("POST", "/definition/workflows", { auth: t.auth, body: { name: "w", definition_json: withReference() } })).json.data;
    expect(wf.job_refs).toEqual({ r: job.id });
    const res = await call("PUT", `/definition/workflows/${wf.id}`, { auth: t.auth, body: { name: "w", definition_json: withReference("gone") } });
    expect(res.status, res.text).toBe(200);
    expect(res.json.data).toMatchObject({ version: 2, job_refs: {} });
  });

  it("never binds another tenant's job of that name", async () => {
    const t = await createTenant();
    await publish(await createTenant(), "enrich", jobDoc(1));
    const res = await call("POST", "/definition/workflows", { auth: t.auth, body: { name: "w", definition_json: withReference() } });
    expect(res.status, res.text).toBe(201);
    expect(res.json.data.job_refs).toEqual({});
  });
});
