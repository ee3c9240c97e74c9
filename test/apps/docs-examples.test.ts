// Every spec example of docs/apps.md and README.md (the blocks marked `json
// spec` or `sh spec`: test/support/doc-examples.ts) published, activated and
// rendered through the gateway, so a doc cannot drift from the service: no
// ERROR notification, and every widget the entry pages lay out outside a
// gate is on screen. The complete example of docs/apps.md is also rendered
// for a host's user, whose grid and record handlers run (a preview writes
// nothing, so the write is checked there).
import { describe, expect, it } from "vitest";
import apps from "../../docs/apps.md?raw";
import readme from "../../README.md?raw";
import { specExamples, type DocExample } from "../support/doc-examples";
import { call, createTenant, type TenantCreds } from "../support/api";
import { createEntity, createType } from "../support/entities";
import { scenario } from "../support/outbound";
import { insertSpec, putConfig, registerCompany, registerSchema } from "./fixture";

const examples = [...specExamples("docs/apps.md", apps), ...specExamples("README.md", readme)];

type Obj = Record<string, any>;

/** What an example needs around it, and what its previews send besides. */
interface World {
  preview: Obj;
  /** The complete example's order, for its handlers. */
  orderId?: string;
  /** The document with the ids it holds as placeholders (a share's tenant) made real. */
  document?(document: Obj): Obj;
}

/** The world an example assumes, by the heading above it (an example without an entry assumes nothing). */
const WORLDS: Record<string, (t: TenantCreds) => Promise<World>> = {
  async "A complete example"(t) {
    await createType(t.auth, {
      name: "order",
      schema: {
        type: "object",
        required: ["number"],
        properties: { number: { type: "string" }, status: { enum: ["open", "paid"] }, total: { type: "number" }, customerId: { type: "string" } },
      },
      config: { identifier_key: ["number"] },
    });
    const order = await createEntity(t.auth, "order", "First order", { number: "A-1", status: "open", total: 30, customerId: "c-1" });
    await registerSchema(t, "orders-app-config", {
      type: "object",
      properties: { crmUrl: { type: "string" }, crmToken: { type: "string" }, startDashboard: { type: "string" } },
    });
    const crm = await scenario({ "/customers": [{ json: { data: { items: [{ id: "c-1", name: "Acme" }] } } }] });
    // Publish refuses a share naming no tenant.
    const partner = await createTenant();
    const document = (doc: Obj) => ({ ...doc, shares: doc.shares.map((share: Obj) => ({ ...share, tenantId: partner.tenantId })) });
    return {
      orderId: order.id,
      document,
      preview: { identity: { user_external_id: "u-1", company_external_id: "acme" }, config: { app: { crmUrl: crm.url(""), crmToken: "crm-token-1" } } },
    };
  },
  async "An app rendered for a host"() {
    return { preview: { identity: { user_external_id: "u-1", company_external_id: "acme" }, config: { app: { greeting: "welcome" } } } };
  },
};

/** Publishes and activates the example in a fresh tenant. */
async function published(example: DocExample) {
  const t = await createTenant();
  const world = (await WORLDS[example.heading]?.(t)) ?? { preview: {} };
  const spec = await insertSpec(t, [world.document?.(example.document) ?? example.document]);
  const activated = await putConfig(t, spec.id, {});
  expect(activated.status, activated.text).toBe(200);
  const preview = async (body: Obj = {}) => {
    const res = await call("POST", `/apps/${spec.id}/preview`, { auth: t.auth, body: { ...world.preview, ...body } });
    expect(res.status, res.text).toBe(200);
    return res.json.data as Obj;
  };
  return { t, world, preview };
}

/** The widget ids of blocks, nested ones included. */
function shownIds(blocks: Obj[]): string[] {
  return blocks.flatMap((block) => [...(typeof block.widgetComponent === "string" ? [block.id] : []), ...shownIds(block.children ?? [])]);
}

