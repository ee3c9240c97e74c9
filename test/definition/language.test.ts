// Unit tests of the workflow language's save-time checks
// (src/definition/language): every check refuses its case with a
// path-prefixed line and lets its twin through.
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/lib/errors";
import { checkJobDefinition, checkWorkflowDefinition, workflowProblems } from "../../src/definition/language/validate";

type Doc = Record<string, any>;

const TYPE_ID = "0b6f2f7e-52a1-4c5e-9a0e-6f2b4a1d9c10";

/** A definition using every part of the language; it passes every check. */
function full(): Doc {
  return {
    auth: {
      crm: { type: "bearer", token: "{{ config.env.CRM_TOKEN }}" },
      "legacy_api-2": { type: "apiKey", in: "header", name: "X-Api-Key", value: "{{ config.env.KEY }}" },
      basicAuth: { type: "basic", username: "svc", password: "{{ context.input.pw }}" },
      oauth: { type: "oauth2", tokenUrl: "https://id.example.com/token", clientId: "c", clientSecret: "{{ config.env.SECRET }}", clientAuth: "body" },
    },
    config: { env: { CRM_TOKEN: null, KEY: "k", SECRET: null } },
    configSchemas: { env: "crm-env" },
    jobs: [
      {
        id: "fetch",
        input: { who: "{{ context.input.entity.name }}" },
        inputSchema: { type: "object", $defs: { name: { type: "string" } }, properties: { who: { $ref: "#/$defs/name" } } },
        actions: [
          {
            stepId: "call",
            name: "http",
            if: "input.who != ''",
            config: {
              url: "https://crm.example.com/people",
              method: "POST",
              auth: "crm",
              headers: { "Content-Type": "application/json" },
              query: { q: "{{ input.who }}" },
              body: { $jsonata: "{ 'name': input.who }" },
              timeoutMs: 1000,
              maxRetries: 5,
              initialRetryDelayMs: 0,
              maxRetryDelayMs: 0,
              redirect: "manual",
            },
            errorWhen: "result.status >= 500",
            onSuccess: [{ stepId: "log", name: "pipe", config: { rows: "{{ outputs.call.body }}" } }],
            onError: [
              { stepId: "fallback", name: "http", config: { url: "https://backup.example.com", auth: { type: "bearer", token: "{{ input.backupToken }}" } } },
            ],
          },
        ],
        output: "{{ outputs.call.body }}",
      },
      { id: "enrich", name: "enrich-person", dependencies: ["fetch"], outputSchemaName: "person" },
      {
        id: "store",
        dependencies: ["fetch", "enrich"],
        condition: "outputs.fetch != null",
        conditionPolicy: "continue",
        actions: [{ stepId: "call", name: "upsertEntity", config: { typeName: "Person", data: "{{ [input] }}" } }],
      },
    ],
    triggers: [
      {
        id: "on-create",
        source: { entityTypeId: TYPE_ID, eventAction: "created", attributeFilters: [{ operator: "eq", path: "status", value: "new" }] },
        condition: "context.input.entity.name != ''",
        contextData: { name: "{{ context.input.entity.name }}" },
      },
      { id: "nightly", cron: "0 3 * * 1-5" },
      {
        id: "hook",
        webhook: { methods: ["POST"], verification: { location: "header", key: "X-Signature", method: "hmac-sha256" } },
        idempotencyKey: "{{ context.input.body.id }}",
      },
      {
        id: "manual",
        webhook: {
          methods: ["POST"],
          verification: { location: "body", key: "token", method: "exact" },
          challenge: { enabled: true, queryParam: "challenge", responseType: "text/plain" },
        },
      },
    ],
  };
}

const minimal = (): Doc => ({ jobs: [{ id: "a", actions: [{ name: "pipe", config: {} }] }], triggers: [{ id: "manual", webhook: { methods: ["POST"] } }] });

const problems = (doc: unknown) => workflowProblems({ definition_json: doc }).problems;
/** A change to the full definition and the lines it answers. */
const after = (change: (doc: Doc) => void) => {
  const doc = full();
  change(doc);
  return problems(doc);
};
const http = (doc: Doc) => doc.jobs[0].actions[0];

