// Each webhook trigger is its own identity with its own budget. Runs in the
// `rate-limits` project (RATE_LIMIT_IP=8, RATE_LIMIT_IDENTITY=3 per rolling
// 60 s): every call here comes from a fresh client address, so only the
// trigger's budget is spent, and the workflow is made with two authenticated
// calls, within the tenant token's own budget of 3.
import { describe, expect, it } from "vitest";
import { call, createTenant, expectError, systemQuery } from "../support/api";
import { activeWorkflow, minimalDefinition } from "./fixture";

const IDENTITY_LIMIT = 3;

const freshIp = () => `2001:db8:${crypto.randomUUID().slice(0, 4)}::${crypto.randomUUID().slice(0, 4)}`;

const hook = (uuid: string) =>
  call("POST", `/workflows/hooks/${uuid}`, { rawBody: "{}", headers: { "Content-Type": "application/json", "CF-Connecting-IP": freshIp() } });

describe("webhook budgets", () => {
  it("a trigger's 4th call in the window is 429 {scope: identity, limit}; another trigger of the same workflow keeps its own budget", async () => {
    const t = await createTenant();
    const { activation } = await activeWorkflow(
      t,
      minimalDefinition({
        triggers: [
          { id: "a", webhook: { methods: ["POST"] } },
          { id: "b", webhook: { methods: ["POST"] } },
        ],
      }),
    );
    const [a, b] = activation.triggers.map((x) => x.trigger_id);
    for (let remaining = IDENTITY_LIMIT - 1; remaining >= 0; remaining--) {
      const res = await hook(a);
      expect(res.status, res.text).toBe(202);
      expect(res.headers.get("X-Rate-Limit-Limit")).toBe(String(IDENTITY_LIMIT));
      expect(res.headers.get("X-Rate-Limit-Remaining")).toBe(String(remaining));
    }
    const limited = await hook(a);
    expect(expectError(limited, 429, "TOO_MANY_REQUESTS").details).toEqual({ scope: "identity", limit: IDENTITY_LIMIT, request_id: expect.any(String) });
    expect((await hook(b)).status).toBe(202);
    const runs = await systemQuery("SELECT trigger_key, count(*)::int AS n FROM workflow_runs WHERE tenant_id = $1 GROUP BY trigger_key ORDER BY trigger_key", [
      t.tenantId,
    ]);
    expect(runs).toEqual([
      { trigger_key: "a", n: IDENTITY_LIMIT },
      { trigger_key: "b", n: 1 },
    ]);
  });
});
