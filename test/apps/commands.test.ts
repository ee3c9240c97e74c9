// A posted action's commands through POST /apps/run: each kind, the
// sequencing (if, onSuccess, onError), the state they leave for the
// screens, forms, the self-service writes, and what is refused.
import { describe, expect, it } from "vitest";
import { call, createTenant, expectError } from "../support/api";
import { registerSchema } from "./fixture";
import { hostFor, hostProvider, type Host } from "./host-fixture";

const notify = (stepId: string, message: string, extra: object = {}) => ({ kind: "notify", level: "INFO", stepId, message, ...extra });

const spec = {
  dashboards: {
    main: {
      name: "Main",
      surfaces: { dashboard: "home", panel: "home" },
      pages: {
        home: {
          dataSources: {
            pins: { $rows: "{{ config.user.pins.ids ? config.user.pins.ids : [] }}" },
            echo: { $rows: "{{ [page.data.x ? page.data.x : 'none'] }}" },
            rows: { $rows: "{{ ($q := page.widgets.filter.state.q; $filter([1, 2, 3], function($v) { $not($exists($q)) or $string($v) != $q })) }}" },
          },
          layout: [
            ["go", "open", "status", "counter"],
            ["form", "filter", "grid"],
            ["survey", "quick"],
          ],
          widgets: {
            go: { widgetComponent: "button", actionHandlers: { click: [{ kind: "navigate", page: "details", params: { id: "{{ payload.itemId }}" } }] } },
            open: { widgetComponent: "button", actionHandlers: { click: [{ kind: "navigate", page: "pick", modal: true, params: { from: "home" } }] } },
            status: { widgetComponent: "text", config: { text: "{{ page.data.chosen ? page.data.chosen : 'none' }}" } },
            counter: {
              widgetComponent: "button",
              config: { clicks: "{{ thisWidget.state.clicks }}" },
              actionHandlers: {
                steps: [
                  { kind: "setPageData", stepId: "a", data: { n: 1 } },
                  { kind: "setWidgetState", widgetId: "counter", state: { clicks: "{{ (thisWidget.state.clicks ? thisWidget.state.clicks : 0) + 1 }}" } },
                  { kind: "notify", level: "WARN", stepId: "told", message: "n={{ page.data.n }}" },
                  { kind: "notify", level: "INFO", message: "plain" },
                  { kind: "debug" },
                ],
                branch: [
                  notify("skipped", "skipped", { if: "payload.skip = true" }),
                  { kind: "closeModal", stepId: "bad", onError: [notify("handled", "handled")] },
                  notify("after", "went on", { onSuccess: [notify("nested", "after {{ outputs.after.message }}")] }),
                  { kind: "closeModal" },
                  notify("never", "never"),
                ],
                loop: Array.from({ length: 150 }, (_, i) => ({ kind: "navigate", page: i % 2 ? "home" : "details" })),
                prefs: [
                  {
                    kind: "setPrincipalConfig",
                    principalType: "user",
                    stepId: "p",
                    ops: [{ op: "appendUnique", path: "pins.ids", value: "{{ payload.id }}" }],
                  },
                  notify("pins", "{{ $join(page.dataSources.pins, ',') }}"),
                ],
                move: [
                  {
                    kind: "setPrincipalConfig",
                    principalType: "user",
                    ops: [
                      { op: "moveItem", path: "pins.ids", value: "b", by: -1 },
                      { op: "remove", path: "pins.ids", value: "a" },
                    ],
                  },
                ],
                badops: [{ kind: "setPrincipalConfig", principalType: "user", ops: [{ op: "appendUnique", path: "title", value: "x" }] }],
                setTitle: [{ kind: "setPrincipalConfig", principalType: "user", principalId: "self", config: { title: "{{ payload.title }}" } }],
                company: [{ kind: "setPrincipalConfig", principalType: "company", config: { plan: "gold" } }],
                otherUser: [{ kind: "setPrincipalConfig", principalType: "user", principalId: "{{ payload.id }}", config: { theme: "hijacked" } }],
                secret: [
                  { kind: "setSecret", target: "user.API_KEY", value: "{{ payload.key }}" },
                  { kind: "debug", value: "{{ 'key was ' & payload.key }}" },
                ],
                companySecret: [{ kind: "setSecret", target: "company.API_KEY", value: "x" }],
                secretNames: [{ kind: "debug", value: "{{ secretsSet.user }}" }],
                teamWrites: [
                  { kind: "setPrincipalConfig", principalType: "team", config: { seats: "{{ payload.seats }}" } },
                  { kind: "setSecret", target: "team.TEAM_KEY", value: "team-secret-value" },
                  { kind: "setSecret", target: "company.CO_KEY", value: "company-secret-value" },
                  { kind: "debug", value: "{{ [config.team.seats, config.company.plan, secretsSet.team, secretsSet.company] }}" },
                ],
                refreshed: [
                  { kind: "debug", value: "{{ page.dataSources.echo }}" },
                  { kind: "setPageData", data: { x: "{{ payload.x }}" } },
                  { kind: "debug", value: "{{ page.dataSources.echo }}" },
                  { kind: "refresh" },
                  { kind: "debug", value: "{{ page.dataSources.echo }}" },
                ],
              },
            },
            form: {
              widgetComponent: "form",
              config: {
                fields: [
                  { id: "name", type: "text", required: true },
                  { id: "email", type: "text" },
                ],
              },
              actionHandlers: { submit: [notify("sent", "{{ outputs.form.name }} <{{ outputs.form.email }}>")] },
            },
            survey: {
              widgetComponent: "form",
              config: {
                fields: [
                  { id: "topic", type: "text", label: "Topic", required: true },
                  { id: "score", type: "number", label: "Score", required: true },
                ],
              },
              actionHandlers: {
                submit: [notify("submitted", "{{ outputs.form.topic }}")],
                draft: [notify("drafted", "{{ $exists(outputs.form) ? 'form' : 'no form' }} {{ payload.topic }}")],
              },
            },
            quick: {
              widgetComponent: "form",
              config: { fields: [{ id: "title", type: "text", label: "Title", required: true }] },
              actionHandlers: { save: [notify("saved", "{{ outputs.form.title }}")] },
            },
            filter: {
              widgetComponent: "search",
              actionHandlers: { change: [{ kind: "setWidgetState", widgetId: "filter", state: { q: "{{ payload.q }}" } }] },
            },
            grid: { widgetComponent: "data_grid", dataSource: "rows" },
          },
        },
        details: {
          layout: [["info", "back"]],
          widgets: {
            info: { widgetComponent: "text", config: { text: "item {{ page.params.id }}" } },
            back: { widgetComponent: "button", actionHandlers: { click: [{ kind: "navigate", page: "home" }] } },
          },
        },
      },
      modals: {
        pick: {
          wide: true,
          layout: [["choose"]],
          widgets: {
            choose: {
              widgetComponent: "button",
              config: { from: "{{ page.params.from }}", note: "{{ page.data.note }}" },
              actionHandlers: {
                click: [{ kind: "closeModal", result: { chosen: "{{ payload.value }}" } }],
                refused: [{ kind: "closeModal", stepId: "close", result: "{{ payload.value }}" }],
                note: [
                  { kind: "setPageData", inModal: true, data: { note: "{{ payload.note }}" } },
                  { kind: "setPageData", data: { base: true } },
                ],
              },
            },
          },
        },
      },
    },
  },
  providers: hostProvider,
};

