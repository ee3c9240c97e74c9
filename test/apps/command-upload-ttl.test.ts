// `createTempFileUploadUrl.ttl` as a smart value: publish takes a `{{ }}`
// template or a `$jsonata` directive and refuses only a literal out of
// 1..7200; the value computed when the step runs is checked then, an
// out-of-range one failing that step alone.
import { describe, expect, it } from "vitest";
import { call, createTenant } from "../support/api";
import { hostFor, hostProvider } from "./host-fixture";

const specWith = (ttl: unknown) => ({
  dashboards: {
    main: {
      name: "Main",
      surfaces: { dashboard: "home" },
      pages: {
        home: {
          layout: [["picker", "note"]],
          widgets: {
            picker: {
              widgetComponent: "button",
              actionHandlers: {
                mint: [
                  { kind: "createTempFileUploadUrl", stepId: "up", slots: [{ name: "doc" }], ttl },
                  { kind: "setWidgetState", widgetId: "picker", state: { expiresAt: "{{ outputs.up.doc.expiresAt }}" } },
                ],
              },
            },
            note: { widgetComponent: "text", config: { text: "shown" } },
          },
        },
      },
    },
  },
  providers: { host: { ...hostProvider.host, upload: "canvasFileUpload" } },
});

const publish = async (ttl: unknown) =>
  call("POST", "/definition/specs", {
    auth: (await createTenant()).auth,
    body: { name: `ttl-${crypto.randomUUID().slice(0, 8)}`, spec_document: specWith(ttl) },
  });
const TTL_PATH = "dashboards.main.pages.home.widgets.picker.actionHandlers.mint[0].ttl";

describe("createTempFileUploadUrl ttl at publish", () => {
  it.each([
    ["a {{ }} template", "{{ payload.ttl }}"],
    ["a $jsonata directive", { $jsonata: "payload.minutes * 60" }],
    ["a literal in range", 7200],
  ])("accepts %s", async (_, ttl) => {
    const res = await publish(ttl);
    expect(res.status, res.text).toBe(201);
  });

  it.each([7201, 0, 12.5, "600"])("refuses the literal %j", async (ttl) => {
    const res = await publish(ttl);
    expect(res.status, res.text).toBe(422);
    expect(res.json.error.details.code).toBe("SPEC_STRUCTURE_INVALID");
    expect(res.json.error.details.issues).toEqual([
      {
        path: TTL_PATH,
        code: "schema_violation",
        message: `must be an integer from 1 to 7200, or a {{ }} template or $jsonata directive, got ${JSON.stringify(ttl)}`,
      },
    ]);
  });
});

describe("createTempFileUploadUrl ttl when the step runs", () => {
  const mint = (host: Awaited<ReturnType<typeof hostFor>>, payload: object) => host.render({ action: { widgetId: "picker", handler: "mint", payload } });

  it("a template's value in range sets the links' lifetime", async () => {
    const host = await hostFor(specWith("{{ payload.ttl }}"));
    const before = Date.now();
    const res = await mint(host, { ttl: 60 });
    expect(res.status, res.text).toBe(200);
    expect(res.json.data.notifications).toEqual([]);
    const lifetime = Date.parse(res.json.data.state.widgets.picker.expiresAt) - before;
    expect(lifetime).toBeGreaterThan(55_000);
    expect(lifetime).toBeLessThanOrEqual(61_000);
  });

  it("a $jsonata directive's value is used as computed", async () => {
    const host = await hostFor(specWith({ $jsonata: "payload.minutes * 60" }));
    const before = Date.now();
    const res = await mint(host, { minutes: 2 });
    expect(res.json.data.notifications).toEqual([]);
    const lifetime = Date.parse(res.json.data.state.widgets.picker.expiresAt) - before;
    expect(lifetime).toBeGreaterThan(115_000);
    expect(lifetime).toBeLessThanOrEqual(121_000);
  });

  it.each([[{ ttl: 7201 }], [{ ttl: 0 }], [{ ttl: "soon" }]])("a computed ttl out of range (%j) fails the step alone", async (payload) => {
    const host = await hostFor(specWith("{{ payload.ttl }}"));
    const res = await mint(host, payload);
    expect(res.status, res.text).toBe(200);
    const [failed] = res.json.data.notifications;
    expect(failed).toMatchObject({ id: "step-error-up", level: "ERROR" });
    expect(failed.message).toContain("ttl is a whole number of seconds from 1 to 7200");
    // The steps after it did not run; the page still renders.
    expect(res.json.data.state.widgets.picker).toBeUndefined();
    expect(res.json.data.surfaces[0].blocks[0].children.map((b: { id: string }) => b.id)).toEqual(["picker", "note"]);
  });
});
