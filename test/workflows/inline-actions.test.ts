// Workflow actions inside an app request (src/workflows/inline.ts), as an
// app's `actions` and `job` commands run them: a real tenant, types and
// entities made through the API, the app user resolved as a render resolves
// it (its principal the activation's policy), the scripted outbound server
// for `http`. The permission set refuses before an action runs; the user's
// policy refuses through the catalog's own check; errorWhen and onError are
// the run walker's; an `http` action retries only as its config says, at
// most twice and within a second; waiting actions and unbound slots fail
// with their codes; secrets never reach the result.
import { env } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Database, tenantDb } from "../../src/db/client";
import type { RenderIdentity } from "../../src/apps/render/contracts";
import { Redactor } from "../../src/lib/redact";
import { EvaluationBudget } from "../../src/lib/smart-values";
import { runInlineActions, runInlineJob, type ActionDocument, type InlineEnvironment, type InlinePermissions } from "../../src/workflows/inline";
import { call, createTenant, systemQuery, type TenantCreds } from "../support/api";
import { createEntity, createProductType } from "../support/entities";
import { scenario } from "../support/outbound";
import { resolve, setupApp } from "../apps/identity-fixture";
import { activeWorkflow, minimalDefinition } from "./fixture";

let t: TenantCreds;
let other: TenantCreds;
let database: Database;
/** An app user whose policy reads and writes entities, and one who may only read them. */
let writer: RenderIdentity;
let reader: RenderIdentity;
let lampId: string;
/** What the lists handed to the request's waitUntil: the starts of the runs they invoked. */
const background: Promise<unknown>[] = [];

const ENTITY_CRUD = ["read", "create", "update", "delete"];

async function appUser(grants: { resource: string; actions: string[] }[], user: string): Promise<RenderIdentity> {
  const app = await setupApp({ tenant: t, policies: { main: { grants: [] } }, policyGrants: grants });
  return resolve(app.integrationId, { headers: { Authorization: `Bearer ${app.token}` }, body: { company: app.companyExternalId, user: { id: user } } });
}

beforeAll(async () => {
  [t, other] = await Promise.all([createTenant(), createTenant()]);
  database = new Database(env.DATABASE_URL, env.NEON_WS_PROXY);
  await createProductType(t.auth);
  lampId = (await createEntity(t.auth, "Product", "Lamp", { sku: "l1", title: "Lamp" })).id;
  writer = await appUser([{ resource: "entity", actions: ENTITY_CRUD }], "writer");
  reader = await appUser([{ resource: "entity", actions: ["read"] }], "reader");
});
afterAll(async () => {
  await Promise.all(background);
  await database.close();
});

interface EnvOptions {
  scope?: Record<string, unknown>;
  secrets?: string[];
  deadline?: number;
  authProfiles?: Record<string, unknown>;
  functions?: Record<string, string>;
}

function environment(who: RenderIdentity, o: EnvOptions = {}): InlineEnvironment {
  return {
    requestId: crypto.randomUUID(),
    scope: { config: { app: {} }, page: { params: {} }, outputs: {}, payload: {}, ...o.scope },
    principal: who.principal,
    tenant: tenantDb(database, who.tenantId),
    bindings: env,
    database,
    background: { waitUntil: (work) => void background.push(work) },
    clock: { now: () => Date.now() },
    budget: new EvaluationBudget({ timeoutMs: 1000 }),
    deadline: o.deadline ?? Date.now() + 20_000,
    secrets: new Redactor(o.secrets ?? []),
    authProfiles: (o.authProfiles ?? {}) as InlineEnvironment["authProfiles"],
    functions: o.functions,
  };
}

const actions = (list: unknown[], p: Partial<InlinePermissions> & { input?: unknown; output?: unknown } = {}) => ({
  actions: list as ActionDocument[],
  permissionSet: "readonly" as const,
  ...p,
});