type Answer = {
  surfaces: { type: string; page: string; blocks: unknown[]; modals?: { page: string; wide: boolean; blocks: unknown[] }[] }[];
  state: Record<string, unknown>;
  notifications: { id: string; level: string; message: string }[];
  debug?: unknown[];
};

async function act(host: Host, state: unknown, action: object, extra: Record<string, unknown> = {}): Promise<Answer> {
  const res = await host.render({ state, action, ...extra });
  expect(res.status, res.text).toBe(200);
  return res.json.data as Answer;
}

const ids = (answer: Answer) => answer.notifications.map((n) => n.id);

describe("commands of a posted action", () => {
  it("navigates every placement to a page with params, and back", async () => {
    const host = await hostFor(spec);
    const first = (await host.render()).json.data as Answer;
    const moved = await act(host, first.state, { widgetId: "go", handler: "click", payload: { itemId: "42" } });
    expect(moved.surfaces.map((s) => s.page)).toEqual(["details", "details"]);
    expect(moved.state).toMatchObject({ page: "details", params: { id: "42" }, data: {} });
    expect(JSON.stringify(moved.surfaces[0].blocks)).toContain('"text":"item 42"');
    const back = await act(host, moved.state, { widgetId: "back", handler: "click" });
    expect(back.surfaces.map((s) => s.page)).toEqual(["home", "home"]);
  });

  it("opens a modal on the placement that asked, and closeModal merges its result into the page below", async () => {
    const host = await hostFor(spec);
    const opened = await act(host, undefined, { widgetId: "open", handler: "click", surface: "panel" });
    expect(opened.surfaces[0].modals).toBeUndefined();
    expect(opened.surfaces[1].modals).toEqual([
      { page: "pick", wide: true, blocks: [{ component: "row", children: [{ id: "choose", widgetComponent: "button", props: { from: "home" } }] }] },
    ]);
    expect(opened.state.modals).toEqual([{ page: "pick", params: { from: "home" }, data: {}, surface: "panel" }]);
    const closed = await act(host, opened.state, { widgetId: "choose", handler: "click", payload: { value: "blue" } });
    expect(closed.state.modals).toEqual([]);
    expect(closed.state.data).toEqual({ chosen: "blue" });
    expect(JSON.stringify(closed.surfaces[0].blocks)).toContain('"text":"blue"');
  });

  it("keeps the modal open when closeModal's result is refused: the result is checked before the modal closes", async () => {
    const host = await hostFor(spec);
    const opened = await act(host, undefined, { widgetId: "open", handler: "click" });
    const refused = await act(host, opened.state, { widgetId: "choose", handler: "refused", payload: { value: "not an object" } });
    expect(refused.notifications).toMatchObject([{ id: "step-error-close", level: "ERROR" }]);
    expect(refused.state.modals).toEqual(opened.state.modals);
    expect(refused.state.data).toEqual({});
    expect(refused.surfaces[0].modals?.map((m) => m.page)).toEqual(["pick"]);
  });

  it("sets the top modal's data with inModal, and the base page's without it", async () => {
    const host = await hostFor(spec);
    const opened = await act(host, undefined, { widgetId: "open", handler: "click" });
    const noted = await act(host, opened.state, { widgetId: "choose", handler: "note", payload: { note: "hi" } });
    expect(noted.state.modals).toEqual([{ page: "pick", params: { from: "home" }, data: { note: "hi" }, surface: "dashboard" }]);
    expect(noted.state.data).toEqual({ base: true });
    expect(noted.surfaces[0].modals![0].blocks).toEqual([
      { component: "row", children: [{ id: "choose", widgetComponent: "button", props: { from: "home", note: "hi" } }] },
    ]);
  });

  it("sets page data and widget state, notifies (WARN as WARNING, ids by stepId or position) and debugs the outputs", async () => {
    const host = await hostFor(spec);
    const once = await act(host, undefined, { widgetId: "counter", handler: "steps" });
    expect(once.state.data).toEqual({ n: 1 });
    expect(once.state.widgets).toEqual({ counter: { clicks: 1 } });
    expect(once.notifications).toEqual([
      { id: "told", level: "WARNING", message: "n=1" },
      { id: "notify-3", level: "INFO", message: "plain" },
    ]);
    expect(once.debug).toEqual([{ a: { n: 1 }, told: { message: "n=1" } }]);
    const twice = await act(host, once.state, { widgetId: "counter", handler: "steps" });
    expect(twice.state.widgets).toEqual({ counter: { clicks: 2 } });
    expect(JSON.stringify(twice.surfaces[0].blocks)).toContain('"props":{"clicks":2}');
  });

  it("skips on a false if, runs onError and goes on, and stops at a failure without onError with its notification", async () => {
    const host = await hostFor(spec);
    const answer = await act(host, undefined, { widgetId: "counter", handler: "branch", payload: { skip: false } });
    expect(ids(answer)).toEqual(["handled", "after", "nested", "step-error-3"]);
    expect(answer.notifications.find((n) => n.id === "nested")!.message).toBe("after went on");
    expect(answer.notifications[3]).toMatchObject({ level: "ERROR", message: "The closeModal step 3 failed: closeModal: no modal is open" });
  });

  it("stops a list at 100 steps: a navigate loop ends with an error, and the screens still answer", async () => {
    const host = await hostFor(spec);
    const answer = await act(host, undefined, { widgetId: "counter", handler: "loop" });
    expect(ids(answer)).toEqual(["step-error-100"]);
    expect(answer.notifications[0].message).toContain("at most 100 command steps");
    // The hundredth step (an odd one) went home; the rest never ran.
    expect(answer.state.page).toBe("home");
  });

  it("refuses an action for a widget not on the current page or top modal, or a handler it lacks, with 422 and nothing run", async () => {
    const host = await hostFor(spec);
    const bad = [
      [{ widgetId: "choose", handler: "click" }, "action.widgetId"],
      [{ widgetId: "info", handler: "click" }, "action.widgetId"],
      [{ widgetId: "go", handler: "nope" }, "action.handler"],
      [{ widgetId: "go", handler: "constructor" }, "action.handler"],
      [{ widgetId: "go", handler: "click", surface: "scanCard" }, "action.surface"],
      [{ widgetId: 7, handler: "click" }, "action.widgetId"],
    ] as const;
    for (const [action, field] of bad) {
      const res = await host.render({ action });
      expectError(res, 422, "UNPROCESSABLE_ENTITY");
      expect(res.json.error.details.field, JSON.stringify(action)).toBe(field);
    }
    expectError(await host.render({ action: "go" }), 422, "VALIDATION_FAILED");
  });

  it("checks a form's required fields before any command runs, and exposes the values as outputs.form", async () => {
    const host = await hostFor(spec);
    const missing = await act(host, undefined, { widgetId: "form", handler: "submit", payload: { email: "a@b.c" } });
    expect(missing.notifications).toEqual([{ id: "form-required-form", level: "ERROR", message: "Fill in the required field name of form." }]);
    const sent = await act(host, { widgets: { form: { name: "Ada" } } }, { widgetId: "form", handler: "submit", payload: { email: "ada@example.com" } });
    expect(sent.notifications).toEqual([{ id: "sent", level: "INFO", message: "Ada <ada@example.com>" }]);
  });

  it("submits a form that has a submit handler through submit only; its other handlers run without the preflight or outputs.form", async () => {
    const host = await hostFor(spec);
    const drafted = await act(host, undefined, { widgetId: "survey", handler: "draft", payload: { topic: "half" } });
    expect(drafted.notifications).toEqual([{ id: "drafted", level: "INFO", message: "no form half" }]);
    const missing = await act(host, undefined, { widgetId: "survey", handler: "submit", payload: { topic: "" } });
    expect(missing.notifications).toEqual([{ id: "form-required-survey", level: "ERROR", message: "Fill in the required fields Topic, Score of survey." }]);
    const sent = await act(host, undefined, { widgetId: "survey", handler: "submit", payload: { topic: "Tea", score: 3 } });
    expect(sent.notifications).toEqual([{ id: "submitted", level: "INFO", message: "Tea" }]);
  });

  it("treats every handler of a form without submit as a submit, naming a required field by its label", async () => {
    const host = await hostFor(spec);
    const missing = await act(host, undefined, { widgetId: "quick", handler: "save" });
    expect(missing.notifications).toEqual([{ id: "form-required-quick", level: "ERROR", message: "Fill in the required field Title of quick." }]);
    const saved = await act(host, undefined, { widgetId: "quick", handler: "save", payload: { title: "Done" } });
    expect(saved.notifications).toEqual([{ id: "saved", level: "INFO", message: "Done" }]);
  });

  it("sends the grid a source reads a widget of back to its first page when that widget acts", async () => {
    const host = await hostFor(spec);
    const state = { widgets: { grid: { data_grid: { page: 3, pageSize: 20 } } } };
    const answer = await act(host, state, { widgetId: "filter", handler: "change", payload: { q: "2" } });
    expect(answer.state.widgets).toEqual({ grid: { data_grid: { page: 1, pageSize: 20 } }, filter: { q: "2" } });
    expect((await host.render({ state: answer.state })).json.data.referenceData.grid.rows).toEqual([1, 3]);
  });
});

