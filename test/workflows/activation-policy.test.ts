// Least-privilege activation through the gateway: the policy a workflow's
// activation provisions from what its actions declare, its reconciliation,
// the caller who cannot grant it, a bound policy that lacks a permission,
// and reference steps bound to no job.
import { describe, expect, it } from "vitest";
import { call, createTenant, expectError, systemQuery, type TenantCreds } from "../support/api";
import { createProductType } from "../support/entities";
import { roleToken } from "../access/fixture";
import { policyGranting } from "./actions-support";
import { createWorkflow } from "./fixture";
import { dispatched, runRecord } from "./orchestrator-support";

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const manual = [{ id: "manual", webhook: { methods: ["POST"] } }];
const upsertOrders = { stepId: "save", name: "upsertEntity", config: { typeName: "Order", data: "{{ input.rows }}" } };
const upsertJob = (extra: object[] = []) => ({
  jobs: [{ id: "a", input: { rows: "{{ context.input.rows }}" }, actions: [upsertOrders, ...extra] }],
  triggers: manual,
});

const activate = (auth: string, id: string, body: object = {}) => call("POST", `/workflows/${id}/activate`, { auth, body });

async function policyOf(t: TenantCreds, id: string) {
  const res = await call("GET", `/access/policies/${id}`, { auth: t.auth });
  expect(res.status, res.text).toBe(200);
  const { name, grants } = res.json.data;
  return { name, grants: grants.map((g: any) => ({ resource: g.resource, actions: g.actions, resource_name: g.resource_name ?? null })) };
}

const orders = async (t: TenantCreds) =>
  (
    await systemQuery("SELECT count(*)::int AS n FROM entities e JOIN entity_types et ON et.id = e.type_id WHERE e.tenant_id = $1 AND et.name = 'Order'", [
      t.tenantId,
    ])
  )[0].n;

describe("activation without policy_id", () => {
  it("provisions workflow:<name> with exactly what the actions need, narrowed to literal type names, and its runs work", async () => {
    const t = await createTenant();
    await createProductType(t.auth, "Order");
    const def = upsertJob([
      { stepId: "look", name: "queryEntity", config: { typeName: "{{ input.type }}" } },
      { stepId: "child", name: "invokeWorkflow", config: { workflowId: crypto.randomUUID() }, if: "false" },
      { stepId: "shape", name: "pipe", config: { value: 1 } },
    ]);
    const { id } = await createWorkflow(t, def, "orders-sync");
    const res = await activate(t.auth, id);
    expect(res.status, res.text).toBe(200);
    const answer = res.json.data;
    expect(answer.policy_id).toMatch(UUID);
    expect(answer.required_permissions).toEqual(["entity:create:Order", "entity:read", "entity:update:Order", "workflow:create"]);
    expect(answer.warnings).toEqual([]);
    expect(await policyOf(t, answer.policy_id)).toEqual({
      name: "workflow:orders-sync",
      grants: expect.arrayContaining([
        { resource: "entity", actions: ["create", "update"], resource_name: "Order" },
        { resource: "entity", actions: ["read"], resource_name: null },
        { resource: "workflow", actions: ["create"], resource_name: null },
      ]),
    });
    expect((await policyOf(t, answer.policy_id)).grants).toHaveLength(3);

    // The provisioned policy is what runs act with: the upsert writes.
    const only = await createWorkflow(t, upsertJob(), "orders-only");
    expect((await activate(t.auth, only.id)).json.data.required_permissions).toEqual(["entity:create:Order", "entity:update:Order"]);
    const run = await runRecord(t, await dispatched(t, only.id, { rows: [{ name: "o1", attributes: { sku: "A1", title: "First" } }] }));
    expect([run.status, run.job_runs[0].action_runs[0].error]).toEqual(["success", null]);
    expect(await orders(t)).toBe(1);
  });

  it("keeps the provisioned policy on re-activation and reconciles its grants to the new version", async () => {
    const t = await createTenant();
    await createProductType(t.auth, "Order");
    const { id } = await createWorkflow(t, upsertJob(), "recon");
    const first = (await activate(t.auth, id)).json.data;
    const again = (await activate(t.auth, id)).json.data;
    expect(again.policy_id).toBe(first.policy_id);
    const put = await call("PUT", `/definition/workflows/${id}`, {
      auth: t.auth,
      body: {
        name: "recon",
        definition_json: { jobs: [{ id: "a", actions: [{ stepId: "q", name: "queryEntity", config: { typeName: "Order" } }] }], triggers: manual },
      },
    });
    expect(put.status, put.text).toBe(200);
    const third = (await activate(t.auth, id)).json.data;
    expect([third.policy_id, third.required_permissions, third.warnings]).toEqual([first.policy_id, ["entity:read:Order"], []]);
    expect(await policyOf(t, first.policy_id)).toEqual({ name: "workflow:recon", grants: [{ resource: "entity", actions: ["read"], resource_name: "Order" }] });
    expect((await systemQuery("SELECT count(*)::int AS n FROM policies WHERE tenant_id = $1", [t.tenantId]))[0].n).toBe(1);
  });

  it("refuses (403) a caller who does not hold a needed permission, naming it, and changes nothing", async () => {
    const t = await createTenant();
    await createProductType(t.auth, "Order");
    const { id } = await createWorkflow(t, upsertJob(), "denied");
    const clerk = await roleToken(t.auth, ["workflow:update", "workflow:read", "entity:read", "entity:update"]);
    const err = expectError(await activate(clerk.auth, id), 403, "FORBIDDEN");
    expect(err.details.permission).toBe("entity:create:Order");
    expect(err.details.missing_permissions).toEqual(["entity:create:Order"]);
    expect(err.message).toContain("entity:create:Order");
    expect(await systemQuery("SELECT name FROM policies WHERE tenant_id = $1", [t.tenantId])).toEqual([]);
    expect(await systemQuery("SELECT workflow_id FROM workflow_activations WHERE workflow_id = $1", [id])).toEqual([]);
    expect((await call("GET", `/definition/workflows/${id}`, { auth: t.auth })).json.data.status).toBe("draft");
    // A policy narrowed to the type is enough to hand that type on.
    const narrow = await call("POST", "/access/policies", {
      auth: t.auth,
      body: { name: "orders", grants: [{ resource: "entity", actions: ["create", "update"], resource_name: "Order" }] },
    });
    const assigned = await call("POST", `/access/policies/${narrow.json.data.id}/assignments`, { auth: t.auth, body: { role_name: clerk.role.name } });
    expect(assigned.status, assigned.text).toBe(201);
    const ok = await activate(clerk.auth, id);
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.data.required_permissions).toEqual(["entity:create:Order", "entity:update:Order"]);
  });
});