const lamps = () => systemQuery(`SELECT name, attributes FROM entities WHERE tenant_id = $1 AND deleted_at IS NULL ORDER BY name`, [t.tenantId]);
const upsert = (sku: string, name: string) => ({
  stepId: "saved",
  name: "upsertEntity",
  config: { typeName: "Product", data: [{ name, attributes: { sku, title: name } }] },
});

describe("an actions command", () => {
  it("under readonly reads entities, binds each result by stepId and answers the output from input and outputs", async () => {
    const result = await runInlineActions(
      actions(
        [
          {
            stepId: "found",
            name: "queryEntity",
            config: { typeName: "Product", filter: { operator: "eq", path: ["attributes", "sku"], value: "{{ input.sku }}" } },
          },
          { stepId: "named", name: "pipe", config: { value: "{{ outputs.found.data[0].name & '/' & $shout(input.sku) }}" } },
        ],
        { input: { sku: "{{ page.params.sku }}" }, output: { id: "{{ outputs.found.data[0].id }}", label: "{{ outputs.named }}" } },
      ),
      environment(reader, { scope: { page: { params: { sku: "l1" } } }, functions: { shout: "function($s) { $uppercase($s) }" } }),
    );
    expect(result).toEqual({ status: "success", output: { id: lampId, label: "Lamp/L1" }, wrote: false });
  });

  it("without output answers the results by stepId", async () => {
    const result = await runInlineActions(
      actions([
        { stepId: "one", name: "pipe", config: { value: 1 } },
        { name: "pipe", config: { value: 2 } },
      ]),
      environment(reader),
    );
    expect(result).toEqual({ status: "success", output: { one: 1 }, wrote: false });
  });

  it("refuses a writing action under readonly with 403 naming the action and the set, before it runs", async () => {
    const before = await lamps();
    const result = await runInlineActions(actions([upsert("r1", "Refused")]), environment(writer));
    expect(result).toEqual({
      status: "error",
      wrote: false,
      error: {
        status: 403,
        code: "FORBIDDEN",
        message: "Action upsertEntity is not allowed by the permission set readonly; it needs dataMutation or additionalAllowed",
        details: { action: "upsertEntity", permission_set: "readonly" },
      },
    });
    expect(await lamps()).toEqual(before);
  });

  it("under dataMutation writes, and says so", async () => {
    const result = await runInlineActions(
      actions([upsert("d1", "Desk")], { permissionSet: "dataMutation", output: "{{ outputs.saved.created }}" }),
      environment(writer),
    );
    expect(result).toEqual({ status: "success", output: 1, wrote: true });
    expect((await lamps()).map((r) => r.name)).toContain("Desk");
  });

  it("additionalAllowed adds an action to readonly; denied removes one even from dataMutation", async () => {
    const allowed = await runInlineActions(actions([upsert("c1", "Chair")], { additionalAllowed: ["upsertEntity"] }), environment(writer));
    expect([allowed.status, allowed.wrote]).toEqual(["success", true]);
    const denied = await runInlineActions(actions([upsert("s1", "Sofa")], { permissionSet: "dataMutation", denied: ["upsertEntity"] }), environment(writer));
    expect(denied).toMatchObject({
      status: "error",
      wrote: false,
      error: { status: 403, code: "FORBIDDEN", details: { action: "upsertEntity", permission_set: "dataMutation" } },
    });
    const readDenied = await runInlineActions(
      actions([{ name: "queryEntity", config: { typeName: "Product" } }], { denied: ["queryEntity"] }),
      environment(reader),
    );
    expect(readDenied).toMatchObject({ status: "error", error: { code: "FORBIDDEN", details: { action: "queryEntity" } } });
    const names = (await lamps()).map((r) => r.name);
    expect([names.includes("Chair"), names.includes("Sofa")]).toEqual([true, false]);
  });

  it("an action the app user's policy lacks fails with the catalog's 403 in the app's wording (no run), and writes nothing", async () => {
    const result = await runInlineActions(actions([upsert("p1", "Poster")], { permissionSet: "dataMutation" }), environment(reader));
    expect(result).toEqual({
      status: "error",
      wrote: false,
      error: { status: 403, code: "FORBIDDEN", message: "The app's policy does not allow entity:create", details: { resource: "entity", action: "create" } },
    });
    expect((await lamps()).map((r) => r.name)).not.toContain("Poster");
  });

  it("invokeWorkflow needs dataMutation; then it starts the run, keyed by the request", async () => {
    const { id: workflowId } = await activeWorkflow(t, minimalDefinition());
    const invoke = [{ stepId: "started", name: "invokeWorkflow", config: { workflowId, input: { from: "{{ input.from }}" } } }];
    const invoker = await appUser([{ resource: "workflow", actions: ["create"] }], "invoker");
    const refused = await runInlineActions(actions(invoke), environment(invoker));
    expect(refused).toMatchObject({ status: "error", error: { status: 403, details: { action: "invokeWorkflow", permission_set: "readonly" } } });
    const request = environment(invoker);
    const started = await runInlineActions(actions(invoke, { permissionSet: "dataMutation", input: { from: "app" } }), request);
    const runs = await systemQuery(`SELECT id, context, idempotency_key, parent_run_id, depth FROM workflow_runs WHERE workflow_id = $1`, [workflowId]);
    expect(runs).toHaveLength(1);
    expect(started).toEqual({ status: "success", output: { started: { run_id: runs[0].id } }, wrote: false });
    expect([runs[0].context.input, runs[0].idempotency_key]).toEqual([{ from: "app" }, `${request.requestId}:actions/0:1`]);
    // No run invoked it: the child is the first of its chain, with no parent to point at.
    expect([runs[0].parent_run_id, runs[0].depth]).toEqual([null, 0]);
  });

  it("errorWhen fails an action, its onError runs and errorPolicy continue goes on; without onError the list ends with the error", async () => {
    const handled = await runInlineActions(
      actions(
        [
          {
            stepId: "check",
            name: "pipe",
            config: { value: { n: 3 } },
            errorWhen: "result.n > 2",
            errorPolicy: "continue",
            onError: [{ stepId: "fallback", name: "pipe", config: { value: "used" } }],
          },
          { stepId: "after", name: "pipe", config: { value: "{{ outputs.fallback }}" } },
        ],
        { output: "{{ outputs }}" },
      ),
      environment(reader),
    );
    expect(handled).toEqual({ status: "success", output: { fallback: "used", after: "used" }, wrote: false });
    const failed = await runInlineActions(
      actions([
        { name: "pipe", config: { value: 5 }, errorWhen: "result = 5" },
        { stepId: "never", name: "pipe", config: { value: 1 } },
      ]),
      environment(reader),
    );
    expect(failed).toMatchObject({
      status: "error",
      error: { status: 422, code: "UNPROCESSABLE_ENTITY", message: "Action actions/0: errorWhen holds for its result", details: { result: 5 } },
    });
  });

  it("refuses an action that waits", async () => {
    const result = await runInlineActions(actions([{ name: "awaitInput", config: {} }]), environment(reader));
    expect(result).toMatchObject({ status: "error", error: { status: 422, code: "UNPROCESSABLE_ENTITY", details: { action: "awaitInput" } } });
    expect((result as { error: { message: string } }).error.message).toContain("run it from a workflow");
  });
});

