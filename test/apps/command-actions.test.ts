// `actions` and `job` commands through POST /apps/run: workflow catalog
// actions run while the render waits, as the app user, under the command's
// permission set; a write makes the screens read their sources afresh; a
// run invokeWorkflow starts goes on after the render answered.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { kickRuns } from "../../src/workflows/runs/run-client";
import { call, createTenant, systemQuery } from "../support/api";
import { createEntity, createProductType } from "../support/entities";
import { scenario } from "../support/outbound";
import { manualWorkflow, runRecord } from "../workflows/orchestrator-support";
import { publishJob, putConfig } from "./fixture";
import { hostFor, hostProvider } from "./host-fixture";

const upsert = (permissionSet?: string) => ({
  kind: "actions",
  stepId: "saved",
  ...(permissionSet && { permissionSet }),
  input: { sku: "{{ payload.sku }}" },
  actions: [
    {
      stepId: "up",
      name: "upsertEntity",
      config: {
        typeName: "Product",
        onConflict: "merge",
        data: [{ name: "{{ input.sku }}", attributes: { sku: "{{ input.sku }}", title: "New {{ input.sku }}" } }],
      },
    },
  ],
  output: "{{ outputs.up }}",
});

const spec = {
  dashboards: {
    main: {
      name: "Main",
      surfaces: { dashboard: "home" },
      pages: {
        home: {
          dataSources: { products: { $query: { typeName: "Product", sort: [{ path: ["name"], direction: "asc" }] } } },
          layout: [["grid", "save"]],
          widgets: {
            grid: { widgetComponent: "data_grid", dataSource: "products" },
            save: {
              widgetComponent: "button",
              actionHandlers: {
                write: [
                  upsert("dataMutation"),
                  {
                    kind: "notify",
                    level: "INFO",
                    stepId: "told",
                    message: "created {{ outputs.saved.created }} then saw {{ $count(page.dataSources.products) }}",
                  },
                ],
                readonly: [upsert()],
                allowed: [{ ...upsert(), additionalAllowed: ["upsertEntity"] }],
                denied: [{ ...upsert("dataMutation"), denied: ["upsertEntity"] }],
                read: [
                  {
                    kind: "actions",
                    stepId: "found",
                    input: { sku: "{{ payload.sku }}" },
                    actions: [
                      {
                        stepId: "q",
                        name: "queryEntity",
                        config: { typeName: "Product", filter: { operator: "eq", path: ["attributes", "sku"], value: "{{ input.sku }}" } },
                      },
                    ],
                  },
                  { kind: "debug", value: "{{ outputs.found.q.data[0].name }}" },
                ],
                inlineJob: [
                  { kind: "job", job: "lookup", stepId: "j", input: { sku: "{{ payload.sku }}" } },
                  { kind: "debug", value: "{{ outputs.j }}" },
                ],
                slot: [
                  { kind: "job", job: "enrich", stepId: "e" },
                  { kind: "debug", value: "{{ outputs.e }}" },
                ],
                badConfig: [
                  {
                    kind: "actions",
                    stepId: "bad",
                    permissionSet: "dataMutation",
                    input: { rows: "{{ payload.rows }}" },
                    actions: [{ name: "upsertEntity", config: { typeName: "Product", data: "{{ input.rows }}" } }],
                  },
                ],
                onError: [
                  { ...upsert(), onError: [{ kind: "notify", level: "WARN", stepId: "fallback", message: "{{ outputs.saved ? 'saved' : 'not saved' }}" }] },
                ],
                invoke: [
                  {
                    kind: "actions",
                    stepId: "inv",
                    permissionSet: "dataMutation",
                    input: { wf: "{{ payload.workflowId }}" },
                    actions: [{ stepId: "started", name: "invokeWorkflow", config: { workflowId: "{{ input.wf }}" } }],
                  },
                  { kind: "debug", value: "{{ outputs.inv.started.run_id }}" },
                ],
              },
            },
          },
        },
      },
    },
  },
  jobs: {
    lookup: {
      input: { sku: "{{ input.sku }}" },
      actions: [
        {
          stepId: "q",
          name: "queryEntity",
          config: { typeName: "Product", filter: { operator: "eq", path: ["attributes", "sku"], value: "{{ input.sku }}" } },
        },
      ],
      output: "{{ outputs.q.data[0].attributes.title }}",
    },
    enrich: null,
  },
  providers: hostProvider,
  messages: { JOB_SLOT_UNBOUND: "No job is connected for {{ error.code }}" },
  policies: {
    clerk: {
      grants: [
        { resource: "entity", actions: ["read", "create", "update"], resourceName: "Product" },
        { resource: "workflow", actions: ["create"] },
      ],
    },
  },
  defaultPolicy: "clerk",
};

async function setup() {
  const t = await createTenant();
  await createProductType(t.auth);
  await createEntity(t.auth, "Product", "Anchor", { sku: "A-1", title: "Anchor" });
  return hostFor(spec, { tenant: t });
}

const action = (handler: string, payload: object = {}) => ({ action: { widgetId: "save", handler, payload } });
const products = async (auth: string) =>
  (await call("POST", "/entity/query", { auth, body: { type_name: "Product" } })).json.data.map((e: { name: string }) => e.name).sort();