describe("a bound policy", () => {
  it("activates though it lacks a needed permission, warning of each; the run fails that action with 403 and writes nothing", async () => {
    const t = await createTenant();
    await createProductType(t.auth, "Order");
    const { id } = await createWorkflow(t, upsertJob(), "bound");
    const policy = await policyGranting(t, ["entity:read"]);
    const res = await activate(t.auth, id, { policy_id: policy });
    expect(res.status, res.text).toBe(200);
    expect([res.json.data.policy_id, res.json.data.required_permissions]).toEqual([policy, ["entity:create:Order", "entity:update:Order"]]);
    expect(res.json.data.warnings).toEqual([
      "The bound policy does not grant entity:create:Order, which upsertEntity in step a needs; runs fail that action with 403 FORBIDDEN",
      "The bound policy does not grant entity:update:Order, which upsertEntity in step a needs; runs fail that action with 403 FORBIDDEN",
    ]);
    // Left out on re-activation, the bound policy stays: nothing is provisioned over it.
    const again = (await activate(t.auth, id)).json.data;
    expect([again.policy_id, again.warnings.length]).toEqual([policy, 2]);
    expect((await systemQuery("SELECT count(*)::int AS n FROM policies WHERE tenant_id = $1 AND workflow_id IS NOT NULL", [t.tenantId]))[0].n).toBe(0);

    const run = await runRecord(t, await dispatched(t, id, { rows: [{ name: "o1", attributes: { sku: "A1", title: "First" } }] }));
    const action = run.job_runs[0].action_runs[0];
    expect([run.status, action.status, action.error.status, action.error.code, action.error.details]).toEqual([
      "error",
      "error",
      403,
      "FORBIDDEN",
      { resource: "entity", action: "create" },
    ]);
    expect(await orders(t)).toBe(0);
  });
});

describe("reference steps bound to no job", () => {
  it("save, are named in the activation's warnings, and fail their step at run time with JOB_UNBOUND", async () => {
    const t = await createTenant();
    const def = {
      jobs: [
        { id: "a", actions: [{ name: "pipe", config: { value: 1 } }] },
        { id: "r", name: "enrich", dependencies: ["a"] },
      ],
      triggers: manual,
    };
    const { id } = await createWorkflow(t, def, "unbound");
    const res = await activate(t.auth, id);
    expect(res.status, res.text).toBe(200);
    expect([res.json.data.required_permissions, res.json.data.warnings]).toEqual([
      [],
      ["Step r references job enrich, which has no published version bound to it; runs fail that step with JOB_UNBOUND"],
    ]);
    const run = await runRecord(t, await dispatched(t, id));
    const [a, r] = run.job_runs;
    expect([run.status, a.status, r.status, r.error.status, r.error.code, r.error.details]).toEqual([
      "error",
      "success",
      "error",
      422,
      "UNPROCESSABLE_ENTITY",
      { code: "JOB_UNBOUND", step_id: "r", job_name: "enrich" },
    ]);
  });
});

