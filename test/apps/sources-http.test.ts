// An app page's `$http` sources against the scripted outbound server: the
// request built from the page, the rows at `rowsPath`, the paged window from
// the grid's state and every total rule, one request per resolved source
// until invalidate, the 5000-row cap, retries, the deadline, auth profiles
// reading config secrets, and secrets kept out of what the render answers;
// through the gateway, a source past the deadline drops its widget alone.
import { createExecutionContext, env, waitOnExecutionContext } from "cloudflare:test";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DeadlineExceeded } from "../../src/apps/render/sources";
import worker from "../../src/index";
import type { ApiError } from "../../src/lib/errors";
import { BASE, createTenant, type TenantCreds } from "../support/api";
import { scenario } from "../support/outbound";
import { hostFor, hostProvider } from "./host-fixture";
import { oneDashboard } from "./render-pages-support";
import { closeDatabases, harness, pageScope } from "./sources-support";

let t: TenantCreds;
beforeAll(async () => {
  t = await createTenant();
});
afterAll(closeDatabases);

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected a failure");
}

const grid = (dataGrid: unknown) => pageScope({ widgets: { grid: { state: { data_grid: dataGrid } } } });

describe("$http", () => {
  it("sends the request the page resolves and answers the rows at rowsPath; no array there is no rows", async () => {
    const s = await scenario({ "/items": [{ json: { data: { items: [{ id: 1 }, { id: 2 }] } } }], "/odd": [{ json: { data: { items: "none" } } }] });
    const { sources } = await harness(t, {
      items: {
        $http: {
          url: s.url("/items"),
          method: "POST",
          headers: { "X-Region": "{{ page.params.region }}" },
          query: { q: "{{ page.params.q }}" },
          body: { region: "{{ page.params.region }}" },
          rowsPath: "data.items",
        },
      },
      odd: { $http: { url: s.url("/odd"), rowsPath: "data.items" } },
    });
    const scope = pageScope({ params: { region: "eu", q: "a b" } });
    expect(await sources.read("items", scope)).toEqual([{ id: 1 }, { id: 2 }]);
    expect(await sources.reference("items", scope, "grid")).toEqual({ rows: [{ id: 1 }, { id: 2 }], total: 2 });
    expect(await sources.read("odd", scope)).toEqual([]);
    const [seen] = await s.requests();
    expect([seen.method, seen.path, seen.headers["x-region"], seen.headers["content-type"], JSON.parse(seen.body)]).toEqual([
      "POST",
      "/items?q=a+b",
      "eu",
      "application/json",
      { region: "eu" },
    ]);
  });

  it("fetches an identical resolved request once per render, and again after invalidate", async () => {
    const s = await scenario({ "/list": [{ json: [{ v: 1 }] }, { json: [{ v: 2 }] }] });
    const { sources } = await harness(t, { a: { $http: { url: s.url("/list") } }, b: { $http: { url: "{{ page.params.url }}" } } });
    const scope = pageScope({ params: { url: s.url("/list") } });
    expect(await sources.read("a", scope)).toEqual([{ v: 1 }]);
    expect(await sources.read("b", scope)).toEqual([{ v: 1 }]);
    expect(await sources.read("a", scope)).toEqual([{ v: 1 }]);
    expect(await s.requests()).toHaveLength(1);
    sources.invalidate();
    expect(await sources.read("a", scope)).toEqual([{ v: 2 }]);
    expect(await s.requests()).toHaveLength(2);
  });

  it("keeps at most 5000 rows and warns http-source-truncated", async () => {
    const s = await scenario({ "/big": [{ json: Array.from({ length: 5003 }, (_, i) => i) }] });
    const { sources, notifications } = await harness(t, { big: { $http: { url: s.url("/big") } } });
    const { rows, total } = await sources.reference("big", pageScope(), "grid");
    expect([rows.length, rows.at(-1), total]).toEqual([5000, 4999, 5000]);
    expect(notifications).toEqual([{ id: "http-source-truncated", level: "WARNING", message: "Data source big answered 5003 rows; the first 5000 are kept." }]);
  });

  it("an upstream error fails the read; maxRetries retries a 5xx", async () => {
    const s = await scenario({ "/flaky": [{ status: 503, body: "busy" }, { json: [1] }], "/down": [{ status: 404, body: "gone" }] });
    const once = await harness(t, { flaky: { $http: { url: s.url("/flaky") } }, down: { $http: { url: s.url("/down"), maxRetries: 2 } } });
    const err = (await failure(once.sources.read("flaky", pageScope()))) as ApiError;
    expect([err.status, err.message, err.details.body_preview]).toEqual([400, "The $http source flaky answered 503", "busy"]);
    // A 404 is not worth repeating, whatever maxRetries says.
    expect(((await failure(once.sources.read("down", pageScope()))) as ApiError).details.status).toBe(404);
    const s2 = await scenario({ "/flaky": [{ status: 503, body: "busy" }, { json: [1] }] });
    const retried = await harness(t, { flaky: { $http: { url: s2.url("/flaky"), maxRetries: 1 } } });
    expect(await retried.sources.read("flaky", pageScope())).toEqual([1]);
    expect(await s2.requests()).toHaveLength(2);
    expect(await s.requests()).toHaveLength(2);
  });

  it("a request still pending at the render's deadline fails with DeadlineExceeded", async () => {
    const s = await scenario({ "/slow": [{ delayMs: 3000, json: [1] }] });
    const { sources } = await harness(t, { slow: { $http: { url: s.url("/slow") } } }, { deadline: Date.now() + 300 });
    const started = Date.now();
    expect(await failure(sources.read("slow", pageScope()))).toBeInstanceOf(DeadlineExceeded);
    expect(Date.now() - started).toBeLessThan(2500);
  });

  it("refuses a target the guard refuses", async () => {
    const { sources } = await harness(t, { internal: { $http: { url: "http://10.0.0.1/x" } } });
    const err = (await failure(sources.read("internal", pageScope()))) as ApiError;
    expect([err.status, err.details.code]).toEqual([400, "OUTBOUND_TARGET_REFUSED"]);
  });
});

