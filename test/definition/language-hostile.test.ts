// Hostile definitions: each answers problem lines (never a crash), and the
// throwing entry points throw nothing but ApiError. Published jobs too.
import { describe, expect, it } from "vitest";
import { ApiError } from "../../src/lib/errors";
import { checkJobDefinition, checkWorkflowDefinition, workflowProblems } from "../../src/definition/language/validate";

function nested(depth: number): unknown {
  let v: unknown = {};
  for (let i = 0; i < depth; i++) v = { a: [v] };
  return v;
}

const junk: unknown[] = [null, 0, -1, 1e300, "", "x", true, [], {}, [null], { $jsonata: 1 }, { __proto__: null }];

/** Every place of a definition filled with every junk value. */
function junkDefinitions(): unknown[] {
  const out: unknown[] = [];
  for (const v of junk) {
    out.push(
      { jobs: v },
      { jobs: [v] },
      { jobs: [{ id: v, actions: v, name: v, dependencies: v, condition: v, input: v, inputSchema: v, inputSchemaName: v }] },
      { jobs: [{ id: "a", actions: [v] }] },
      { jobs: [{ id: "a", actions: [{ name: "http", config: v, if: v, onSuccess: v, onError: [v] }] }] },
      { jobs: [{ id: "a", actions: [{ name: "http", config: { url: v, auth: v, headers: v, query: v, timeoutMs: v, method: v } }] }] },
      { jobs: [], auth: v },
      { jobs: [], auth: { p: v } },
      { jobs: [], auth: { p: { type: "apiKey", in: v, name: v, value: v } } },
      { jobs: [], triggers: v },
      { jobs: [], triggers: [v] },
      { jobs: [], triggers: [{ id: v, source: v, cron: v, webhook: v, condition: v, contextData: v }] },
      { jobs: [], triggers: [{ id: "t", source: { entityTypeId: v, eventAction: v, attributeFilters: v } }] },
      {
        jobs: [],
        triggers: [
          {
            id: "t",
            source: {
              entityTypeId: "0b6f2f7e-52a1-4c5e-9a0e-6f2b4a1d9c10",
              eventAction: "created",
              attributeFilters: [v, { operator: "eq", path: v, value: v }],
            },
          },
        ],
      },
      { jobs: [], triggers: [{ id: "t", webhook: { methods: v, verification: v, challenge: v } }] },
      { jobs: [], config: v, configSchemas: v },
    );
  }
  return out;
}

