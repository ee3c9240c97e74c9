// The publish checks of an app spec document (src/definition/checks/spec*.ts):
// each issue code with its path from the document root, every problem at
// once, secret references, hostile input, and linear work on a large spec.
import { describe, expect, it } from "vitest";
import { ISSUE_CODES } from "../../src/definition/checks/collector";
import { checkSpecDocument, specProblems } from "../../src/definition/checks/spec";
import { SPEC_DOCUMENT_SCHEMA } from "../../src/definition/language/spec-schema";
import { ApiError } from "../../src/lib/errors";

type Doc = Record<string, any>;

/** A small valid spec; each test changes one thing. */
function base(): Doc {
  return {
    dashboards: {
      main: {
        surfaces: { dashboard: "home" },
        pages: {
          home: {
            dataSources: { rows: { $rows: [{ id: 1 }] } },
            widgets: { grid: { widgetComponent: "grid", dataSource: "rows", actionHandlers: { open: [{ kind: "navigate", page: "home" }] } } },
            layout: [["grid"]],
          },
        },
        modals: { preview: { layout: [] } },
      },
    },
  };
}

const home = (doc: Doc) => doc.dashboards.main.pages.home;
const grid = (doc: Doc) => home(doc).widgets.grid;

/** The issues other than the schema layer's, as `{ path, code }`. */
function semantic(doc: unknown) {
  return specProblems(doc)
    .issues.filter((issue) => issue.code !== "schema_violation")
    .map(({ path, code }) => ({ path, code }));
}

function only(doc: Doc, path: string, code: string) {
  const result = specProblems(doc);
  const found = result.issues.filter((issue) => issue.code !== "schema_violation");
  expect(found.map(({ path, code }) => ({ path, code }))).toEqual([{ path, code }]);
  // Messages say what is wrong, beyond the code.
  expect(found[0].message.length).toBeGreaterThan(15);
  return found[0].message;
}