describe("paged $http", () => {
  const paged = (url: string, extra: Record<string, unknown>) => ({
    $http: {
      url,
      query: {
        page: "{{ paging.page }}",
        limit: "{{ paging.pageSize }}",
        offset: "{{ paging.offset }}",
        sort: "{{ paging.sortBy }}",
        desc: "{{ paging.desc }}",
        status: "{{ paging.filters.status }}",
      },
      rowsPath: "rows",
      ...extra,
    },
  });

  it("asks for the grid's page (clamped to 1, 20 by default) and reports totalPath's number", async () => {
    const s = await scenario({ "/p": [{ json: { rows: [{ id: 1 }, { id: 2 }], meta: { total: 42 } } }] });
    const { sources } = await harness(t, { orders: paged(s.url("/p"), { paged: { totalPath: "meta.total" } }) }, { grids: { orders: "grid" } });
    expect(
      await sources.reference("orders", grid({ page: 3, pageSize: 2, sorting: [{ id: "name", desc: true }], filters: { status: "open" } }), "grid"),
    ).toEqual({ rows: [{ id: 1 }, { id: 2 }], total: 42 });
    // read() pages as the grid bound to the source does.
    expect(await sources.read("orders", grid({ page: 0 }))).toEqual([{ id: 1 }, { id: 2 }]);
    const paths = (await s.requests()).map((r) => r.path);
    expect(paths).toEqual(["/p?page=3&limit=2&offset=4&sort=name&desc=true&status=open", "/p?page=1&limit=20&offset=0&desc=false"]);
  });

  it("hasNextPath: the rows so far plus a page while it is truthy", async () => {
    const s = await scenario({ "/more": [{ json: { rows: [1, 2], next: "c" } }], "/last": [{ json: { rows: [1], next: null } }] });
    const { sources } = await harness(t, {
      more: paged(s.url("/more"), { paged: { hasNextPath: "next" } }),
      last: paged(s.url("/last"), { paged: { hasNextPath: "next" } }),
    });
    expect((await sources.reference("more", grid({ page: 2, pageSize: 2 }), "grid")).total).toBe(6);
    expect((await sources.reference("last", grid({ page: 2, pageSize: 2 }), "grid")).total).toBe(3);
  });

  it("neither: the rows so far plus a page while the page is full; an empty page is still answered", async () => {
    const s = await scenario({ "/full": [{ json: { rows: [1, 2] } }], "/short": [{ json: { rows: [1] } }], "/empty": [{ json: { rows: [] } }] });
    const { sources } = await harness(t, {
      full: paged(s.url("/full"), { paged: {} }),
      short: paged(s.url("/short"), { paged: {} }),
      empty: paged(s.url("/empty"), { paged: {} }),
    });
    const at = grid({ page: 3, pageSize: 2 });
    expect(await sources.reference("full", at, "grid")).toEqual({ rows: [1, 2], total: 8 });
    expect(await sources.reference("short", at, "grid")).toEqual({ rows: [1], total: 5 });
    expect(await sources.reference("empty", at, "grid")).toEqual({ rows: [], total: 4 });
  });

  it("another page of the grid is another request", async () => {
    const s = await scenario({ "/p": [{ json: { rows: [1] } }] });
    const { sources } = await harness(t, { orders: paged(s.url("/p"), { paged: {} }) });
    await sources.reference("orders", grid({ page: 1, pageSize: 1 }), "grid");
    await sources.reference("orders", grid({ page: 1, pageSize: 1 }), "grid");
    await sources.reference("orders", grid({ page: 2, pageSize: 1 }), "grid");
    expect((await s.requests()).map((r) => r.path)).toEqual(["/p?page=1&limit=1&offset=0&desc=false", "/p?page=2&limit=1&offset=1&desc=false"]);
  });
});

