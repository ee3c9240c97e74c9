// A host render by waves (apps/render/waves.ts): once the isolate has seen
// the integration and the user, a render of independent `$query` sources is
// two requests to the database (its identity's guard beside the render
// context, then every source's page and count together) and no WebSocket;
// each source answers as its own query would, a failing one drops its
// widget only, a tenant's sources read its rows only, and a change the
// guard watches counts on the very next render.
import { Client } from "@neondatabase/serverless";
import { afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { call, createTenant, systemQuery, type TenantCreds } from "../support/api";
import { createEntity, createType } from "../support/entities";
import { hostFor, hostProvider, type Host } from "./host-fixture";

const TYPE = "WaveItem";

const query = (value: string, extra: Record<string, unknown> = {}) => ({
  $query: { typeName: TYPE, filter: { operator: "eq", path: ["attributes", "category"], value }, sort: [{ path: ["name"] }], limit: 2, ...extra },
});

const spec = {
  dashboards: {
    main: {
      surfaces: { dashboard: "home" },
      pages: {
        home: {
          dataSources: {
            a: query("cat-a"),
            b: query("cat-b"),
            // A LIKE pattern may not end with its escape character: the engine refuses it (a statement failing in Postgres is test/db/read-wave.test.ts's).
            bad: { $query: { typeName: TYPE, filter: { operator: "ilike", path: ["attributes", "category"], value: "cat\\" } } },
            c: query("cat-c"),
          },
          widgets: {
            a: { widgetComponent: "data_grid", dataSource: "a" },
            b: { widgetComponent: "data_grid", dataSource: "b" },
            bad: { widgetComponent: "data_grid", dataSource: "bad" },
            c: { widgetComponent: "data_grid", dataSource: "c" },
          },
          layout: [["a", "b", "c", "bad"]],
        },
      },
    },
  },
  providers: hostProvider,
  policies: { readers: { grants: [{ resource: "entity", actions: ["read"], resourceName: TYPE }] } },
  defaultPolicy: "readers",
};

/** A tenant with the type, three entities in each of cat-a, cat-b and cat-c named after `tag`, and the app. */
async function tenantWithApp(tag: string): Promise<{ t: TenantCreds; host: Host }> {
  const t = await createTenant();
  await createType(t.auth, {
    name: TYPE,
    schema: { type: "object", required: ["sku", "category"], properties: { sku: { type: "string" }, category: { type: "string" } } },
    config: { identifier_key: ["sku"], indexed_attributes: [{ path: ["category"], type: "text" }] },
  });
  for (const category of ["cat-a", "cat-b", "cat-c"]) {
    for (const n of [1, 2, 3]) await createEntity(t.auth, TYPE, `${tag} ${category} ${n}`, { sku: `${category}-${n}`, category });
  }
  return { t, host: await hostFor(spec, { tenant: t }) };
}

/** HTTP requests to the SQL endpoint and statements on WebSocket connections, from now on. */
function countDatabase() {
  let requests = 0;
  let statements = 0;
  const fetch = globalThis.fetch;
  vi.spyOn(globalThis, "fetch").mockImplementation((input, init) => {
    if (new URL(input instanceof Request ? input.url : String(input)).pathname === "/sql") requests++;
    return fetch(input, init);
  });
  const query = Client.prototype.query;
  vi.spyOn(Client.prototype, "query").mockImplementation(function (this: Client, ...args: unknown[]) {
    statements++;
    return Reflect.apply(query, this, args);
  });
  return () => ({ requests, statements });
}

type Answer = {
  data: {
    referenceData: Record<string, { rows: { name: string }[]; total: number }>;
    notifications: { level: string; details?: { source?: string; code?: string } }[];
  };
};

const shown = (answer: Answer) =>
  Object.fromEntries(Object.entries(answer.data.referenceData).map(([id, ref]) => [id, { names: ref.rows.map((r) => r.name), total: ref.total }]));

let one: { t: TenantCreds; host: Host };
let other: { t: TenantCreds; host: Host };

beforeAll(async () => {
  [one, other] = await Promise.all([tenantWithApp("one"), tenantWithApp("other")]);
});

afterEach(() => {
  vi.restoreAllMocks();
});

describe("a render by waves", () => {
  it("reads its sources together once its identity is cached, each answering as its own query, a failing one dropping its widget only", async () => {
    expect((await one.host.render()).status).toBe(200);
    const counted = countDatabase();
    const res = await one.host.render();
    expect(res.status, res.text).toBe(200);
    expect(shown(res.json)).toEqual({
      a: { names: ["one cat-a 1", "one cat-a 2"], total: 3 },
      b: { names: ["one cat-b 1", "one cat-b 2"], total: 3 },
      c: { names: ["one cat-c 1", "one cat-c 2"], total: 3 },
    });
    const errors = (res.json as Answer).data.notifications.filter((n) => n.level === "ERROR");
    expect(errors.map((n) => n.details)).toEqual([{ code: "VALIDATION_FAILED", source: "bad" }]);
    // The guard beside the context; every page and count of the three sources.
    expect(counted()).toEqual({ requests: 2, statements: 0 });

    const alone = await call("POST", "/entity/query", {
      auth: one.t.auth,
      body: {
        type_name: TYPE,
        filter: { operator: "eq", path: ["attributes", "category"], value: "cat-b" },
        sort: [{ path: ["name"] }],
        limit: 2,
        include_count: true,
      },
    });
    expect({ names: alone.json.data.map((e: { name: string }) => e.name), total: alone.json.count }).toEqual(shown(res.json).b);
  });

  it("reads a tenant's own rows only, when two tenants render at once", async () => {
    const [mine, theirs] = await Promise.all([one.host.render(), other.host.render()]);
    expect(shown(mine.json).a.names).toEqual(["one cat-a 1", "one cat-a 2"]);
    expect(shown(theirs.json).a.names).toEqual(["other cat-a 1", "other cat-a 2"]);
  });

  it("counts a change its cached identity rests on at the next render: a grant withdrawn, a user deactivated, the integration disabled", async () => {
    const { t, host } = await tenantWithApp("guarded");
    expect((await host.render()).status).toBe(200);
    expect(shown((await host.render()).json).a.total).toBe(3);

    const [activation] = await systemQuery(`SELECT policy_id FROM app_activations WHERE spec_id = $1`, [host.specId]);
    await systemQuery(`DELETE FROM grants WHERE policy_id = $1`, [activation.policy_id]);
    const refused = (await host.render()).json as Answer;
    expect(refused.data.referenceData).toEqual({});
    expect(new Set(refused.data.notifications.map((n) => n.details?.code))).toEqual(new Set(["FORBIDDEN"]));

    const [mapping] = await systemQuery(`SELECT id FROM external_users WHERE tenant_id = $1 AND external_id = 'u-1'`, [t.tenantId]);
    expect((await call("PUT", `/access/external-users/${mapping.id}`, { auth: t.auth, body: { is_active: false } })).status).toBe(200);
    const inactive = await host.render();
    expect([inactive.status, inactive.json.error?.details?.code]).toEqual([403, "EXTERNAL_USER_INACTIVE"]);

    expect((await host.render({ user: "u-2" })).status).toBe(200);
    const disabled = await call("PUT", `/apps/${host.specId}/integrations/${host.integrationId}`, { auth: t.auth, body: { is_enabled: false } });
    expect(disabled.status, disabled.text).toBe(200);
    const off = await host.render({ user: "u-2" });
    expect([off.status, off.json.error?.code]).toEqual([403, "FORBIDDEN"]);
  });
});