/** The widget ids a layout shows whatever its gates decide: rows and inline nodes' children. */
function laidOut(layout: unknown): string[] {
  if (typeof layout === "string") return [layout];
  if (Array.isArray(layout)) return layout.flatMap(laidOut);
  if (layout && typeof layout === "object" && Array.isArray((layout as Obj).children)) return laidOut((layout as Obj).children);
  return [];
}

const errorsOf = (answer: Obj) => answer.notifications.filter((n: Obj) => n.level === "ERROR");

describe("the spec examples of docs/apps.md and README.md", () => {
  it("there are examples to run, and every world names one", () => {
    expect(examples.map((e) => e.heading)).toEqual(expect.arrayContaining(Object.keys(WORLDS)));
  });

  it.each(examples.map((e) => [e.where, e] as const))("%s publishes, activates and renders without an error", async (_where, example) => {
    const { preview } = await published(example);
    const answer = await preview();
    expect(errorsOf(answer)).toEqual([]);
    const dashboards = example.document.dashboards as Obj;
    const key = answer.state.dashboard as string;
    const pages = { ...(example.document.pages as Obj), ...dashboards[key].pages };
    for (const surface of answer.surfaces) {
      expect(shownIds(surface.blocks), `${surface.type} ${surface.page}`).toEqual(expect.arrayContaining(laidOut(pages[surface.page].layout)));
    }
  });

  it("the complete example, for a host's user of its clerk policy: the grid opens an order and the record marks it paid", async () => {
    const example = examples.find((e) => e.heading === "A complete example")!;
    const t = await createTenant();
    const world = await WORLDS[example.heading](t);
    const spec = await insertSpec(t, [world.document!(example.document)]);
    expect((await putConfig(t, spec.id, { config: world.preview.config.app })).status).toBe(200);
    // The activation provisioned every policy of the spec as `<spec name>:<key>`; its users act as the clerk.
    const policies = await call("GET", "/access/policies?limit=100", { auth: t.auth });
    const clerk = policies.json.data.find((p: Obj) => p.name === `${spec.name}:clerk`);
    const bound = await putConfig(t, spec.id, { policy_id: clerk.id });
    expect(bound.status, bound.text).toBe(200);
    const company = await registerCompany(t, "portal", "acme");
    const integration = await call("POST", `/apps/${spec.id}/integrations`, { auth: t.auth, body: { external_company_id: company.id } });
    expect(integration.status, integration.text).toBe(201);
    const minted = await call("PUT", `/apps/${spec.id}/integrations/${integration.json.data.id}/token`, { auth: t.auth });
    expect(minted.status, minted.text).toBe(201);
    const render = async (body: Obj = {}) => {
      const res = await call("POST", `/apps/run/${integration.json.data.id}`, {
        auth: `Bearer ${minted.json.raw_token}`,
        headers: { "X-Company-Id": "acme" },
        body: { user: { id: "u-1", email: "u-1@host.example" }, ...body },
      });
      expect(res.status, res.text).toBe(200);
      return res.json.data as Obj;
    };
    const first = await render();
    expect(errorsOf(first)).toEqual([]);
    expect(first.referenceData.grid.rows.map((r: Obj) => [r.name, r.customer])).toEqual([["First order", { id: "c-1", name: "Acme" }]]);
    const opened = await render({ state: first.state, action: { widgetId: "grid", handler: "open", payload: { itemId: world.orderId } } });
    expect(errorsOf(opened)).toEqual([]);
    expect(opened.surfaces[0].page).toBe("detail");
    expect(shownIds(opened.surfaces[0].blocks)).toEqual(["summary", "back"]);
    const paid = await render({ state: opened.state, action: { widgetId: "summary", handler: "markPaid" } });
    expect(errorsOf(paid)).toEqual([]);
    expect(paid.surfaces[0].page).toBe("home");
    const order = await call("GET", `/entity/entities/${world.orderId}`, { auth: t.auth });
    expect(order.json.data.attributes).toEqual({ number: "A-1", status: "paid", total: 30, customerId: "c-1" });
  });
});
