// A dispatch by a trigger the isolate has seen is one round trip: the run is
// inserted only while the trigger and activation rows are the versions read
// (workflows/dispatch.ts). Every change to them counts on the very next
// dispatch, which reads the trigger again and decides as an uncached one.
import { describe, expect, it } from "vitest";
import { call, createTenant, expectError, systemQuery, type TenantCreds } from "../support/api";
import { activateWorkflow, activeWorkflow, minimalDefinition } from "./fixture";

const dispatch = (t: TenantCreds, body: Record<string, unknown>) => call("POST", "/workflows/wr", { auth: t.auth, body });
const runCount = async (workflowId: string) => (await systemQuery("SELECT count(*)::int AS n FROM workflow_runs WHERE workflow_id = $1", [workflowId]))[0].n;

describe("dispatch by a cached trigger", () => {
  it("a trigger disabled after it was cached is 422 and starts nothing; enabled again, it starts runs", async () => {
    const t = await createTenant();
    const { id } = await activeWorkflow(t, minimalDefinition());
    for (let i = 0; i < 2; i++) expect((await dispatch(t, { workflow_id: id, trigger_id: "manual" })).status).toBe(202);
    expect((await call("PUT", `/workflows/${id}/triggers/manual/disable`, { auth: t.auth })).status).toBe(200);
    expectError(await dispatch(t, { workflow_id: id, trigger_id: "manual" }), 422, "UNPROCESSABLE_ENTITY");
    expect(await runCount(id)).toBe(2);
    expect((await call("PUT", `/workflows/${id}/triggers/manual/enable`, { auth: t.auth })).status).toBe(200);
    expect((await dispatch(t, { workflow_id: id, trigger_id: "manual" })).status).toBe(202);
    expect(await runCount(id)).toBe(3);
  });

  it("an activation changed after the trigger was cached starts the run on the new version, with the new trigger's contextData", async () => {
    const t = await createTenant();
    const trigger = (source: string) => ({ id: "manual", webhook: { methods: ["POST"] }, contextData: { source } });
    const { id } = await activeWorkflow(t, minimalDefinition({ triggers: [trigger("v1")] }));
    expect((await dispatch(t, { workflow_id: id, trigger_id: "manual" })).status).toBe(202);
    const put = await call("PUT", `/definition/workflows/${id}`, {
      auth: t.auth,
      body: { name: "wf-v2", definition_json: minimalDefinition({ triggers: [trigger("v2")] }) },
    });
    expect(put.status, put.text).toBe(200);
    await activateWorkflow(t, id);
    const second = await dispatch(t, { workflow_id: id, trigger_id: "manual" });
    expect(second.status, second.text).toBe(202);
    const [run] = await systemQuery("SELECT workflow_version, context->'data' AS data FROM workflow_runs WHERE id = $1", [second.json.data.workflow_run.id]);
    const [activation] = await systemQuery("SELECT version FROM workflow_activations WHERE workflow_id = $1", [id]);
    expect(run).toEqual({ workflow_version: activation.version, data: { source: "v2" } });
  });

  it("a repeated idempotency key answers the earlier run from the cached trigger too", async () => {
    const t = await createTenant();
    const { id } = await activeWorkflow(
      t,
      minimalDefinition({ triggers: [{ id: "manual", webhook: { methods: ["POST"] }, idempotencyKey: "{{ context.input.order }}" }] }),
    );
    const first = await dispatch(t, { workflow_id: id, trigger_id: "manual", input: { order: 1 } });
    const again = await dispatch(t, { workflow_id: id, trigger_id: "manual", input: { order: 1 } });
    expect(again.json.data.workflow_run.id).toBe(first.json.data.workflow_run.id);
    expect(await runCount(id)).toBe(1);
  });
});