describe("$http auth and secrets", () => {
  const token = "crm-token-7d3f9a";

  it("a named profile reads a config secret; the credential and what expressions computed from it reach only the request", async () => {
    const s = await scenario({ "/me": [{ json: [{ echo: token, name: "ada" }] }] });
    const { sources, secrets } = await harness(
      t,
      {
        me: {
          $http: { url: s.url("/me"), auth: "crm", headers: { "X-Sig": "{{ $uppercase(config.app.crmToken) }}" } },
          $pipe: [{ map: "{ 'name': name, 'hint': $substring(echo, 0, 6) }" }],
        },
        leak: { $rows: [{ t: "{{ config.app.crmToken }}" }], $pipe: [{ map: "$length(t) & ' chars'" }] },
      },
      { secrets: [token], authProfiles: { crm: { type: "bearer", token: "{{ config.app.crmToken }}" } } },
    );
    const scope = pageScope({ config: { app: { crmToken: token } } });
    const rows = await sources.read("me", scope);
    const [seen] = await s.requests();
    expect([seen.headers.authorization, seen.headers["x-sig"]]).toEqual([`Bearer ${token}`, token.toUpperCase()]);
    // The caller masks what it answers with the render's secrets: the echo, and every value computed from a secret.
    expect(secrets.value({ rows, header: token.toUpperCase() })).toEqual({ rows: [{ name: "ada", hint: "***" }], header: "***" });
    expect(secrets.value(await sources.read("leak", scope))).toEqual(["***"]);
  });

  it("a profile whose secret is missing, or that is not declared, fails the read", async () => {
    const s = await scenario({ "/me": [{ json: [] }] });
    const { sources } = await harness(
      t,
      { me: { $http: { url: s.url("/me"), auth: "crm" } }, unknown: { $http: { url: s.url("/me"), auth: "nope" } } },
      { authProfiles: { crm: { type: "bearer", token: "{{ config.app.crmToken }}" } } },
    );
    const empty = (await failure(sources.read("me", pageScope()))) as ApiError;
    expect(empty.details.code).toBe("HTTP_AUTH_INVALID_CREDENTIAL");
    expect(((await failure(sources.read("unknown", pageScope()))) as ApiError).details.code).toBe("HTTP_AUTH_PROFILE_UNKNOWN");
    expect(await s.requests()).toEqual([]);
  });
});

describe("$http through the gateway", () => {
  it("a source that outlives the render's deadline drops its widget with widget-timeout-<id> naming it; the rest is rendered", async () => {
    const s = await scenario({ "/slow": [{ delayMs: 5000, json: [1] }] });
    const page = {
      dataSources: { slow: { $http: { url: s.url("/slow") } }, quick: { $rows: [{ n: 1 }, { n: 2 }] } },
      widgets: {
        late: { widgetComponent: "data_grid", dataSource: "slow" },
        title: { widgetComponent: "heading", config: { text: "{{ $count(page.dataSources.quick) }} rows" } },
      },
      layout: [["title"], ["late"]],
    };
    const host = await hostFor(oneDashboard(page, { providers: hostProvider }));
    // A render deadline the scripted delay outlives: the binding the gateway reads it from, set low for this request.
    const ctx = createExecutionContext();
    const started = Date.now();
    const res = await worker.fetch(
      new Request(`${BASE}/apps/run/${host.integrationId}`, {
        method: "POST",
        headers: { Authorization: `Bearer ${host.token}`, "Content-Type": "application/json" },
        body: JSON.stringify({ user: "u-1", company: "acme" }),
      }),
      { ...env, APP_RENDER_DEADLINE_MS: "400" },
      ctx,
    );
    await waitOnExecutionContext(ctx);
    const answer = (await res.json()) as { data: { surfaces: { blocks: unknown[] }[]; notifications: unknown[] } };
    expect(res.status).toBe(200);
    expect(Date.now() - started).toBeLessThan(4000);
    expect(answer.data.notifications).toEqual([
      { id: "widget-timeout-late", level: "WARNING", message: "The widget late took too long to load.", details: { code: "TIMEOUT", source: "slow" } },
    ]);
    expect(answer.data.surfaces[0].blocks).toEqual([
      { component: "row", children: [{ id: "title", widgetComponent: "heading", props: { text: "2 rows" } }] },
      { component: "row", children: [] },
    ]);
  });
});