describe("the entry points", () => {
  it("passes the full and the minimal definition, answering the document", () => {
    expect(problems(full())).toEqual([]);
    expect(problems(minimal())).toEqual([]);
    const doc = minimal();
    expect(checkWorkflowDefinition({ definition_json: doc })).toEqual({ definition: doc });
  });

  it("needs exactly one of definition_json and source_yaml", () => {
    const line = ["definition_json: exactly one of definition_json and source_yaml is required"];
    expect(workflowProblems({}).problems).toEqual(line);
    expect(workflowProblems({ definition_json: minimal(), source_yaml: "jobs: []" }).problems).toEqual(line);
    expect(workflowProblems({ source_yaml: 42 as never }).problems).toEqual(["source_yaml: must be a string"]);
  });

  it("throws one 422 VALIDATION_FAILED listing every problem of both layers", () => {
    const doc = full();
    doc.extra = 1;
    doc.jobs[2].dependencies = ["nowhere"];
    doc.triggers[1].cron = "61 * * * *";
    let err: unknown;
    try {
      checkWorkflowDefinition({ definition_json: doc });
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(ApiError);
    const { status, code, details } = err as ApiError;
    expect([status, code]).toEqual([422, "VALIDATION_FAILED"]);
    expect(details.errors).toEqual([
      "definition_json.extra: is not allowed",
      'definition_json.jobs[2].dependencies[0]: names "nowhere", which is not a step id',
      expect.stringMatching(/^definition_json\.triggers\[1\]\.cron: .+/),
    ]);
    expect(details.validation_errors).toEqual(details.errors);
  });

  it("refuses a document that is not an object", () => {
    for (const doc of [null, 1, "jobs", [], true]) expect(problems(doc)).toEqual(["definition_json: must be an object"]);
  });

  it("answers the schema layer's lines for wrong shapes", () => {
    expect(problems({})).toEqual(["definition_json.jobs: is required"]);
    expect(after((d) => (http(d).name = "teleport"))).toEqual([expect.stringMatching(/^definition_json\.jobs\[0\]\.actions\[0\]\.name: must be one of/)]);
    expect(after((d) => (d.jobs[0].conditionPolicy = "retry"))).toEqual([
      'definition_json.jobs[0].conditionPolicy: must be one of ["continue","abort","fail"]',
    ]);
    expect(after((d) => (http(d).config.verb = "GET"))).toEqual(["definition_json.jobs[0].actions[0].config.verb: is not allowed"]);
  });
});

describe("auth profiles", () => {
  it("refuses an undeclared profile name and lets a declared one through", () => {
    expect(after((d) => (http(d).config.auth = "nope"))).toEqual([
      'definition_json.jobs[0].actions[0].config.auth: names the profile "nope", which the root auth map does not declare (declared: crm, legacy_api-2, basicAuth, oauth)',
    ]);
    expect(after((d) => (http(d).config.auth = "basicAuth"))).toEqual([]);
    expect(after((d) => delete d.auth)).toEqual([
      'definition_json.jobs[0].actions[0].config.auth: names the profile "crm", which the root auth map does not declare (it declares none)',
    ]);
  });

  it("refuses auth beside a hand-set Authorization header in any case", () => {
    for (const name of ["Authorization", "authorization", "AUTHORIZATION"]) {
      expect(after((d) => (http(d).config.headers[name] = "Bearer x"))).toEqual([
        `definition_json.jobs[0].actions[0].config.headers.${name}: is set by hand while auth is set; the profile sends Authorization`,
      ]);
    }
    expect(after((d) => (http(d).config.headers["X-Trace"] = "1"))).toEqual([]);
    // Without auth the header is the request's own.
    expect(after((d) => ((http(d).config.headers.Authorization = "Bearer x"), delete http(d).config.auth))).toEqual([]);
  });

  it("refuses an apiKey header or query name also set by hand", () => {
    expect(after((d) => ((http(d).config.auth = "legacy_api-2"), (http(d).config.headers["x-api-key"] = "k")))).toEqual([
      'definition_json.jobs[0].actions[0].config.headers["x-api-key"]: is set by hand; the apiKey profile sends the X-Api-Key header',
    ]);
    expect(after((d) => (http(d).config.auth = "legacy_api-2"))).toEqual([]);
    const query = (d: Doc) => ((d.auth["legacy_api-2"].in = "query"), (d.auth["legacy_api-2"].name = "q"), (http(d).config.auth = "legacy_api-2"));
    expect(after(query)).toEqual(["definition_json.jobs[0].actions[0].config.query.q: is set by hand; the apiKey profile sends the q query parameter"]);
    expect(after((d) => (query(d), (http(d).config.query = { other: "1" })))).toEqual([]);
  });

  it("refuses a root profile reading outside config.env and context", () => {
    const reading = (text: string) => after((d) => (d.auth.crm.token = `{{ ${text} }}`));
    const line = (names: string) => `definition_json.auth.crm.token: reads ${names}; a profile may read only config.env.* and context.*`;
    expect(reading("outputs.fetch.token")).toEqual([line("outputs")]);
    expect(reading("input.token")).toEqual([line("input")]);
    expect(reading("config.user.token")).toEqual([line("config")]);
    expect(reading("config")).toEqual([line("config")]);
    expect(reading("$")).toEqual([line("$")]);
    expect(reading("$$")).toEqual([line("$$")]);
    // `$$.context` is `context`, read through the whole scope.
    expect(reading("$$.context.run.id")).toEqual([]);
    expect(reading("$string(config.env.A) & context.run.id")).toEqual([]);
    expect(reading("context.input[kind = 'x'].token")).toEqual([]);
  });

  it("refuses an inline block reading outside input and outputs", () => {
    const block = (d: Doc) => d.jobs[0].actions[0].onError[0].config.auth;
    expect(after((d) => (block(d).token = "{{ config.env.T }}"))).toEqual([
      "definition_json.jobs[0].actions[0].onError[0].config.auth.token: reads config; an inline auth block may read only input and outputs",
    ]);
    expect(after((d) => (block(d).token = "{{ context.input.t }}"))).toEqual([
      "definition_json.jobs[0].actions[0].onError[0].config.auth.token: reads context; an inline auth block may read only input and outputs",
    ]);
    expect(after((d) => (block(d).token = "{{ outputs.call.body.token }}"))).toEqual([]);
  });

  it("refuses a literal basic username holding ':'", () => {
    expect(after((d) => (d.auth.basicAuth.username = "svc:admin"))).toEqual([
      "definition_json.auth.basicAuth.username: must not contain ':' (Basic auth joins username and password with it)",
    ]);
    expect(after((d) => (d.auth.basicAuth.username = "{{ context.input.user }}"))).toEqual([]);
  });

  it("refuses a profile key that is not an identifier", () => {
    for (const [key, path] of [
      ["1crm", '["1crm"]'],
      ["crm api", '["crm api"]'],
      ["_crm", "._crm"],
      ["crm.v2", '["crm.v2"]'],
    ]) {
      expect(after((d) => (d.auth[key] = { type: "bearer", token: "t" }))).toEqual([
        `definition_json.auth${path}: is not a profile key: it starts with a letter, then letters, digits, _ or -`,
      ]);
    }
    expect(after((d) => (d.auth["Crm_2-b"] = { type: "bearer", token: "t" }))).toEqual([]);
  });

  it("refuses a profile pointing at another, or holding a $jsonata object", () => {
    expect(after((d) => (d.auth.alias = "crm"))).toEqual([
      "definition_json.auth.alias: must be an inline profile block; a profile cannot point at another profile",
    ]);
    expect(after((d) => (d.auth.crm.token = { $jsonata: "config.env.T" }))).toEqual([
      "definition_json.auth.crm.token: must be string, got object",
      "definition_json.auth.crm.token: is a $jsonata object; profile fields are literal strings or {{ }} templates",
    ]);
  });

  it("refuses templated mechanism fields", () => {
    expect(after((d) => (d.auth["legacy_api-2"].name = "{{ config.env.HEADER }}"))).toEqual([
      'definition_json.auth["legacy_api-2"].name: must be a literal (it decides how the request is authenticated)',
    ]);
    expect(after((d) => (d.auth.crm.type = "{{ config.env.TYPE }}"))).toEqual([
      'definition_json.auth.crm.type: must be one of ["basic","bearer","apiKey","oauth2"]',
      "definition_json.auth.crm.type: must be a literal (it decides how the request is authenticated)",
    ]);
  });
});

describe("secret references", () => {
  const secretLine = (path: string) =>
    `${path}: references a secret; a definition never holds secret references (set them as env values at activation and read {{ config.env.NAME }})`;

  it("are refused anywhere, with details.code SECRET_REF_IN_DEFINITION", () => {
    const cases: [(d: Doc) => void, string][] = [
      [(d) => (http(d).config.headers["X-Key"] = "{{ secrets.tenant.KEY }}"), 'definition_json.jobs[0].actions[0].config.headers["X-Key"]'],
      [(d) => (http(d).config.body = { $jsonata: "secrets.tenant.KEY" }), "definition_json.jobs[0].actions[0].config.body.$jsonata"],
      [(d) => (d.config.env.KEY = "{{ secrets.tenant.KEY }}"), "definition_json.config.env.KEY"],
      [(d) => (d.jobs[0].input = { $literal: "{{ secrets.user.TOKEN }}" }), "definition_json.jobs[0].input.$literal"],
      [(d) => (d.auth.crm.token = "{{ secrets.tenant.CRM }}"), "definition_json.auth.crm.token"],
      [(d) => (d.jobs[2].condition = "secrets.tenant.FLAG = 'on'"), "definition_json.jobs[2].condition"],
    ];
    for (const [change, path] of cases) {
      const doc = full();
      change(doc);
      const result = workflowProblems({ definition_json: doc });
      expect(result.secretRef).toBe(true);
      expect(result.problems).toContain(secretLine(path));
      let err: ApiError | undefined;
      try {
        checkWorkflowDefinition({ definition_json: doc });
      } catch (e) {
        err = e as ApiError;
      }
      expect([err?.status, err?.code, err?.details.code]).toEqual([422, "VALIDATION_FAILED", "SECRET_REF_IN_DEFINITION"]);
      expect(err?.details.errors).toEqual(result.problems);
      expect(err?.details.validation_errors).toEqual(result.problems);
    }
  });

  it("leave env reads through", () => {
    const result = workflowProblems({ definition_json: full() });
    expect([result.secretRef, result.problems]).toEqual([false, []]);
    expect(after((d) => (http(d).config.headers["X-Note"] = "secrets are set at activation"))).toEqual([]);
  });
});

describe("contracts", () => {
  it("refuses both forms of one contract, on a step and on a job", () => {
    expect(after((d) => (d.jobs[0].inputSchemaName = "person"))).toEqual([
      "definition_json.jobs[0].inputSchemaName: cannot be set together with inputSchema; use one form for the input contract",
    ]);
    expect(after((d) => (d.jobs[1].outputSchema = { type: "object" }))).toEqual([
      "definition_json.jobs[1].outputSchemaName: cannot be set together with outputSchema; use one form for the output contract",
    ]);
    expect(() => checkJobDefinition({ actions: [], outputSchema: true, outputSchemaName: "x" })).toThrow(ApiError);
    expect(checkJobDefinition({ actions: [], outputSchema: true, inputSchemaName: "x" })).toEqual({ actions: [], outputSchema: true, inputSchemaName: "x" });
  });

  it("refuses a $ref outside the embedded schema and an unusable schema, as a registered schema is refused", () => {
    expect(after((d) => (d.jobs[0].inputSchema.properties.who = { $ref: "https://example.com/s.json" }))).toEqual([
      'definition_json.jobs[0].inputSchema.properties.who.$ref: "https://example.com/s.json" does not resolve to a schema in this document',
    ]);
    // The meta-schemas are held by the service, so a contract may ask for a schema.
    expect(after((d) => (d.jobs[0].inputSchema.properties.who = { $ref: "https://json-schema.org/draft/2020-12/schema" }))).toEqual([]);
    // A draft-07 contract is checked by the draft-07 meta-schema: its tuple items are fine, its 2020-12 prefixItems is just unknown.
    expect(
      after(
        (d) =>
          (d.jobs[0].inputSchema = { $schema: "http://json-schema.org/draft-07/schema#", type: "array", items: [{ type: "string" }], additionalItems: false }),
      ),
    ).toEqual([]);
    expect(after((d) => (d.jobs[0].inputSchema = { type: "array", items: [{ type: "string" }] }))).toEqual([
      "definition_json.jobs[0].inputSchema.items: must be object or boolean, got array",
    ]);
    expect(after((d) => (d.jobs[0].inputSchema.properties.who = { $ref: "#/$defs/missing" }))).toEqual([
      'definition_json.jobs[0].inputSchema.properties.who.$ref: "#/$defs/missing" does not resolve to a schema in this document',
    ]);
    expect(after((d) => (d.jobs[0].inputSchema.type = "text"))).toEqual([expect.stringMatching(/^definition_json\.jobs\[0\]\.inputSchema\.type: /)]);
    // A $ref inside data (an enum value) is not a reference.
    expect(after((d) => (d.jobs[0].inputSchema.properties.kind = { enum: [{ $ref: "http://x" }] }))).toEqual([]);
  });
});

describe("the step graph", () => {
  it("refuses duplicate step ids and unknown dependencies", () => {
    expect(after((d) => (d.jobs[2].id = "fetch"))).toEqual(['definition_json.jobs[2].id: "fetch" is already the id of definition_json.jobs[0]']);
    expect(after((d) => d.jobs[2].dependencies.push("later"))).toEqual(['definition_json.jobs[2].dependencies[2]: names "later", which is not a step id']);
  });

  it("names a cycle and passes a diamond", () => {
    expect(after((d) => (d.jobs[0].dependencies = ["store"]))).toEqual(["definition_json.jobs: the dependencies form a cycle: fetch -> store -> fetch"]);
    expect(after((d) => (d.jobs[0].dependencies = ["fetch"]))).toEqual(["definition_json.jobs: the dependencies form a cycle: fetch -> fetch"]);
    const chain = { jobs: ["a", "b", "c", "d"].map((id, i, all) => ({ id, name: "j", dependencies: [all[(i + 1) % 4]] })) };
    expect(problems(chain)).toEqual(["definition_json.jobs: the dependencies form a cycle: a -> b -> c -> d -> a"]);
    const diamond = {
      jobs: [
        { id: "a", name: "j" },
        { id: "b", name: "j", dependencies: ["a"] },
        { id: "c", name: "j", dependencies: ["a"] },
        { id: "d", name: "j", dependencies: ["b", "c"] },
      ],
    };
    expect(problems(diamond)).toEqual([]);
  });

  it("needs actions or name on a step, not both", () => {
    expect(after((d) => (d.jobs[0].name = "x"))).toEqual([
      "definition_json.jobs[0]: has both actions (an inline job) and name (a reference to a published job); keep one",
    ]);
    expect(after((d) => delete d.jobs[1].name)).toEqual(["definition_json.jobs[1]: needs actions (an inline job) or name (a reference to a published job)"]);
  });

  it("refuses a stepId used twice in one job, sub-sequences included, and allows it across jobs", () => {
    expect(after((d) => (http(d).onSuccess[0].stepId = "call"))).toEqual([
      'definition_json.jobs[0].actions[0].onSuccess[0].stepId: "call" is already the stepId of definition_json.jobs[0].actions[0]',
    ]);
    expect(after((d) => (http(d).onError[0].stepId = "log"))).toEqual([
      'definition_json.jobs[0].actions[0].onError[0].stepId: "log" is already the stepId of definition_json.jobs[0].actions[0].onSuccess[0]',
    ]);
    // jobs[2] reuses "call": another job, another scope.
    expect(problems(full())).toEqual([]);
  });
});

describe("triggers", () => {
  it("refuses duplicate ids and other than exactly one of source, cron and webhook", () => {
    expect(after((d) => (d.triggers[1].id = "hook"))).toEqual(['definition_json.triggers[2].id: "hook" is already the id of definition_json.triggers[1]']);
    expect(after((d) => delete d.triggers[1].cron)).toEqual(["definition_json.triggers[1]: needs exactly one of source, cron and webhook"]);
    expect(after((d) => (d.triggers[1].webhook = { methods: ["GET"] }))).toEqual([
      "definition_json.triggers[1]: needs exactly one of source, cron and webhook (has cron, webhook)",
    ]);
  });

  it("refuses an invalid cron and passes a valid one", () => {
    for (const cron of ["61 * * * *", "* * * *", "@daily", "0 0 L * *"]) {
      expect(after((d) => (d.triggers[1].cron = cron))).toEqual([expect.stringMatching(/^definition_json\.triggers\[1\]\.cron: \S/)]);
    }
    for (const cron of ["*/5 * * * *", "0 9 * * MON-FRI", "0 0 1 jan 0"]) expect(after((d) => (d.triggers[1].cron = cron))).toEqual([]);
  });

  it("refuses an hmac signature carried in the body, and passes exact there", () => {
    expect(after((d) => (d.triggers[3].webhook.verification.method = "hmac-sha1"))).toEqual([
      "definition_json.triggers[3].webhook.verification.location: body cannot carry a hmac-sha1 signature (a signature cannot sign the body that holds it); use header or query",
    ]);
    expect(after((d) => (d.triggers[2].webhook.verification.location = "query"))).toEqual([]);
  });

  it("checks the fields of an event source", () => {
    expect(after((d) => (d.triggers[0].source.entityTypeId = "not-a-uuid"))).toEqual([
      expect.stringMatching(/^definition_json\.triggers\[0\]\.source\.entityTypeId: must match the pattern/),
    ]);
    expect(after((d) => (d.triggers[0].source.eventAction = "merged"))).toEqual([
      'definition_json.triggers[0].source.eventAction: must be one of ["created","updated","deleted"]',
    ]);
    expect(after((d) => (d.triggers[0].source.entityId = 7))).toEqual(["definition_json.triggers[0].source.entityId: must be string, got number"]);
    expect(after((d) => (d.triggers[0].source.attributeFilters[0].operator = "rel_exists"))).toEqual([
      expect.stringMatching(/^definition_json\.triggers\[0\]\.source\.attributeFilters\[0\]\.operator: must be one of/),
    ]);
    expect(after((d) => (d.triggers[0].source.attributeFilters[0] = { operator: "in", path: ["status"], value: "new" }))).toEqual([
      expect.stringMatching(/^definition_json\.triggers\[0\]\.source\.attributeFilters\[0\]\.value: /),
    ]);
    expect(
      after(
        (d) =>
          (d.triggers[0].source = {
            entityTypeId: TYPE_ID,
            eventAction: "updated",
            relationshipRuleId: TYPE_ID,
            entityId: TYPE_ID,
            attributeFilters: [{ operator: "in", path: ["a", "b"], value: ["x"] }],
          }),
      ),
    ).toEqual([]);
  });
});

describe("http knobs", () => {
  it("refuses literal values out of range, each with its in-range twin", () => {
    const cases: [string, unknown, unknown][] = [
      ["timeoutMs", 999, 115_000],
      ["timeoutMs", 115_001, 1000],
      ["timeoutMs", "5000", "{{ input.timeout }}"],
      ["maxRetries", 6, 0],
      ["maxRetries", 1.5, 2],
      ["initialRetryDelayMs", -1, 0],
      ["redirect", "error", "follow"],
      ["method", "FETCH", "DELETE"],
      ["method", "post", { $jsonata: "input.method" }],
    ];
    for (const [knob, bad, good] of cases) {
      const line = after((d) => (http(d).config[knob] = bad));
      expect(line).toHaveLength(1);
      expect(line[0]).toMatch(new RegExp(`^definition_json\\.jobs\\[0\\]\\.actions\\[0\\]\\.config\\.${knob}: must be .+, or a \\{\\{ \\}\\} template$`));
      expect(after((d) => (http(d).config[knob] = good))).toEqual([]);
    }
  });

  it("refuses a maximum retry delay below the initial one, defaults included", () => {
    expect(after((d) => ((http(d).config.initialRetryDelayMs = 500), (http(d).config.maxRetryDelayMs = 499)))).toEqual([
      "definition_json.jobs[0].actions[0].config.maxRetryDelayMs: must be at least initialRetryDelayMs (500)",
    ]);
    expect(after((d) => delete http(d).config.initialRetryDelayMs)).toEqual([
      "definition_json.jobs[0].actions[0].config.maxRetryDelayMs: must be at least initialRetryDelayMs (15000)",
    ]);
    expect(after((d) => ((http(d).config.initialRetryDelayMs = 500), (http(d).config.maxRetryDelayMs = 500)))).toEqual([]);
  });
});

describe("expressions compile at save", () => {
  it("refuses a syntax error in every expression field, with its path", () => {
    const cases: [(d: Doc) => void, string][] = [
      [(d) => (d.jobs[2].condition = "outputs.fetch ="), "definition_json.jobs[2].condition"],
      [(d) => (http(d).if = "input.who !="), "definition_json.jobs[0].actions[0].if"],
      [(d) => (http(d).errorWhen = "result.status >>= 2"), "definition_json.jobs[0].actions[0].errorWhen"],
      [(d) => (d.triggers[0].condition = "context.(("), "definition_json.triggers[0].condition"],
      [(d) => (http(d).config.query.q = "{{ input.who[ }}"), "definition_json.jobs[0].actions[0].config.query.q"],
      [(d) => (http(d).config.body = { $jsonata: "{ 'a': }" }), "definition_json.jobs[0].actions[0].config.body.$jsonata"],
      [(d) => (d.triggers[0].contextData.name = "{{ context. }}"), "definition_json.triggers[0].contextData.name"],
      [(d) => (d.jobs[0].output = "{{ ] }}"), "definition_json.jobs[0].output"],
      [(d) => (d.auth.crm.token = "{{ config.env.( }}"), "definition_json.auth.crm.token"],
    ];
    for (const [change, path] of cases) {
      const lines = after(change);
      expect(lines).toHaveLength(1);
      expect(lines[0].startsWith(`${path}: invalid JSONata expression: `)).toBe(true);
    }
  });

  it("refuses a malformed template or directive", () => {
    expect(after((d) => (http(d).config.query.q = "{{ input.who"))).toEqual([
      expect.stringMatching(/^definition_json\.jobs\[0\]\.actions\[0\]\.config\.query\.q: /),
    ]);
    expect(after((d) => (http(d).config.body = { $jsonata: "1", $extra: 2 }))).toEqual([
      expect.stringMatching(/^definition_json\.jobs\[0\]\.actions\[0\]\.config\.body: /),
    ]);
  });
});

describe("limits", () => {
  it("caps jobs, triggers, actions per job and nesting", () => {
    expect(problems({ jobs: Array.from({ length: 201 }, (_, i) => ({ id: `s${i}`, name: "j" })) })).toEqual([
      "definition_json.jobs: Array has too many items (201 > 200)",
    ]);
    const triggers = Array.from({ length: 101 }, (_, i) => ({ id: `t${i}`, cron: "* * * * *" }));
    expect(problems({ jobs: [{ id: "a", actions: [] }], triggers })).toEqual(["definition_json.triggers: Array has too many items (101 > 100)"]);
    const actions = (n: number) => Array.from({ length: n }, () => ({ name: "pipe", onSuccess: [{ name: "pipe" }] }));
    expect(problems({ jobs: [{ id: "a", actions: actions(250) }] })).toEqual([]);
    expect(problems({ jobs: [{ id: "a", actions: actions(251) }] })).toEqual([
      "definition_json.jobs[0].actions: a job holds at most 500 actions, onSuccess and onError included",
    ]);
    let action: Doc = { name: "pipe" };
    for (let i = 0; i < 11; i++) action = { name: "pipe", onError: [action] };
    const nested = problems({ jobs: [{ id: "a", actions: [action] }] });
    expect(nested).toEqual([`definition_json.jobs[0].actions[0]${".onError[0]".repeat(10)}.onError: nests onSuccess/onError deeper than 10 levels`]);
  });
});
