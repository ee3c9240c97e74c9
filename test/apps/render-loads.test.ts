// What one host render asks of Postgres: the identity step loads the
// integration, activation and spec version once (identity/target.ts), or,
// kept in the isolate, reads only its guard's versions of them
// (identity/cache.ts); the render context, and its reload after a command
// writes, read them from there instead of loading them again.
import { Client } from "@neondatabase/serverless";
import { afterEach, describe, expect, it, vi } from "vitest";
import { call, createTenant, systemQuery } from "../support/api";
import { insertSpec, putConfig, registerCompany, shareSpec } from "./fixture";
import { hostFor, hostProvider } from "./host-fixture";

const spec = {
  dashboards: {
    main: {
      surfaces: { dashboard: "home" },
      pages: {
        home: {
          widgets: {
            title: { widgetComponent: "heading", config: { text: "{{ config.app.title }} {{ config.integration.region }} {{ config.user.theme }}" } },
            save: { widgetComponent: "button", actionHandlers: { click: [{ kind: "setPrincipalConfig", principalType: "user", config: { theme: "dark" } }] } },
          },
          layout: [["title", "save"]],
        },
      },
    },
  },
  config: { integration: { region: "eu" } },
  providers: hostProvider,
};

/** The statements the Worker sends from now on, on its connections and in its HTTP requests, and how many HTTP requests. */
function recordStatements() {
  const texts: string[] = [];
  let requests = 0;
  const query = Client.prototype.query;
  vi.spyOn(Client.prototype, "query").mockImplementation(function (this: Client, ...args: unknown[]) {
    const first = args[0];
    texts.push(typeof first === "string" ? first : String((first as { text?: string } | undefined)?.text ?? ""));
    return Reflect.apply(query, this, args);
  });
  const fetch = globalThis.fetch;
  vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
    const url = input instanceof Request ? input.url : String(input);
    if (new URL(url).pathname === "/sql" && typeof init?.body === "string") {
      requests++;
      const body = JSON.parse(init.body) as { query?: string; queries?: { query: string }[] };
      texts.push(...(body.queries ?? [body]).map((q) => q.query ?? ""));
    }
    return fetch(input, init);
  });
  return {
    reading: (table: string) => texts.filter((text) => new RegExp(`\\b${table}\\b`).test(text)).length,
    requests: () => requests,
  };
}

/** The title widget's text, as the dashboard shows it. */
const title = (answer: { data: { surfaces: { blocks: { children: { id: string; props: { text: string } }[] }[] }[] } }) =>
  answer.data.surfaces[0].blocks.flatMap((block) => block.children).find((widget) => widget.id === "title")?.props.text;

afterEach(() => {
  vi.restoreAllMocks();
});

describe("one host render", () => {
  it("reads the spec, activation and integration in the identity step only, after a config write too", async () => {
    const host = await hostFor(spec, { config: { title: "T" } });
    // The first render provisions the user; count one that finds it.
    expect((await host.render()).status).toBe(200);

    const plain = recordStatements();
    const rendered = await host.render();
    expect(rendered.status, rendered.text).toBe(200);
    expect(title(rendered.json)).toBe("T eu ");
    // The identity kept from the first render: its guard is the one statement naming them, beside the context, in one request.
    expect(plain.reading("app_specs")).toBe(1);
    expect(plain.reading("app_activations")).toBe(1);
    expect(plain.reading("app_integrations")).toBe(1);
    expect(plain.requests()).toBe(1);
    vi.restoreAllMocks();

    const acting = recordStatements();
    const acted = await host.render({ action: { widgetId: "save", handler: "click" } });
    expect(acted.status, acted.text).toBe(200);
    expect(title(acted.json)).toBe("T eu dark");
    // The context reloaded after the write reads the principals and secrets only.
    expect(acting.reading("app_integrations")).toBe(1);
  });
});

describe("a consumer's render of a shared spec", () => {
  it("is 404 once the owner withdraws the share, as the tenant's own read of the spec answers", async () => {
    const [owner, consumer] = [await createTenant(), await createTenant()];
    const published = await insertSpec(owner, [spec]);
    await shareSpec(owner, published, consumer);
    expect((await putConfig(consumer, published.id, {})).status).toBe(200);
    const company = await registerCompany(consumer, "host", "acme");
    const integration = await call("POST", `/apps/${published.id}/integrations`, { auth: consumer.auth, body: { external_company_id: company.id } });
    expect(integration.status, integration.text).toBe(201);
    const minted = await call("PUT", `/apps/${published.id}/integrations/${integration.json.data.id}/token`, { auth: consumer.auth });
    const render = () =>
      call("POST", `/apps/run/${integration.json.data.id}`, { auth: `Bearer ${minted.json.raw_token}`, body: { user: "u-1", company: "acme" } });
    expect((await render()).status).toBe(200);

    await systemQuery(`DELETE FROM shares WHERE tenant_id = $1 AND target_tenant_id = $2`, [owner.tenantId, consumer.tenantId]);
    const refused = await render();
    expect(refused.status, refused.text).toBe(404);
    expect(refused.json.error.code).toBe("NOT_FOUND");
    expect(refused.json.error.message).toContain(published.id);
  });
});