describe("catalog actions inside a render", () => {
  it("upserts under dataMutation, binds the list's output, and the later steps and the screens read the sources afresh", async () => {
    const host = await setup();
    const res = await host.render(action("write", { sku: "B-2" }));
    expect(res.status, res.text).toBe(200);
    const answer = res.json.data;
    expect(answer.notifications).toEqual([{ id: "told", level: "INFO", message: "created 1 then saw 2" }]);
    expect(answer.referenceData.grid.rows.map((r: { name: string }) => r.name)).toEqual(["Anchor", "B-2"]);
    expect(await products(host.t.auth)).toEqual(["Anchor", "B-2"]);
  });

  it("refuses a writing action under readonly (the default) and with denied, before it runs; additionalAllowed lets it", async () => {
    const host = await setup();
    for (const handler of ["readonly", "denied"]) {
      const answer = (await host.render(action(handler, { sku: `X-${handler}` }))).json.data;
      expect(answer.notifications).toHaveLength(1);
      expect(answer.notifications[0]).toMatchObject({ id: "step-error-saved", level: "ERROR" });
      expect(answer.notifications[0].message).toContain("upsertEntity");
    }
    expect(await products(host.t.auth)).toEqual(["Anchor"]);
    const allowed = (await host.render(action("allowed", { sku: "C-3" }))).json.data;
    expect(allowed.notifications).toEqual([]);
    expect(await products(host.t.auth)).toEqual(["Anchor", "C-3"]);
  });

  it("runs a readonly list and an inline job, their outputs in outputs.<stepId>", async () => {
    const host = await setup();
    const read = (await host.render(action("read", { sku: "A-1" }))).json.data;
    expect(read.notifications, JSON.stringify(read)).toEqual([]);
    expect(read.debug).toEqual(["Anchor"]);
    expect((await host.render(action("inlineJob", { sku: "A-1" }))).json.data.debug).toEqual(["Anchor"]);
  });

  it("fails a job on an unbound slot with JOB_SLOT_UNBOUND (its message from messages), and runs the job a binding names", async () => {
    const host = await setup();
    const unbound = (await host.render(action("slot"))).json.data;
    expect(unbound.notifications).toEqual([{ id: "step-error-e", level: "ERROR", message: "No job is connected for JOB_SLOT_UNBOUND" }]);
    const jobId = await publishJob(host.t);
    expect((await putConfig(host.t, host.specId, { job_bindings: { enrich: jobId } })).status).toBe(200);
    const bound = await host.render(action("slot"));
    expect(bound.status, bound.text).toBe(200);
    expect(bound.json.data.notifications).toEqual([]);
    expect(bound.json.data.debug).toHaveLength(1);
  });

  it("names the first problem of a config the action's schema refuses", async () => {
    const host = await setup();
    const answer = (await host.render(action("badConfig", { rows: 5 }))).json.data;
    expect(answer.notifications).toEqual([
      {
        id: "step-error-bad",
        level: "ERROR",
        message: "The actions step bad failed: The config of action upsertEntity does not satisfy its schema (config.data: must be array, got number)",
      },
    ]);
  });

  it("runs onError after a refused action, and the list goes on without a step error", async () => {
    const host = await setup();
    const answer = (await host.render(action("onError", { sku: "D-4" }))).json.data;
    expect(answer.notifications).toEqual([{ id: "fallback", level: "WARNING", message: "not saved" }]);
  });

  it("in an author's preview, refuses writing actions even under dataMutation", async () => {
    const host = await setup();
    const res = await call("POST", `/apps/${host.specId}/preview`, { auth: host.t.auth, body: action("write", { sku: "P-1" }) });
    expect(res.status, res.text).toBe(200);
    expect(res.json.data.notifications[0]).toMatchObject({ id: "step-error-saved", level: "ERROR" });
    expect(await products(host.t.auth)).toEqual(["Anchor"]);
  });

  it("answers once invokeWorkflow has handed its run over, not once the run ended; the run then goes on to success", async () => {
    const host = await setup();
    // The run's first answer comes seconds later: a render that waited for the run would answer after it ended.
    const s = await scenario({ "/slow": [{ status: 200, json: { done: true }, delayMs: 4000 }] });
    const child = await manualWorkflow(host.t, [{ id: "fetch", actions: [{ stepId: "get", name: "http", config: { url: s.url("/slow") } }] }]);
    const res = await host.render(action("invoke", { workflowId: child.id }));
    expect(res.status, res.text).toBe(200);
    expect(res.json.data.notifications).toEqual([]);
    const rows = await systemQuery(`SELECT id, status, parent_run_id FROM workflow_runs WHERE workflow_id = $1`, [child.id]);
    expect(rows).toHaveLength(1);
    const [run] = rows;
    expect(res.json.data.debug).toEqual([run.id]);
    expect(run.parent_run_id).toBeNull();
    expect(["pending", "running"]).toContain(run.status);
    // A second start waits behind the run's own and returns once its walk ended.
    await kickRuns(env, [{ tenantId: host.t.tenantId, runId: run.id }]);
    const ended = await runRecord(host.t, run.id);
    expect([ended.status, ended.outputs.fetch.get.body]).toEqual(["success", { done: true }]);
  });

  it("fails the invokeWorkflow step for an unknown workflow and for another tenant's, starting nothing", async () => {
    const host = await setup();
    const other = await createTenant();
    const foreign = await manualWorkflow(other, [{ id: "a", actions: [{ name: "pipe", config: {} }] }]);
    for (const workflowId of [crypto.randomUUID(), foreign.id]) {
      const answer = (await host.render(action("invoke", { workflowId }))).json.data;
      expect(answer.notifications).toHaveLength(1);
      expect(answer.notifications[0]).toMatchObject({ id: "step-error-inv", level: "ERROR" });
      expect(answer.notifications[0].message).toContain(`Workflow ${workflowId} not found`);
    }
    expect(await systemQuery(`SELECT id FROM workflow_runs WHERE tenant_id = $1 OR workflow_id = $2`, [host.t.tenantId, foreign.id])).toEqual([]);
  });
});