describe("spec checks: a valid spec", () => {
  it("gives no issue", () => {
    expect(specProblems(base()).issues).toEqual([]);
    expect(checkSpecDocument(base())).toEqual(base());
  });

  it("serves a 2020-12 schema refusing unknown top-level keys", () => {
    expect(SPEC_DOCUMENT_SCHEMA.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(SPEC_DOCUMENT_SCHEMA.required).toEqual(["dashboards"]);
    const doc = { ...base(), roles: ["admin"] };
    expect(specProblems(doc).issues).toEqual([{ path: "roles", code: "schema_violation", message: expect.stringContaining("not allowed") }]);
  });

  it("declares every code it raises", () => {
    for (const code of ["unknown_widget", "action_not_synchronous", "function_name_reserved", "jwks_uri_template_tid"]) expect(ISSUE_CODES).toContain(code);
  });
});

describe("spec checks: one issue per code", () => {
  it("required: dashboards missing, empty, or a dashboard without placements", () => {
    expect(semantic({})).toEqual([{ path: "dashboards", code: "required" }]);
    expect(specProblems({}).issues).toHaveLength(1);
    expect(semantic({ dashboards: {} })).toEqual([{ path: "dashboards", code: "required" }]);
    const doc = base();
    delete doc.dashboards.main.surfaces;
    only(doc, "dashboards.main.surfaces", "required");
    const empty = base();
    empty.dashboards.main.surfaces = {};
    only(empty, "dashboards.main.surfaces", "required");
    expect(specProblems(empty).issues).toHaveLength(1);
  });

  it("unknown_config_scope, in config and configSchemas", () => {
    const doc = { ...base(), config: { app: {}, global: {} }, configSchemas: { tenant: "x" } };
    expect(semantic(doc)).toEqual([
      { path: "config.global", code: "unknown_config_scope" },
      { path: "configSchemas.tenant", code: "unknown_config_scope" },
    ]);
    expect(specProblems(doc).issues).toHaveLength(2);
  });

  it("default_policy_unknown", () => {
    const message = only({ ...base(), policies: { viewer: { grants: [] } }, defaultPolicy: "admin" }, "defaultPolicy", "default_policy_unknown");
    expect(message).toContain("viewer");
  });

  it("unknown_widget: a row id, a gate's $then, an inline node's child", () => {
    const doc = base();
    home(doc).layout = [["grid", "ghost"], [{ $if: "true", $then: "phantom" }], { component: "section", children: ["grid", "spirit"] }];
    expect(semantic(doc)).toEqual([
      { path: "dashboards.main.pages.home.layout[0][1]", code: "unknown_widget" },
      { path: "dashboards.main.pages.home.layout[1][0].$then", code: "unknown_widget" },
      { path: "dashboards.main.pages.home.layout[2].children[1]", code: "unknown_widget" },
    ]);
  });

  it("unknown_widget: ids resolve in the page, the dashboard, then the spec", () => {
    const doc = base();
    doc.dashboards.main.widgets = { title: { widgetComponent: "text" } };
    doc.widgets = { footer: { widgetComponent: "text" } };
    home(doc).layout = [["grid", "title", "footer"]];
    expect(semantic(doc)).toEqual([]);
    // A spec-level page sees a dashboard's widget only when every dashboard showing it declares one.
    doc.pages = { about: { layout: [["title"]] } };
    expect(semantic(doc)).toEqual([]);
    doc.dashboards.other = { surfaces: { panel: "about" } };
    expect(semantic(doc)).toEqual([{ path: "pages.about.layout[0][0]", code: "unknown_widget" }]);
    doc.dashboards.other.pages = { about: { layout: [] } };
    expect(semantic(doc)).toEqual([]);
  });

  it("tabs_id_required and container_not_top_level", () => {
    const doc = base();
    home(doc).layout = [{ component: "tabs", children: [{ component: "section", children: [{ component: "header" }] }] }];
    expect(semantic(doc)).toEqual([
      { path: "dashboards.main.pages.home.layout[0].id", code: "tabs_id_required" },
      { path: "dashboards.main.pages.home.layout[0].children[0].children[0].component", code: "container_not_top_level" },
    ]);
  });

  it("inline_node_forbidden_key", () => {
    const doc = base();
    home(doc).layout = [{ component: "section", dataSource: "rows", stateKey: "s", children: ["grid"] }];
    expect(semantic(doc)).toEqual([
      { path: "dashboards.main.pages.home.layout[0].stateKey", code: "inline_node_forbidden_key" },
      { path: "dashboards.main.pages.home.layout[0].dataSource", code: "inline_node_forbidden_key" },
    ]);
  });

  it("scan_card_shape: a string shorthand, no props", () => {
    const doc = base();
    doc.dashboards.main.surfaces.scanCard = "home";
    only(doc, "dashboards.main.surfaces.scanCard", "scan_card_shape");
    expect(specProblems(doc).issues).toHaveLength(1);
    doc.dashboards.main.surfaces.scanCard = { page: "home" };
    only(doc, "dashboards.main.surfaces.scanCard.props", "scan_card_shape");
    expect(specProblems(doc).issues).toHaveLength(1);
  });

  it("unknown_page: a surface page, a navigate anywhere in a command list", () => {
    const doc = base();
    doc.dashboards.main.surfaces.panel = { page: "nowhere" };
    grid(doc).actionHandlers.open = [
      { kind: "notify", level: "INFO", message: "x", onSuccess: [{ kind: "refresh", onError: [{ kind: "navigate", page: "lost" }] }] },
      { kind: "navigate", page: "preview", modal: true },
      { kind: "navigate", page: "{{ payload.page }}" },
    ];
    expect(semantic(doc)).toEqual([
      { path: "dashboards.main.surfaces.panel.page", code: "unknown_page" },
      { path: "dashboards.main.pages.home.widgets.grid.actionHandlers.open[0].onSuccess[0].onError[0].page", code: "unknown_page" },
    ]);
  });

  it("unknown_data_source: a widget's source, a shared widget placed on a page, a leftJoin", () => {
    const doc = base();
    grid(doc).dataSource = "missing";
    doc.widgets = { list: { widgetComponent: "list", dataSource: "orders" } };
    home(doc).layout = [["grid", "list"]];
    home(doc).dataSources.joined = { $rows: [], $pipe: [{ leftJoin: { source: "nothing", localKey: "a", foreignKey: "b", as: "c" } }] };
    expect(semantic(doc)).toEqual([
      { path: "dashboards.main.pages.home.dataSources.joined.$pipe[0].leftJoin.source", code: "unknown_data_source" },
      { path: "dashboards.main.pages.home.widgets.grid.dataSource", code: "unknown_data_source" },
      { path: "dashboards.main.pages.home.layout[0][1]", code: "unknown_data_source" },
    ]);
  });

  it("unknown_job; a slot (null or {}) is a job", () => {
    const doc = { ...base(), jobs: { bound: null, empty: {} } };
    grid(doc).actionHandlers.open = [
      { kind: "job", job: "bound" },
      { kind: "job", job: "empty" },
      { kind: "job", job: "absent" },
    ];
    only(doc, "dashboards.main.pages.home.widgets.grid.actionHandlers.open[2].job", "unknown_job");
  });

  it("duplicate_step_id across a list with its onSuccess and onError", () => {
    const doc = base();
    grid(doc).actionHandlers.open = [
      { kind: "refresh", stepId: "a" },
      { kind: "refresh", stepId: "b", onError: [{ kind: "refresh", stepId: "a" }] },
    ];
    grid(doc).actionHandlers.other = [{ kind: "refresh", stepId: "a" }];
    only(doc, "dashboards.main.pages.home.widgets.grid.actionHandlers.open[1].onError[0].stepId", "duplicate_step_id");
  });

  it("duplicate_upload_slot", () => {
    const doc = base();
    grid(doc).actionHandlers.open = [{ kind: "createTempFileUploadUrl", slots: [{ name: "a" }, { name: "b" }, { name: "a" }] }];
    only(doc, "dashboards.main.pages.home.widgets.grid.actionHandlers.open[0].slots[2].name", "duplicate_upload_slot");
  });

  it("file_field_max_size, file_field_accept, file_field_preview_page", () => {
    const doc = base();
    home(doc).widgets.form = {
      widgetComponent: "form",
      config: {
        fields: [
          { id: "f", type: "file", maxFileSize: 26_214_401, accept: [".pdf", "image/*", "pdf"], previewPage: "home" },
          { id: "g", type: "file", maxFileSize: 26_214_400, previewPage: "preview" },
        ],
      },
    };
    const at = "dashboards.main.pages.home.widgets.form.config.fields[0]";
    expect(semantic(doc)).toEqual([
      { path: `${at}.maxFileSize`, code: "file_field_max_size" },
      { path: `${at}.accept[2]`, code: "file_field_accept" },
      { path: `${at}.previewPage`, code: "file_field_preview_page" },
    ]);
  });

  it("provider_extractor_source, provider_identity_required, provider_identity_fixed_path", () => {
    const doc = {
      ...base(),
      providers: {
        host: { auth: { type: "bearer" }, identity: { user_external_id: "{{ body.user }}", email: { source: "jwt_claim", path: "email" } } },
        office: { auth: { type: "oidc" }, identity: { user_external_id: { source: "body", path: "id" } } },
        scanner: { auth: { type: "exchange" }, identity: { user_external_id: { source: "jwt_claim", path: "sub" } } },
      },
    };
    expect(semantic(doc)).toEqual([
      { path: "providers.host.identity.user_external_id", code: "provider_identity_fixed_path" },
      { path: "providers.host.identity.email.source", code: "provider_extractor_source" },
      { path: "providers.host.identity.company_external_id", code: "provider_identity_required" },
      { path: "providers.office.identity.user_external_id.source", code: "provider_extractor_source" },
    ]);
    const missing = { ...base(), providers: { office: { auth: { type: "oidc" }, identity: {} } } };
    only(missing, "providers.office.identity.user_external_id", "provider_identity_required");
  });

  it("jwks_uri_template_tid", () => {
    const provider = (template: string) => ({
      ...base(),
      providers: { o: { auth: { type: "oidc", jwksUriTemplate: template }, identity: { user_external_id: { source: "jwt_claim", path: "oid" } } } },
    });
    expect(semantic(provider("https://login.example.com/{tid}/keys?t={tid}"))).toEqual([]);
    only(provider("https://{tid}.example.com/keys"), "providers.o.auth.jwksUriTemplate", "jwks_uri_template_tid");
    only(provider("https://login.example.com/keys#{tid}"), "providers.o.auth.jwksUriTemplate", "jwks_uri_template_tid");
  });

  it("auth_profile_invalid, auth_profile_unknown_reference, auth_conflict, auth_profile_scope", () => {
    const doc = {
      ...base(),
      auth: {
        "1bad": { type: "bearer", token: "t" },
        wide: { type: "bearer", token: "{{ page.params.token }}" },
        computed: { type: "bearer", token: { $jsonata: "config.app.t" } },
      },
    };
    home(doc).dataSources.api = { $http: { url: "https://api.example.com", auth: "nope" } };
    home(doc).dataSources.both = { $http: { url: "https://api.example.com", auth: "wide", headers: { authorization: "x" } } };
    expect(semantic(doc)).toEqual([
      { path: 'auth["1bad"]', code: "auth_profile_invalid" },
      { path: "auth.computed.token", code: "auth_profile_invalid" },
      { path: "dashboards.main.pages.home.dataSources.api.$http.auth", code: "auth_profile_unknown_reference" },
      { path: "dashboards.main.pages.home.dataSources.both.$http.headers.authorization", code: "auth_conflict" },
      { path: "auth.wide.token", code: "auth_profile_scope" },
    ]);
  });

  it("invalid_expression: every bare field, template and $jsonata, with the parser's message", () => {
    const doc = base();
    doc.dashboards.main.surfaces.scanCard = { page: "home", if: "a =", props: { title: "{{ 1 + }}" } };
    home(doc).layout = [[{ $if: "(", $then: "grid" }]];
    home(doc).dataSources.rows.$pipe = [{ map: "$.[" }, { filter: "x and" }];
    home(doc).dataSources.other = { $rows: { $jsonata: "]" }, $pipe: "$rows[" };
    grid(doc).actionHandlers.open = [{ kind: "refresh", if: "1 +" }];
    doc.jobs = { j: { actions: [{ name: "pipe", errorWhen: "=", config: { value: "{{ input }}" } }] } };
    const paths = semantic(doc).map((issue) => issue.path);
    expect(semantic(doc).every((issue) => issue.code === "invalid_expression")).toBe(true);
    expect(paths.sort()).toEqual(
      [
        "dashboards.main.surfaces.scanCard.props.title",
        "dashboards.main.surfaces.scanCard.if",
        "dashboards.main.pages.home.layout[0][0].$if",
        "dashboards.main.pages.home.dataSources.rows.$pipe[0].map",
        "dashboards.main.pages.home.dataSources.rows.$pipe[1].filter",
        "dashboards.main.pages.home.dataSources.other.$rows.$jsonata",
        "dashboards.main.pages.home.dataSources.other.$pipe",
        "dashboards.main.pages.home.widgets.grid.actionHandlers.open[0].if",
        "jobs.j.actions[0].errorWhen",
      ].sort(),
    );
    const message = specProblems(doc).issues.find((issue) => issue.path.endsWith("open[0].if"))!.message;
    expect(message).toMatch(/^invalid JSONata expression: .+ \(at character \d+\)$/);
  });

  it("app expressions read the render context; spec functions are callable", () => {
    const doc = { ...base(), functions: { label: "function($r) { $r.name & ' (' & $string($r.total) & ')' }" } };
    grid(doc).config = { title: "{{ $label(page.data) & config.app.x & identity.user_email & $string(permissions) & thisWidget.id }}" };
    grid(doc).actionHandlers.open = [
      { kind: "notify", level: "INFO", message: "{{ $label(outputs.x) & payload.y & itemId & context.host & provider.provider }}" },
    ];
    expect(specProblems(doc).issues).toEqual([]);
  });

  it("function_name_reserved, and a function that is no function expression", () => {
    const doc = { ...base(), functions: { uppercase: "function($s) { $s }", twice: "1 + 1", broken: "function($a) {" } };
    expect(semantic(doc)).toEqual([
      { path: "functions.uppercase", code: "function_name_reserved" },
      { path: "functions.twice", code: "invalid_expression" },
      { path: "functions.broken", code: "invalid_expression" },
    ]);
  });

  it("action_not_synchronous, in an inline job and an actions command", () => {
    const doc = { ...base(), jobs: { wait: { actions: [{ name: "pipe", config: { value: 1 }, onSuccess: [{ name: "awaitInput", config: {} }] }] } } };
    grid(doc).actionHandlers.open = [{ kind: "actions", actions: [{ name: "httpCallback", config: { url: "{{ input.url }}" } }] }];
    const found = semantic(doc).filter((issue) => issue.code === "action_not_synchronous");
    expect(found).toEqual([
      { path: "jobs.wait.actions[0].onSuccess[0].name", code: "action_not_synchronous" },
      { path: "dashboards.main.pages.home.widgets.grid.actionHandlers.open[0].actions[0].name", code: "action_not_synchronous" },
    ]);
  });

  it("inline jobs get the workflow job checks: literal configs, duplicate step ids", () => {
    const doc = {
      ...base(),
      jobs: {
        j: {
          actions: [
            { stepId: "a", name: "http", config: { url: "https://x.example.com", timeoutMs: 5 } },
            { stepId: "a", name: "pipe", config: { value: 1 } },
          ],
        },
      },
    };
    expect(semantic(doc)).toEqual([
      { path: "jobs.j.actions[0].config.timeoutMs", code: "http_option_invalid" },
      { path: "jobs.j.actions[1].stepId", code: "duplicate_step_id" },
    ]);
  });

  it("messages are templates", () => {
    only({ ...base(), messages: { "widget-error-grid": "{{ error. }}" } }, 'messages["widget-error-grid"]', "invalid_expression");
  });
});

describe("spec checks: every problem at once", () => {
  it("lists problems of every concern in one answer, and refuses with SPEC_STRUCTURE_INVALID", () => {
    const doc = base();
    doc.config = { nowhere: {} };
    doc.defaultPolicy = "p";
    home(doc).layout = [["ghost"], { component: "tabs" }];
    grid(doc).dataSource = "missing";
    grid(doc).actionHandlers.open = [
      { kind: "navigate", page: "lost" },
      { kind: "job", job: "none" },
    ];
    const codes = semantic(doc).map((issue) => issue.code);
    expect(codes).toEqual([
      "unknown_config_scope",
      "default_policy_unknown",
      "unknown_page",
      "unknown_job",
      "unknown_data_source",
      "unknown_widget",
      "tabs_id_required",
    ]);
    let thrown: unknown;
    try {
      checkSpecDocument(doc);
    } catch (e) {
      thrown = e;
    }
    expect(thrown).toBeInstanceOf(ApiError);
    const details = (thrown as ApiError).details as Record<string, unknown>;
    expect(details.code).toBe("SPEC_STRUCTURE_INVALID");
    expect((details.issues as unknown[]).length).toBe(7);
    expect(details.errors).toContain('dashboards.main.pages.home.layout[0][0]: names "ghost", which is no widget of the page, the dashboard or the spec');
  });

  it("a secret reference anywhere gives secretRef and SECRET_REF_IN_DEFINITION", () => {
    const doc = base();
    grid(doc).config = { token: "{{ secrets.tenant.API_KEY }}" };
    doc.config = { app: { key: "{{ secrets.user.KEY }}" } };
    const result = specProblems(doc);
    expect(result.secretRef).toBe(true);
    expect(result.issues.map(({ path, code }) => ({ path, code }))).toEqual([
      { path: "dashboards.main.pages.home.widgets.grid.config.token", code: "secret_ref_in_definition" },
      { path: "config.app.key", code: "secret_ref_in_definition" },
    ]);
    expect(result.issues[0].message).toContain("config");
    expect(() => checkSpecDocument(doc)).toThrowError(expect.objectContaining({ details: expect.objectContaining({ code: "SECRET_REF_IN_DEFINITION" }) }));
  });
});

describe("spec checks: hostile input", () => {
  it("refuses NUL, lone surrogates and runaway nesting before reading further", () => {
    const doc = base();
    doc.dashboards.main.name = "a\u0000b";
    home(doc).widgets["x\ud800"] = { widgetComponent: "text" };
    let deep: unknown = 1;
    for (let i = 0; i < 10_000; i++) deep = [deep];
    home(doc).dataSources.rows.$rows = deep;
    const issues = specProblems(doc).issues;
    expect(issues.every((issue) => issue.code === "input_refused")).toBe(true);
    expect(issues.map((issue) => issue.path)).toEqual(expect.arrayContaining(["dashboards.main.name", 'dashboards.main.pages.home.widgets["x\\ud800"]']));
    expect(issues.some((issue) => issue.message.includes("nests deeper"))).toBe(true);
  });

  it("refuses 1e400, which JSON.parse reads as Infinity", () => {
    const doc = JSON.parse(JSON.stringify(base()).replace('"id":1', '"id":1e400'));
    expect(specProblems(doc).issues).toEqual([
      { path: "dashboards.main.pages.home.dataSources.rows.$rows[0].id", code: "input_refused", message: "is a number too large to store" },
    ]);
  });

  it("answers a value that is no object with one issue", () => {
    for (const value of [null, "spec", [base()], 3])
      expect(specProblems(value).issues).toEqual([{ path: "(root)", code: "schema_violation", message: "must be an object" }]);
  });

  it("checks a 5 MiB spec of 20,000 widgets in bounded time", () => {
    const widgets: Doc = {};
    const pages: Doc = {};
    for (let p = 0; p < 200; p++) {
      const pageWidgets: Doc = {};
      const row: string[] = [];
      for (let w = 0; w < 100; w++) {
        const id = `w${p}_${w}`;
        pageWidgets[id] = {
          widgetComponent: "text",
          dataSource: "rows",
          config: { text: `{{ page.data.v${w} & '${"x".repeat(80)}' }}` },
          actionHandlers: { click: [{ kind: "navigate", page: `p${(p + 1) % 200}`, stepId: "go" }] },
        };
        row.push(id);
      }
      pages[`p${p}`] = { dataSources: { rows: { $rows: [] } }, widgets: pageWidgets, layout: [row, ["shared"]] };
    }
    for (let d = 0; d < 200; d++) widgets[`shared${d}`] = { widgetComponent: "text" };
    widgets.shared = { widgetComponent: "text" };
    const dashboards: Doc = {};
    for (let d = 0; d < 50; d++) dashboards[`d${d}`] = { surfaces: { dashboard: "p0" }, widgets: { local: { widgetComponent: "text" } } };
    const doc = { dashboards, pages: { ...pages, extra: { layout: [["local", "shared"]] } }, widgets };
    expect(JSON.stringify(doc).length).toBeGreaterThan(5 * 1024 * 1024);
    const started = performance.now();
    const result = specProblems(doc);
    const took = performance.now() - started;
    expect(result.issues).toEqual([]);
    // About a second on a machine shared by several test runs, most of it the JSON Schema layer.
    expect(took).toBeLessThan(2500);
  });
});