describe("an http action inside a request", () => {
  it("is not retried without maxRetries: the 503 is its result and errorWhen fails it", async () => {
    const s = await scenario({ "/busy": [{ status: 503, body: "busy" }, { json: { ok: true } }] });
    const result = await runInlineActions(actions([{ name: "http", config: { url: s.url("/busy") } }]), environment(reader));
    expect(result).toMatchObject({
      status: "error",
      error: { code: "UNPROCESSABLE_ENTITY", message: "Action actions/0: errorWhen holds for its result (HTTP 503)" },
    });
    expect(await s.requests()).toHaveLength(1);
  });

  it("with maxRetries retries at most twice, waiting at most a second, even when the config asks for more", async () => {
    const s = await scenario({ "/flaky": [{ status: 503 }, { status: 502 }, { json: { ok: true } }], "/down": [{ status: 503, body: "down" }] });
    const started = Date.now();
    const ok = await runInlineActions(
      actions([{ stepId: "call", name: "http", config: { url: s.url("/flaky"), maxRetries: 2, initialRetryDelayMs: 30_000 } }], {
        output: "{{ outputs.call.body }}",
      }),
      environment(reader),
    );
    expect(ok).toEqual({ status: "success", output: { ok: true }, wrote: false });
    expect(await s.requests()).toHaveLength(3);
    const down = await runInlineActions(actions([{ name: "http", config: { url: s.url("/down"), maxRetries: 5 } }]), environment(reader));
    expect(down).toMatchObject({ status: "error", error: { message: "Action actions/0: errorWhen holds for its result (HTTP 503)" } });
    expect((await s.requests()).filter((r) => r.path === "/down")).toHaveLength(3);
    // Four waits, none over a second: a 30 s back-off or five retries would not fit.
    expect(Date.now() - started).toBeLessThan(4_500);
  });

  it("does not retry past the request's deadline", async () => {
    const s = await scenario({ "/late": [{ status: 503 }, { json: { ok: true } }] });
    const result = await runInlineActions(
      actions([{ name: "http", config: { url: s.url("/late"), maxRetries: 2 } }]),
      environment(reader, { deadline: Date.now() + 150 }),
    );
    expect(result).toMatchObject({ status: "error", error: { status: 503, code: "SERVICE_UNAVAILABLE", details: { action: "http" } } });
    expect(await s.requests()).toHaveLength(1);
  });

  it("ends an attempt at the request's deadline, with the deadline's error rather than a timeout", async () => {
    const s = await scenario({ "/slow": [{ delayMs: 3000, json: { ok: true } }] });
    const started = Date.now();
    const result = await runInlineActions(actions([{ name: "http", config: { url: s.url("/slow") } }]), environment(reader, { deadline: Date.now() + 300 }));
    expect(result).toMatchObject({ status: "error", error: { status: 503, code: "SERVICE_UNAVAILABLE", details: { action: "http" } } });
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it("sends a secret the scope carries, and the result never shows it", async () => {
    const secret = "tok-4f8a9c2e";
    const s = await scenario({ "/echo": [{ json: { seen: secret, other: "x" } }] });
    const result = await runInlineActions(
      actions([{ stepId: "call", name: "http", config: { url: s.url("/echo"), headers: { Authorization: "Bearer {{ input.token }}" } } }], {
        input: { token: "{{ config.app.token }}" },
        output: { body: "{{ outputs.call.body }}", shouted: "{{ $uppercase(input.token) }}" },
      }),
      environment(reader, { scope: { config: { app: { token: secret } } }, secrets: [secret] }),
    );
    const [seen] = await s.requests();
    expect(seen.headers.authorization).toBe(`Bearer ${secret}`);
    expect(result).toEqual({ status: "success", output: { body: { seen: "***", other: "x" }, shouted: "***" }, wrote: false });
  });
});

describe("a job command", () => {
  const jobBody = { actions: [{ stepId: "n", name: "pipe", config: { value: "{{ input.x * 2 }}" } }], input: { x: 1 }, output: "{{ outputs.n }}" };

  it("runs an inline jobs.<key> body with the command's input in place of its own, under readonly", async () => {
    const result = await runInlineJob(
      { job: { key: "double", body: jobBody as never }, input: { x: "{{ page.params.x }}" } },
      environment(reader, { scope: { page: { params: { x: 21 } } } }),
    );
    expect(result).toEqual({ status: "success", output: 42, wrote: false });
    const refused = await runInlineJob({ job: { key: "save", body: { actions: [upsert("j1", "Jar")] as never } } }, environment(writer));
    expect(refused).toMatchObject({ status: "error", error: { code: "FORBIDDEN", details: { action: "upsertEntity", permission_set: "readonly" } } });
    const allowed = await runInlineJob(
      { job: { key: "save", body: { actions: [upsert("j2", "Jug")] as never } }, additionalAllowed: ["upsertEntity"] },
      environment(writer),
    );
    expect([allowed.status, allowed.wrote]).toEqual(["success", true]);
  });

  it("an unbound slot fails with JOB_SLOT_UNBOUND", async () => {
    const result = await runInlineJob({ job: { key: "enrich", bound: undefined } }, environment(reader));
    expect(result).toMatchObject({
      status: "error",
      wrote: false,
      error: { status: 422, code: "UNPROCESSABLE_ENTITY", details: { code: "JOB_SLOT_UNBOUND", slot: "enrich" } },
    });
  });

  it("runs the bound job the tenant sees: its own, or another tenant's only while a workflow shared with it runs that job", async () => {
    const publish = async (owner: TenantCreds, name: string, value: string) => {
      const res = await call("POST", "/definition/jobs", {
        auth: owner.auth,
        body: { name, definition_json: { actions: [{ stepId: "v", name: "pipe", config: { value } }], output: "{{ outputs.v }}" } },
      });
      expect(res.status, res.text).toBe(201);
      return res.json.data.id as string;
    };
    const ownersName = `job-${crypto.randomUUID().slice(0, 8)}`;
    const [own, owners] = await Promise.all([publish(t, `job-${crypto.randomUUID().slice(0, 8)}`, "own"), publish(other, ownersName, "owner's")]);
    const run = (bound: string) => runInlineJob({ job: { key: "enrich", bound } }, environment(reader));
    const notFound = { status: "error", error: { status: 404, code: "NOT_FOUND", details: { slot: "enrich", job_id: owners } } };
    expect(await run(own)).toEqual({ status: "success", output: "own", wrote: false });
    expect(await run(owners)).toMatchObject(notFound);

    const workflow = await call("POST", "/definition/workflows", {
      auth: other.auth,
      body: {
        name: `uses-${ownersName}`,
        definition_json: { jobs: [{ id: "run", name: ownersName }], triggers: [{ id: "manual", webhook: { methods: ["POST"] } }] },
      },
    });
    expect(workflow.status, workflow.text).toBe(201);
    const share = await call("POST", "/access/shares", {
      auth: other.auth,
      body: { resource_type: "workflow", resource_id: workflow.json.data.id, target_tenant_id: t.tenantId },
    });
    expect(share.status, share.text).toBe(201);
    expect(await run(owners)).toEqual({ status: "success", output: "owner's", wrote: false });
    // A binding accepted while the job was shared stops running once the share is withdrawn.
    expect((await call("DELETE", `/access/shares/${share.json.data.id}`, { auth: other.auth })).status).toBe(200);
    expect(await run(owners)).toMatchObject(notFound);
  });

  it("a bound job holding an action that waits fails at run time", async () => {
    const res = await call("POST", "/definition/jobs", {
      auth: t.auth,
      body: { name: `wait-${crypto.randomUUID().slice(0, 8)}`, definition_json: { actions: [{ name: "awaitInput", config: {} }] } },
    });
    expect(res.status, res.text).toBe(201);
    const result = await runInlineJob({ job: { key: "enrich", bound: res.json.data.id } }, environment(reader));
    expect(result).toMatchObject({ status: "error", error: { code: "UNPROCESSABLE_ENTITY", details: { action: "awaitInput" } } });
  });
});