describe("hostile definitions", () => {
  it("answer lines for junk in every place, and throw only ApiError", () => {
    for (const doc of junkDefinitions()) {
      const { problems } = workflowProblems({ definition_json: doc });
      expect(problems.every((line) => typeof line === "string" && /^(definition_json|source_yaml)\S*: /.test(line))).toBe(true);
      try {
        checkWorkflowDefinition({ definition_json: doc });
      } catch (e) {
        expect(e).toBeInstanceOf(ApiError);
        expect((e as ApiError).status).toBe(422);
      }
    }
  });

  it("refuses deep nesting before reading it", () => {
    expect(workflowProblems({ definition_json: { jobs: [{ id: "a", name: "j", input: nested(10_000) }] } }).problems).toEqual([
      expect.stringMatching(/: nests deeper than 128 levels of arrays and objects$/),
    ]);
    const yaml = (depth: number) => `jobs:\n  - id: a\n    name: j\n    input: ${"[".repeat(depth)}${"]".repeat(depth)}\n`;
    expect(workflowProblems({ source_yaml: yaml(300) }).problems).toEqual([expect.stringMatching(/: nests deeper than 128 levels of arrays and objects$/)]);
    // Deeper still, the YAML parser gives up on its own, and says where.
    expect(workflowProblems({ source_yaml: yaml(20_000) }).problems).toEqual([expect.stringMatching(/^source_yaml: .+ \(line 4, column \d+\)$/)]);
  });

  it("refuses NUL and lone surrogates in ids and keys", () => {
    expect(workflowProblems({ definition_json: { jobs: [{ id: "a\u0000", name: "j" }] } }).problems).toEqual([
      "definition_json.jobs[0].id: must not contain NUL characters or unpaired surrogates",
    ]);
    expect(workflowProblems({ definition_json: { jobs: [], auth: { ["p\ud800"]: { type: "bearer", token: "t" } } } }).problems).toEqual([
      'definition_json.auth["p\\ud800"]: is a key with NUL characters or unpaired surrogates',
    ]);
  });

  it("answers huge arrays with a counted, capped list", () => {
    const jobs = Array.from({ length: 100_000 }, () => ({ id: "x", name: "j" }));
    const started = Date.now();
    const { problems } = workflowProblems({ definition_json: { jobs } });
    expect(Date.now() - started).toBeLessThan(5000);
    expect(problems[0]).toBe("definition_json.jobs: Array has too many items (100000 > 200)");
    expect(problems).toHaveLength(21);
    expect(problems[20]).toMatch(/^\.\.\. and \d+ more errors$/);
  });

  it("treats __proto__ keys as plain data", () => {
    const doc = JSON.parse('{"jobs":[{"id":"a","name":"j","__proto__":{"polluted":true}}],"auth":{"__proto__":{"type":"bearer","token":"t"}}}');
    expect(workflowProblems({ definition_json: doc }).problems).toEqual([
      "definition_json.jobs[0].__proto__: is not allowed",
      "definition_json.auth.__proto__: is not a profile key: it starts with a letter, then letters, digits, _ or -",
    ]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    const yaml = workflowProblems({ source_yaml: "jobs: [{id: a, actions: []}]\n__proto__: {polluted: true}\n" });
    expect(yaml.problems).toEqual(["definition_json.__proto__: is not allowed"]);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe("published jobs", () => {
  it("pass without a root auth map: profile names and conflicts resolve at run time", () => {
    const job = {
      actions: [{ stepId: "call", name: "http", config: { url: "https://x.example.com", auth: "crm", headers: { Authorization: "x" } } }],
      output: "{{ outputs.call.body }}",
    };
    expect(checkJobDefinition(job)).toBe(job);
  });

  it("refuse secrets, bad expressions, inline blocks out of scope and duplicate stepIds", () => {
    const refusal = (definition: unknown) => {
      try {
        checkJobDefinition(definition);
      } catch (e) {
        expect(e).toBeInstanceOf(ApiError);
        return [(e as ApiError).details.code, (e as ApiError).details.errors];
      }
      return "passed";
    };
    expect(refusal({ actions: [{ name: "pipe", config: { v: "{{ secrets.tenant.X }}" } }] })).toEqual([
      "SECRET_REF_IN_DEFINITION",
      [
        "definition_json.actions[0].config.v: references a secret; a definition never holds secret references (set them as env values at activation and read {{ config.env.NAME }})",
      ],
    ]);
    expect(refusal({ actions: [{ name: "pipe", if: "input.(" }] })).toEqual([
      undefined,
      [expect.stringMatching(/^definition_json\.actions\[0\]\.if: invalid JSONata expression: /)],
    ]);
    expect(refusal({ actions: [{ name: "http", config: { url: "u", auth: { type: "bearer", token: "{{ context.t }}" } } }] })).toEqual([
      undefined,
      ["definition_json.actions[0].config.auth.token: reads context; an inline auth block may read only input and outputs"],
    ]);
    expect(
      refusal({
        actions: [
          { stepId: "s", name: "pipe" },
          { stepId: "s", name: "pipe" },
        ],
      }),
    ).toEqual([undefined, ['definition_json.actions[1].stepId: "s" is already the stepId of definition_json.actions[0]']]);
    expect(refusal({})).toEqual([undefined, ["definition_json.actions: is required"]]);
    expect(refusal("actions")).toEqual([undefined, ["definition_json: must be an object"]]);
    expect(
      refusal({
        actions: [
          { stepId: "s", name: "pipe" },
          { stepId: "t", name: "pipe", config: { v: "{{ input.x }}" } },
        ],
      }),
    ).toBe("passed");
  });
});