describe("self-service writes", () => {
  it("appends, moves and removes list items of the user's own config, and later steps and the screens read the new value", async () => {
    const host = await hostFor(spec);
    for (const id of ["a", "b", "a"]) await act(host, undefined, { widgetId: "counter", handler: "prefs", payload: { id } });
    const third = await act(host, undefined, { widgetId: "counter", handler: "prefs", payload: { id: "c" } });
    expect(third.notifications).toEqual([{ id: "pins", level: "INFO", message: "a,b,c" }]);
    await act(host, undefined, { widgetId: "counter", handler: "move" });
    const config = await call("GET", `/apps/${host.specId}/principals/user/${await userId(host)}`, { auth: host.t.auth });
    expect(config.status, config.text).toBe(200);
    expect(config.json.data.config).toEqual({ pins: { ids: ["b", "c"] } });
  });

  it("fails a list op on a value that is not a list, and a company write without app:update, with nothing written", async () => {
    const host = await hostFor(spec);
    await act(host, undefined, { widgetId: "counter", handler: "setTitle", payload: { title: "Hello" } });
    const bad = await act(host, undefined, { widgetId: "counter", handler: "badops" });
    expect(bad.notifications).toEqual([
      { id: "step-error-0", level: "ERROR", message: "The setPrincipalConfig step 0 failed: ops[0]: title holds string, not a list" },
    ]);
    const company = await act(host, undefined, { widgetId: "counter", handler: "company" });
    expect(company.notifications[0]).toMatchObject({ id: "step-error-0", level: "ERROR" });
    expect(company.notifications[0].message).toContain("app:update");
    const user = await call("GET", `/apps/${host.specId}/principals/user/${await userId(host)}`, { auth: host.t.auth });
    expect(user.json.data.config).toEqual({ title: "Hello" });
    const other = await userId(host, "u-2", { widgetId: "counter", handler: "setTitle", payload: { title: "Mine" } });
    const hijack = await act(host, undefined, { widgetId: "counter", handler: "otherUser", payload: { id: other } });
    expect(hijack.notifications[0].message).toContain("app:update");
    expect((await call("GET", `/apps/${host.specId}/principals/user/${other}`, { auth: host.t.auth })).json.data.config).toEqual({ title: "Mine" });
    const co = await call("GET", `/apps/${host.specId}/principals/company/acme`, { auth: host.t.auth });
    expect(co.status).toBe(404);
  });

  it("checks the user scope's schema as an operator's write is checked, writing nothing when refused", async () => {
    const t = await createTenant();
    await registerSchema(t, "prefs", { type: "object", properties: { title: { type: "string", maxLength: 5 }, pins: { type: "object" } } });
    const host = await hostFor({ ...spec, configSchemas: { user: "prefs" } }, { tenant: t });
    const long = await act(host, undefined, { widgetId: "counter", handler: "setTitle", payload: { title: "far too long" } });
    expect(long.notifications[0]).toMatchObject({ id: "step-error-0", level: "ERROR" });
    expect(long.notifications[0].message).toContain("title");
    const ok = await act(host, undefined, { widgetId: "counter", handler: "setTitle", payload: { title: "Hi" } });
    expect(ok.notifications).toEqual([]);
    const user = await call("GET", `/apps/${host.specId}/principals/user/${await userId(host)}`, { auth: host.t.auth });
    expect(user.json.data.config).toEqual({ title: "Hi" });
  });

  it("writes the team's and the company's config and secrets with app:update on the activation", async () => {
    const t = await createTenant();
    const host = await hostFor(
      { ...spec, policies: { admin: { grants: [{ resource: "app", actions: ["read", "update"], resourceName: "$app_config" }] } }, defaultPolicy: "admin" },
      { tenant: t },
    );
    await act(host, undefined, { widgetId: "counter", handler: "company" });
    const answer = await act(host, undefined, { widgetId: "counter", handler: "teamWrites", payload: { seats: 4 } }, { team: "t-9" });
    expect(answer.notifications).toEqual([]);
    // JSONata flattens the one-name lists into the array it builds.
    expect(answer.debug).toEqual([[4, "gold", "TEAM_KEY", "CO_KEY"]]);
    expect(JSON.stringify(answer)).not.toContain("secret-value");
    expect((await call("GET", `/apps/${host.specId}/principals/team/t-9`, { auth: t.auth })).json.data.config).toEqual({ seats: 4 });
    expect((await call("GET", `/apps/${host.specId}/principals/company/acme`, { auth: t.auth })).json.data.config).toEqual({ plan: "gold" });
    const noTeam = await act(host, undefined, { widgetId: "counter", handler: "teamWrites", payload: { seats: 5 } });
    expect(noTeam.notifications[0].message).toContain("no team");
  });

  it("keeps a source read earlier in the list until refresh, which reads it again", async () => {
    const host = await hostFor(spec);
    const answer = await act(host, undefined, { widgetId: "counter", handler: "refreshed", payload: { x: "new" } });
    expect(answer.debug).toEqual([["none"], ["none"], ["new"]]);
  });

  it("sets the user's own secret, never answers its value, and lists it in secretsSet on the next render", async () => {
    const host = await hostFor(spec);
    const answer = await act(host, undefined, { widgetId: "counter", handler: "secret", payload: { key: "s3cr3t-value" } });
    expect(JSON.stringify(answer)).not.toContain("s3cr3t-value");
    expect(answer.debug).toEqual(["***"]);
    const next = await act(host, undefined, { widgetId: "counter", handler: "secretNames" });
    expect(next.debug).toEqual([["API_KEY"]]);
    const refused = await act(host, undefined, { widgetId: "counter", handler: "companySecret" });
    expect(refused.notifications[0].message).toContain("app:update");
  });
});

