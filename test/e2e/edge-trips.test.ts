// Round trips to Postgres per write, counted by the latency proxy
// (scripts/lib/latency-proxy.mjs) between the Worker in workerd and the
// bridge, as `npm run bench -- edge` counts them: a write whose statements
// are known up front is one HTTP request (docs/architecture.md, "What a write
// costs"). Only the requests to the HTTP endpoint are counted here: work a
// write leaves behind (its event's delivery, its run's start) speaks on
// WebSockets of its own and may or may not have started before the answer.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startBenchEnv } from "../../scripts/lib/bench-env.mjs";
import { startLatencyProxy } from "../../scripts/lib/latency-proxy.mjs";

const QUIET_MS = 300;

let proxy: Awaited<ReturnType<typeof startLatencyProxy>>;
let env: Awaited<ReturnType<typeof startBenchEnv>>;

beforeAll(async () => {
  proxy = await startLatencyProxy();
  env = await startBenchEnv({ vars: { NEON_WS_PROXY: `127.0.0.1:${proxy.port}` } });
  const [host, port] = env.wsProxy.split(":");
  proxy.setUpstream(host!, Number(port));
});

afterAll(async () => {
  await env?.stop();
  await proxy?.stop();
});

async function quiet() {
  while (performance.now() - proxy.counters().lastActivity < QUIET_MS) await new Promise((r) => setTimeout(r, QUIET_MS / 3));
}

/** The HTTP round trips of one request, after the proxy went quiet; its status checked. */
async function httpTrips(url: string, init: RequestInit, status: number): Promise<{ trips: number; body: any }> {
  await quiet();
  const before = proxy.counters().httpTrips;
  const res = await fetch(url, init);
  const text = await res.text();
  const trips = proxy.counters().httpTrips - before;
  expect(res.status, text).toBe(status);
  return { trips, body: text ? JSON.parse(text) : undefined };
}

describe("round trips of a write", () => {
  it("create 1, patch 2, delete 1, dispatch 1 (2 for a trigger not seen yet), a webhook's 202 2, a 10-row upsert 1", async () => {
    const json = { Authorization: env.auth, "Content-Type": "application/json" };
    await env.api("POST", "/entity/entity-types", {
      name: "Trip",
      status: "active",
      schema: { type: "object", required: ["sku"], properties: { sku: { type: "string" }, n: { type: "integer" } } },
      config: { identifier_key: ["sku"] },
    });
    const workflow = (
      await env.api("POST", "/definition/workflows", {
        name: "trips-hook",
        definition_json: { jobs: [{ id: "j", actions: [{ name: "pipe", config: { value: 1 } }] }], triggers: [{ id: "hook", webhook: { methods: ["POST"] } }] },
      })
    ).data;
    const activation = (await env.api("POST", `/workflows/${workflow.id}/activate`, {})).data;
    const hookUrl = JSON.stringify(activation).match(/"webhook_url":"([^"]+)"/)![1]!;
    const create = (sku: string) =>
      httpTrips(
        `${env.base}/entity/entities`,
        { method: "POST", headers: json, body: JSON.stringify({ type_name: "Trip", name: sku, attributes: { sku } }) },
        201,
      );
    // The first create caches the caller and the type in the isolate.
    await create("warm");

    const created = await create("T-1");
    expect(created.trips).toBe(1);
    const id = created.body.data.id;
    const patched = await httpTrips(
      `${env.base}/entity/entities/${id}/attributes`,
      { method: "PATCH", headers: json, body: JSON.stringify({ attributes: { n: 2 } }) },
      200,
    );
    expect(patched.trips).toBe(2);
    expect(patched.body.data.attributes).toEqual({ sku: "T-1", n: 2 });
    expect((await httpTrips(`${env.base}/entity/entities/${id}`, { method: "DELETE", headers: json }, 200)).trips).toBe(1);
    const dispatch = () =>
      httpTrips(
        `${env.base}/workflows/wr`,
        { method: "POST", headers: json, body: JSON.stringify({ workflow_id: workflow.id, trigger_id: "hook", input: {} }) },
        202,
      );
    // The first reads the trigger; the isolate holds it for the next.
    expect((await dispatch()).trips).toBe(2);
    expect((await dispatch()).trips).toBe(1);
    const hooked = await httpTrips(hookUrl, { method: "POST", headers: { "Content-Type": "application/json" }, body: "{}" }, 202);
    expect(hooked.trips).toBe(2);
    // The type is cached by the creates: a 10-row upsert by key is its one batch.
    const upsert10 = await httpTrips(
      `${env.base}/entity/entities/upsert`,
      {
        method: "POST",
        headers: json,
        body: JSON.stringify({ type_name: "Trip", data: Array.from({ length: 10 }, (_, i) => ({ name: `U-${i}`, attributes: { sku: `U-${i}`, n: i } })) }),
      },
      200,
    );
    expect(upsert10.trips).toBe(1);
    expect(upsert10.body.data).toMatchObject({ created: 10, updated: 0, unchanged: 0, ignored: 0 });
  });
});