describe("save-time checks", () => {
  const refusal = async (t: TenantCreds, definition_json: object, path = "/definition/workflows", name = "w") => {
    const before = await systemQuery("SELECT count(*)::int AS n FROM workflow_definitions WHERE tenant_id = $1", [t.tenantId]);
    const err = expectError(await call("POST", path, { auth: t.auth, body: { name, definition_json } }), 422, "VALIDATION_FAILED");
    expect(await systemQuery("SELECT count(*)::int AS n FROM workflow_definitions WHERE tenant_id = $1", [t.tenantId])).toEqual(before);
    return err.details.errors as string[];
  };
  const one = (actions: object[]) => ({ jobs: [{ id: "a", actions }], triggers: manual });
  const SCOPE = "an action's config reads only input (the job's input) and outputs (the results of the job's earlier actions)";

  it("refuse an action config reading a root other than input and outputs, naming the path and the scope", async () => {
    const t = await createTenant();
    expect(await refusal(t, one([{ name: "pipe", config: { value: "{{ context.input.x }}" } }]))).toEqual([
      `definition_json.jobs[0].actions[0].config.value: reads context; ${SCOPE}`,
    ]);
    expect(await refusal(t, one([{ name: "http", config: { url: "https://x.example.com/{{ config.env.PATH }}" } }]))).toEqual([
      `definition_json.jobs[0].actions[0].config.url: reads config; ${SCOPE}`,
    ]);
    // A published job's actions are read the same way.
    expect(await refusal(t, { actions: [{ name: "pipe", config: { value: { $jsonata: "context.run.id" } } }] }, "/definition/jobs", "j")).toEqual([
      `definition_json.actions[0].config.value.$jsonata: reads context; ${SCOPE}`,
    ]);
    const ok = await call("POST", "/definition/workflows", {
      auth: t.auth,
      body: { name: "fine", definition_json: one([{ name: "pipe", config: { value: "{{ input.x }} {{ outputs.y }}" } }]) },
    });
    expect(ok.status, ok.text).toBe(201);
  });

  it("refuse a literal config its action's schema refuses, for every action, pipe included", async () => {
    const t = await createTenant();
    expect(await refusal(t, one([{ name: "pipe", config: { nope: 1 } }]))).toEqual(["definition_json.jobs[0].actions[0].config.nope: is not allowed"]);
    expect(await refusal(t, one([{ name: "upsertEntity", config: { typeName: "Order" } }]))).toEqual([
      "definition_json.jobs[0].actions[0].config.data: is required",
    ]);
    // An absent config is {}; nested actions are checked too.
    expect(await refusal(t, one([{ name: "awaitInput", onSuccess: [{ name: "createTempFileDownloadURL" }] }]))).toEqual([
      "definition_json.jobs[0].actions[0].onSuccess[0].config.tempFileId: is required",
    ]);
    // A templated config is checked when the action runs.
    const ok = await call("POST", "/definition/workflows", {
      auth: t.auth,
      body: { name: "later", definition_json: one([{ name: "upsertEntity", config: { typeName: "{{ input.t }}" } }]) },
    });
    expect(ok.status, ok.text).toBe(201);
  });

  it("refuse an empty jobs list", async () => {
    const t = await createTenant();
    expect(await refusal(t, { jobs: [], triggers: manual })).toEqual(["definition_json.jobs: holds no step; a workflow needs at least one job"]);
  });

  it("refuse a JSONata function the evaluator refuses at run time", async () => {
    const t = await createTenant();
    const [line] = await refusal(t, one([{ name: "pipe", config: { value: '{{ $eval("input.x") }}' } }]));
    expect(line).toMatch(
      /^definition_json\.jobs\[0\]\.actions\[0\]\.config\.value: uses \$eval \(at character \d+\), which expressions cannot use: it evaluates text built at run time/,
    );
    const [condition] = await refusal(t, { jobs: [{ id: "a", condition: "($f := $eval; $f('1'))", actions: [] }], triggers: manual });
    expect(condition).toMatch(/^definition_json\.jobs\[0\]\.condition: uses \$eval /);
  });
});
