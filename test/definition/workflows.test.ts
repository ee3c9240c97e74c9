// /definition/workflows through the gateway: saves, versions, validation
// without saving, the language schema, and every refusal changing nothing.
import { describe, expect, it } from "vitest";
import { call, createTenant, expectError, systemQuery, type TenantCreds } from "../support/api";
import { roleToken } from "../access/fixture";
import { WORKFLOW_LANGUAGE_SCHEMA } from "../../src/definition/language/workflow-schema";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TIMESTAMP = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

const minimal = {
  jobs: [{ id: "a", actions: [{ name: "pipe", config: {} }] }],
  triggers: [{ id: "manual", webhook: { methods: ["POST"] } }],
};

const twoJobs = {
  jobs: [
    { id: "a", actions: [{ name: "pipe", config: {} }] },
    { id: "b", dependencies: ["a"], actions: [{ name: "pipe", config: { value: 1 } }] },
  ],
  triggers: [{ id: "manual", webhook: { methods: ["POST"] } }],
};

/** Comments, odd spacing and key order: the text must come back exactly as sent. */
const YAML = `# nightly import
jobs:
  - id: a      # the only step
    actions:
      - name: pipe
        config: {}
triggers:
    - id: manual
      webhook:
        methods: [POST]
`;

async function create(t: TenantCreds, body: Record<string, unknown>) {
  const res = await call("POST", "/definition/workflows", { auth: t.auth, body });
  expect(res.status, res.text).toBe(201);
  return res.json.data;
}

/** What a refused write must leave as it was: every row these routes write for the tenant. */
async function footprint(tenantId: string) {
  return {
    definitions: await systemQuery(
      "SELECT id, name, description, status, version, definition_json, source_yaml, updated_at FROM workflow_definitions WHERE tenant_id = $1 ORDER BY id",
      [tenantId],
    ),
    versions: await systemQuery(
      "SELECT workflow_id, version, definition_json, job_refs FROM workflow_versions WHERE tenant_id = $1 ORDER BY workflow_id, version",
      [tenantId],
    ),
  };
}

async function refused(t: TenantCreds, send: () => Promise<{ status: number; json: any }>, status: number, code: string) {
  const before = await footprint(t.tenantId);
  const err = expectError(await send(), status, code);
  expect(await footprint(t.tenantId)).toEqual(before);
  return err;
}