/** The user id of external user `external` (first rendering for it with `action` when given). */
async function userId(host: Host, external = "u-1", action?: object): Promise<string> {
  if (action) expect((await host.render({ user: external, action })).status).toBe(200);
  const users = await call("GET", "/access/external-users?provider=host", { auth: host.t.auth });
  expect(users.status, users.text).toBe(200);
  return (users.json.data as { external_id: string; user_id: string }[]).find((u) => u.external_id === external)!.user_id;
}

describe("commands in an author's preview", () => {
  it("run as the caller, change the previewed state, and write nothing", async () => {
    const host = await hostFor(spec);
    const preview = (body: object) => call("POST", `/apps/${host.specId}/preview`, { auth: host.t.auth, body });
    const moved = await preview({ action: { widgetId: "go", handler: "click", payload: { itemId: "7" } } });
    expect(moved.status, moved.text).toBe(200);
    expect(moved.json.data.state).toMatchObject({ page: "details", params: { id: "7" } });
    const secret = await preview({ action: { widgetId: "counter", handler: "secret", payload: { key: "preview-key" } } });
    expect(secret.status, secret.text).toBe(200);
    expect(secret.json.data.notifications).toEqual([
      { id: "step-error-0", level: "ERROR", message: "The setSecret step 0 failed: An author's preview writes nothing: run this step from a host's render" },
    ]);
    const prefs = await preview({ action: { widgetId: "counter", handler: "prefs", payload: { id: "x" } } });
    expect(prefs.json.data.notifications[0].id).toBe("step-error-p");
    expect((await call("GET", "/access/secrets", { auth: host.t.auth })).json.data).toEqual([]);
    expectError(await preview({ action: { widgetId: "choose", handler: "click" } }), 422, "UNPROCESSABLE_ENTITY");
  });
});