describe("POST /definition/workflows", () => {
  it("creates a draft at version 1 from definition_json, recorded as version 1 with no bindings", async () => {
    const t = await createTenant();
    const data = await create(t, { name: "Order sync", description: "Copies orders", definition_json: minimal });
    expect(Object.keys(data)).toEqual(["id", "name", "description", "status", "version", "definition_json", "job_refs", "created_at", "updated_at"]);
    expect(data).toMatchObject({ name: "Order sync", description: "Copies orders", status: "draft", version: 1, definition_json: minimal, job_refs: {} });
    expect(data.id).toMatch(UUID);
    expect(data.created_at).toMatch(TIMESTAMP);
    expect(data.updated_at).toBe(data.created_at);

    const got = await call("GET", `/definition/workflows/${data.id}`, { auth: t.auth });
    expect(got.status).toBe(200);
    expect(got.json.data).toEqual(data);
    const versions = await systemQuery("SELECT version, definition_json, job_refs FROM workflow_versions WHERE workflow_id = $1", [data.id]);
    expect(versions).toEqual([{ version: 1, definition_json: minimal, job_refs: {} }]);
  });

  it("answers description null when none is given", async () => {
    const t = await createTenant();
    expect((await create(t, { name: "w", definition_json: minimal })).description).toBeNull();
  });

  it("keeps source_yaml byte for byte and answers the document parsed from it", async () => {
    const t = await createTenant();
    const data = await create(t, { name: "from-yaml", source_yaml: YAML });
    expect(data.source_yaml).toBe(YAML);
    expect(data.definition_json).toEqual(minimal);
    expect(Object.keys(data)).toEqual([
      "id",
      "name",
      "description",
      "status",
      "version",
      "definition_json",
      "source_yaml",
      "job_refs",
      "created_at",
      "updated_at",
    ]);
    const got = await call("GET", `/definition/workflows/${data.id}`, { auth: t.auth });
    expect(got.json.data.source_yaml).toBe(YAML);
    const [row] = await systemQuery("SELECT source_yaml FROM workflow_definitions WHERE id = $1", [data.id]);
    expect(row.source_yaml).toBe(YAML);
  });

  it("refuses a taken name with 409 and lets another tenant use it", async () => {
    const t = await createTenant();
    await create(t, { name: "dup", definition_json: minimal });
    const err = await refused(
      t,
      () => call("POST", "/definition/workflows", { auth: t.auth, body: { name: "dup", definition_json: twoJobs } }),
      409,
      "CONFLICT",
    );
    expect(err.details.name).toBe("dup");
    const other = await createTenant();
    expect((await create(other, { name: "dup", definition_json: minimal })).version).toBe(1);
  });

  it("refuses an invalid definition with every problem as a path-prefixed line, storing nothing", async () => {
    const t = await createTenant();
    const bad = {
      jobs: [
        { id: "a", actions: [{ name: "pipe", config: {} }] },
        { id: "a", dependencies: ["ghost"], actions: [{ name: "pipe", config: {} }] },
      ],
      triggers: [{ id: "manual", webhook: { methods: ["POST"] } }],
    };
    const err = await refused(
      t,
      () => call("POST", "/definition/workflows", { auth: t.auth, body: { name: "bad", definition_json: bad } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(err.details.errors.length).toBeGreaterThanOrEqual(2);
    expect(err.details.errors.every((l: string) => l.startsWith("definition_json."))).toBe(true);
    expect(err.details.validation_errors).toEqual(err.details.errors);
  });

  it("refuses a secret reference with details.code SECRET_REF_IN_DEFINITION, from JSON and from YAML", async () => {
    const t = await createTenant();
    const withSecret = { ...minimal, jobs: [{ id: "a", actions: [{ name: "pipe", config: { token: "{{ secrets.tenant.API_KEY }}" } }] }] };
    const fromJson = await refused(
      t,
      () => call("POST", "/definition/workflows", { auth: t.auth, body: { name: "s", definition_json: withSecret } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(fromJson.details.code).toBe("SECRET_REF_IN_DEFINITION");
    const yaml = YAML.replace("config: {}", 'config: { token: "{{ secrets.tenant.API_KEY }}" }');
    const fromYaml = await refused(
      t,
      () => call("POST", "/definition/workflows", { auth: t.auth, body: { name: "s", source_yaml: yaml } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(fromYaml.details.code).toBe("SECRET_REF_IN_DEFINITION");
  });

  const badBodies: [string, unknown, string][] = [
    ["both documents", { name: "x", definition_json: minimal, source_yaml: YAML }, "definition_json"],
    ["neither document", { name: "x" }, "definition_json"],
    ["no name", { definition_json: minimal }, "name: is required"],
    ["a numeric name", { name: 7, definition_json: minimal }, "name: must be string, got number"],
    ["an empty name", { name: "", definition_json: minimal }, "name:"],
    ["a name with surrounding spaces", { name: " x ", definition_json: minimal }, "name: must match the pattern"],
    ["a string document", { name: "x", definition_json: "jobs: []" }, "definition_json: must be object, got string"],
    ["an array document", { name: "x", definition_json: [minimal] }, "definition_json: must be object, got array"],
    ["a numeric description", { name: "x", description: 1, definition_json: minimal }, "description: must be string, got number"],
    ["a YAML that is not text", { name: "x", source_yaml: { jobs: [] } }, "source_yaml"],
    ["an unknown field", { name: "x", definition_json: minimal, version: 3 }, "version: is not allowed"],
    ["a NUL in the name", { name: "a\u0000b", definition_json: minimal }, "name: must not contain NUL characters or unpaired surrogates"],
    ["a lone surrogate in the YAML", { name: "x", source_yaml: `${YAML}# \ud800\n` }, "source_yaml: must not contain NUL characters or unpaired surrogates"],
    [
      "a NUL inside the document",
      { name: "x", definition_json: { ...minimal, jobs: [{ id: "a\u0000", actions: [{ name: "pipe", config: {} }] }] } },
      "definition_json.jobs[0].id: must not contain NUL",
    ],
  ];
  it.each(badBodies)("refuses %s with 422, storing nothing", async (_, body, line) => {
    const t = await createTenant();
    const err = await refused(t, () => call("POST", "/definition/workflows", { auth: t.auth, body }), 422, "VALIDATION_FAILED");
    expect(err.details.errors.join("\n")).toContain(line);
  });

  it("refuses a YAML that cannot be parsed, naming line and column", async () => {
    const t = await createTenant();
    const err = await refused(
      t,
      () => call("POST", "/definition/workflows", { auth: t.auth, body: { name: "y", source_yaml: "jobs: [\n  - id: a\n" } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(err.details.errors[0]).toMatch(/^source_yaml: .*line \d+, column \d+/);
  });

  it("refuses a document nested past the depth limit and a body over 1 MiB, storing nothing", async () => {
    const t = await createTenant();
    let deep: unknown = {};
    for (let i = 0; i < 200; i++) deep = { d: deep };
    const tooDeep = { ...minimal, jobs: [{ id: "a", actions: [{ name: "pipe", config: deep }] }] };
    const err = await refused(
      t,
      () => call("POST", "/definition/workflows", { auth: t.auth, body: { name: "deep", definition_json: tooDeep } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(err.details.errors[0]).toContain("nests deeper than");
    const big = { ...minimal, jobs: [{ id: "a", actions: [{ name: "pipe", config: { blob: "x".repeat(1024 * 1024) } }] }] };
    await refused(t, () => call("POST", "/definition/workflows", { auth: t.auth, body: { name: "big", definition_json: big } }), 413, "PAYLOAD_TOO_LARGE");
  });
});

describe("PUT /definition/workflows/:id", () => {
  it("saves the next version each time, keeps the status and records every version", async () => {
    const t = await createTenant();
    const created = await create(t, { name: "w", source_yaml: YAML });
    const v2 = await call("PUT", `/definition/workflows/${created.id}`, {
      auth: t.auth,
      body: { name: "w2", description: "second", definition_json: twoJobs },
    });
    expect(v2.status, v2.text).toBe(200);
    expect(v2.json.data).toMatchObject({
      id: created.id,
      name: "w2",
      description: "second",
      status: "draft",
      version: 2,
      definition_json: twoJobs,
      created_at: created.created_at,
    });
    // Saved from JSON now: the YAML text is gone.
    expect(v2.json.data).not.toHaveProperty("source_yaml");
    expect(v2.json.data.updated_at > created.updated_at).toBe(true);

    const v3 = await call("PUT", `/definition/workflows/${created.id}`, { auth: t.auth, body: { name: "w2", source_yaml: YAML } });
    expect(v3.json.data).toMatchObject({ version: 3, description: null, source_yaml: YAML, definition_json: minimal, status: "draft" });
    expect((await call("GET", `/definition/workflows/${created.id}`, { auth: t.auth })).json.data).toEqual(v3.json.data);

    const versions = await systemQuery("SELECT version, definition_json FROM workflow_versions WHERE workflow_id = $1 ORDER BY version", [created.id]);
    expect(versions).toEqual([
      { version: 1, definition_json: minimal },
      { version: 2, definition_json: twoJobs },
      { version: 3, definition_json: minimal },
    ]);
  });

  it("keeps the stored version when an update is refused", async () => {
    const t = await createTenant();
    const created = await create(t, { name: "w", definition_json: minimal });
    const cyclic = {
      ...minimal,
      jobs: [
        { id: "a", dependencies: ["b"], actions: [{ name: "pipe", config: {} }] },
        { id: "b", dependencies: ["a"], actions: [{ name: "pipe", config: {} }] },
      ],
    };
    await refused(
      t,
      () => call("PUT", `/definition/workflows/${created.id}`, { auth: t.auth, body: { name: "w", definition_json: cyclic } }),
      422,
      "VALIDATION_FAILED",
    );
    await refused(
      t,
      () => call("PUT", `/definition/workflows/${created.id}`, { auth: t.auth, body: { name: "w", definition_json: minimal, source_yaml: YAML } }),
      422,
      "VALIDATION_FAILED",
    );
    const got = await call("GET", `/definition/workflows/${created.id}`, { auth: t.auth });
    expect(got.json.data).toEqual(created);
  });

  it("refuses renaming to a taken name with 409, changing nothing", async () => {
    const t = await createTenant();
    await create(t, { name: "first", definition_json: minimal });
    const second = await create(t, { name: "second", definition_json: minimal });
    await refused(
      t,
      () => call("PUT", `/definition/workflows/${second.id}`, { auth: t.auth, body: { name: "first", definition_json: minimal } }),
      409,
      "CONFLICT",
    );
  });

  it("answers 404 for an unknown id and for another tenant's, changing nothing", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const theirs = await create(other, { name: "theirs", definition_json: minimal });
    for (const id of [crypto.randomUUID(), theirs.id]) {
      await refused(t, () => call("PUT", `/definition/workflows/${id}`, { auth: t.auth, body: { name: "mine", definition_json: minimal } }), 404, "NOT_FOUND");
    }
    expect((await call("GET", `/definition/workflows/${theirs.id}`, { auth: other.auth })).json.data).toEqual(theirs);
  });
});

describe("GET /definition/workflows", () => {
  it("lists newest first with paging and filters by exact name", async () => {
    const t = await createTenant();
    const a = await create(t, { name: "alpha", definition_json: minimal });
    const b = await create(t, { name: "beta", definition_json: minimal });
    const c = await create(t, { name: "gamma", definition_json: minimal });
    await create(await createTenant(), { name: "alpha", definition_json: minimal });

    const all = await call("GET", "/definition/workflows", { auth: t.auth });
    expect(all.status).toBe(200);
    expect(all.json.data.map((w: { id: string }) => w.id)).toEqual([c.id, b.id, a.id]);
    expect(all.json.data[2]).toEqual(a);
    expect(all.json.pagination).toEqual({ page: 1, limit: 100, total: 3, total_pages: 1 });

    const page2 = await call("GET", "/definition/workflows?limit=2&page=2", { auth: t.auth });
    expect(page2.json.data.map((w: { id: string }) => w.id)).toEqual([a.id]);
    expect(page2.json.pagination).toEqual({ page: 2, limit: 2, total: 3, total_pages: 2 });

    const named = await call("GET", "/definition/workflows?name=beta", { auth: t.auth });
    expect(named.json.data.map((w: { id: string }) => w.id)).toEqual([b.id]);
    expect(named.json.pagination.total).toBe(1);
    expect((await call("GET", "/definition/workflows?name=bet", { auth: t.auth })).json.data).toEqual([]);
  });

  it("refuses unknown and malformed query parameters with 422", async () => {
    const t = await createTenant();
    expect(expectError(await call("GET", "/definition/workflows?status=draft", { auth: t.auth }), 422, "VALIDATION_FAILED").details.errors).toEqual([
      "status: is not allowed",
    ]);
    expectError(await call("GET", "/definition/workflows?limit=0", { auth: t.auth }), 422, "VALIDATION_FAILED");
    expectError(await call("GET", "/definition/workflows?name=%00", { auth: t.auth }), 422, "VALIDATION_FAILED");
  });

  it("answers 404 for an unknown id and another tenant's, 422 for a non-uuid", async () => {
    const t = await createTenant();
    const theirs = await create(await createTenant(), { name: "theirs", definition_json: minimal });
    expectError(await call("GET", `/definition/workflows/${crypto.randomUUID()}`, { auth: t.auth }), 404, "NOT_FOUND");
    expectError(await call("GET", `/definition/workflows/${theirs.id}`, { auth: t.auth }), 404, "NOT_FOUND");
    expect(expectError(await call("GET", "/definition/workflows/not-a-uuid", { auth: t.auth }), 422, "VALIDATION_FAILED").details.errors).toEqual([
      "id: must be a UUID",
    ]);
  });
});

describe("DELETE /definition/workflows/:id", () => {
  it("answers { id, deleted: true } and takes the versions with it", async () => {
    const t = await createTenant();
    const created = await create(t, { name: "gone", definition_json: minimal });
    await call("PUT", `/definition/workflows/${created.id}`, { auth: t.auth, body: { name: "gone", definition_json: twoJobs } });
    const res = await call("DELETE", `/definition/workflows/${created.id}`, { auth: t.auth });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: { id: created.id, deleted: true } });
    expectError(await call("GET", `/definition/workflows/${created.id}`, { auth: t.auth }), 404, "NOT_FOUND");
    expect(await systemQuery("SELECT 1 FROM workflow_versions WHERE workflow_id = $1", [created.id])).toEqual([]);
    expectError(await call("DELETE", `/definition/workflows/${created.id}`, { auth: t.auth }), 404, "NOT_FOUND");
    // The name is free again.
    expect((await create(t, { name: "gone", definition_json: minimal })).version).toBe(1);
  });

  it("answers 404 for another tenant's id, deleting nothing", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const theirs = await create(other, { name: "theirs", definition_json: minimal });
    expectError(await call("DELETE", `/definition/workflows/${theirs.id}`, { auth: t.auth }), 404, "NOT_FOUND");
    expect((await call("GET", `/definition/workflows/${theirs.id}`, { auth: other.auth })).status).toBe(200);
  });
});

describe("POST /definition/workflows/validate", () => {
  it("answers valid: true for a good definition (JSON or YAML) and saves nothing", async () => {
    const t = await createTenant();
    for (const body of [{ definition_json: minimal }, { source_yaml: YAML }, { name: "named", definition_json: minimal }]) {
      const res = await call("POST", "/definition/workflows/validate", { auth: t.auth, body });
      expect(res.status, res.text).toBe(200);
      expect(res.json.data).toEqual({ valid: true, errors: [] });
    }
    expect(await footprint(t.tenantId)).toEqual({ definitions: [], versions: [] });
  });

  it("answers several problems at once as lines, as a save would refuse them", async () => {
    const t = await createTenant();
    const bad = {
      jobs: [
        { id: "a", dependencies: ["ghost"], actions: [{ name: "pipe", config: {} }] },
        { id: "a", actions: [{ name: "pipe", config: {} }] },
      ],
      triggers: [{ id: "manual", cron: "61 * * * *" }],
    };
    const res = await call("POST", "/definition/workflows/validate", { auth: t.auth, body: { definition_json: bad } });
    expect(res.status).toBe(200);
    expect(res.json.data.valid).toBe(false);
    expect(res.json.data).not.toHaveProperty("code");
    expect(res.json.data.errors.length).toBeGreaterThanOrEqual(3);
    const saved = expectError(
      await call("POST", "/definition/workflows", { auth: t.auth, body: { name: "bad", definition_json: bad } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(res.json.data.errors).toEqual(saved.details.errors);
  });

  it("names a secret reference by code", async () => {
    const t = await createTenant();
    const yaml = YAML.replace("config: {}", 'config: { token: "{{ secrets.user.TOKEN }}" }');
    const res = await call("POST", "/definition/workflows/validate", { auth: t.auth, body: { source_yaml: yaml } });
    expect(res.json.data).toMatchObject({ valid: false, code: "SECRET_REF_IN_DEFINITION" });
    expect(res.json.data.errors.length).toBeGreaterThanOrEqual(1);
  });

  it("still refuses a bad envelope with 422", async () => {
    const t = await createTenant();
    for (const body of [[minimal], "x", {}, { definition_json: minimal, source_yaml: YAML }, { definition_json: minimal, extra: 1 }]) {
      expectError(await call("POST", "/definition/workflows/validate", { auth: t.auth, body }), 422, "VALIDATION_FAILED");
    }
  });
});

describe("GET /definition/workflows/schema", () => {
  it("answers the language schema (the path is not taken for an id) and the OpenAPI document describes definition_json with it", async () => {
    const t = await createTenant();
    const res = await call("GET", "/definition/workflows/schema", { auth: t.auth });
    expect(res.status).toBe(200);
    expect(res.json.data).toEqual(JSON.parse(JSON.stringify(WORKFLOW_LANGUAGE_SCHEMA)));
    expectError(await call("GET", "/definition/workflows/schema", {}), 401, "UNAUTHORIZED");

    const doc = (await call("GET", "/openapi.json")).json;
    const body = doc.paths["/definition/workflows"].post.requestBody.content["application/json"].schema;
    expect(body.properties.definition_json).toEqual({ $ref: "#/components/schemas/WorkflowDefinition" });
    expect(doc.paths["/definition/workflows/{id}"].put["x-permission"]).toBe("definition:update");
    // The components are the served schema with its $defs hoisted: reading each
    // component reference back as `#/$defs/<name>` gives the served document again.
    const { WorkflowDefinition, ...rest } = doc.components.schemas;
    const asDefs = (node: unknown) =>
      JSON.parse(
        JSON.stringify(node).replace(
          /"#\/components\/schemas\/Workflow(\w)(\w*)"/g,
          (_, first: string, tail: string) => `"#/$defs/${first.toLowerCase()}${tail}"`,
        ),
      );
    const { $schema, $defs, ...top } = res.json.data;
    expect(asDefs(WorkflowDefinition)).toEqual(top);
    for (const [name, def] of Object.entries($defs)) expect(asDefs(rest[`Workflow${name[0].toUpperCase()}${name.slice(1)}`])).toEqual(def);
    expect($schema).toBe("https://json-schema.org/draft/2020-12/schema");
    // Every reference in the document resolves from its root.
    const refs = [...JSON.stringify(doc).matchAll(/"\$ref":"([^"]+)"/g)].map((m) => m[1]);
    expect(refs.length).toBeGreaterThan(10);
    for (const ref of new Set(refs))
      expect(
        ref
          .split("/")
          .slice(1)
          .reduce((at: any, key) => at?.[key], doc),
        ref,
      ).toBeDefined();
  });
});

describe("permissions", () => {
  it("lets a definition:read token read and validate but not create, update or delete", async () => {
    const t = await createTenant();
    const created = await create(t, { name: "w", definition_json: minimal });
    const reader = await roleToken(t.auth, ["definition:read"]);
    expect((await call("GET", `/definition/workflows/${created.id}`, { auth: reader.auth })).status).toBe(200);
    expect((await call("POST", "/definition/workflows/validate", { auth: reader.auth, body: { definition_json: minimal } })).status).toBe(200);
    const denied = await refused(
      t,
      () => call("POST", "/definition/workflows", { auth: reader.auth, body: { name: "new", definition_json: minimal } }),
      403,
      "FORBIDDEN",
    );
    expect(denied.details).toMatchObject({ resource: "definition", action: "create" });
    await refused(
      t,
      () => call("PUT", `/definition/workflows/${created.id}`, { auth: reader.auth, body: { name: "w", definition_json: twoJobs } }),
      403,
      "FORBIDDEN",
    );
    await refused(t, () => call("DELETE", `/definition/workflows/${created.id}`, { auth: reader.auth }), 403, "FORBIDDEN");
  });

  it("refuses every route to a token without definition permissions", async () => {
    const t = await createTenant();
    const outsider = await roleToken(t.auth, ["workflow:read"]);
    expect(expectError(await call("GET", "/definition/workflows", { auth: outsider.auth }), 403, "FORBIDDEN").details).toMatchObject({
      resource: "definition",
      action: "read",
    });
    expectError(await call("GET", "/definition/workflows/schema", { auth: outsider.auth }), 403, "FORBIDDEN");
    expectError(await call("POST", "/definition/workflows/validate", { auth: outsider.auth, body: { definition_json: minimal } }), 403, "FORBIDDEN");
  });
});
