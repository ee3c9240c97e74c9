// Unit tests of `source_yaml`: parsed to the document the checks read, with
// only what JSON can hold coming through.
import { describe, expect, it } from "vitest";
import type { ApiError } from "../../src/lib/errors";
import { checkWorkflowDefinition, workflowProblems } from "../../src/definition/language/validate";

const yamlProblems = (text: string) => workflowProblems({ source_yaml: text }).problems;

const GOOD = `# kept as written
jobs:
  - id: a
    actions:
      - name: pipe
        config: {}
triggers:
  - id: manual
    webhook:
      methods: [POST]
`;

describe("source_yaml", () => {
  it("parses to the same document as the JSON form and keeps the text", () => {
    expect(checkWorkflowDefinition({ source_yaml: GOOD })).toEqual({
      definition: { jobs: [{ id: "a", actions: [{ name: "pipe", config: {} }] }], triggers: [{ id: "manual", webhook: { methods: ["POST"] } }] },
      sourceYaml: GOOD,
    });
  });

  it("answers a parse error with its line and column", () => {
    expect(yamlProblems("jobs:\n  - id: a\n    actions: [\n")).toEqual([expect.stringMatching(/^source_yaml: .+ \(line 4, column 1\)$/)]);
    expect(yamlProblems("jobs: []\njobs: []\n")).toEqual(["source_yaml: Map keys must be unique (line 2, column 1)"]);
  });

  it("refuses a document that is not a mapping, or several documents", () => {
    for (const text of ["", "- a\n- b\n", "just text", "null"]) expect(yamlProblems(text)).toEqual(["source_yaml: must be a mapping at the top level"]);
    expect(yamlProblems("jobs: []\n---\njobs: []\n")).toEqual([
      expect.stringMatching(/^source_yaml: Source contains multiple documents.* \(line 2, column 1\)$/),
    ]);
  });

  it("expands anchors and refuses an alias bomb or an alias inside its own anchor", () => {
    const anchors = "jobs:\n  - &step {id: a, name: j}\ntriggers:\n  - id: t\n    cron: &every '*/5 * * * *'\n  - id: u\n    cron: *every\n";
    expect(workflowProblems({ source_yaml: anchors })).toEqual({
      problems: [],
      issues: [],
      secretRef: false,
      definition: {
        jobs: [{ id: "a", name: "j" }],
        triggers: [
          { id: "t", cron: "*/5 * * * *" },
          { id: "u", cron: "*/5 * * * *" },
        ],
      },
    });
    const bomb = [
      "a: &a [x,x,x,x,x,x,x,x,x,x]",
      ...["b", "c", "d", "e", "f", "g"].map((k, i) => `${k}: &${k} [${Array(10).fill(`*${"abcdefg"[i]}`).join(",")}]`),
      "jobs: []",
    ].join("\n");
    expect(yamlProblems(bomb)).toEqual(["source_yaml: Excessive alias count indicates a resource exhaustion attack"]);
    expect(yamlProblems("jobs: &x [*x]\n")).toEqual(["definition_json.jobs[0]: an alias refers to a node that contains it"]);
  });

  it("refuses tags beyond the core schema and keys that are not strings", () => {
    expect(yamlProblems("jobs: !!binary aGVsbG8=\n")).toEqual(["source_yaml: Unresolved tag: tag:yaml.org,2002:binary (line 1, column 7)"]);
    expect(yamlProblems("jobs: !js/function 'x'\n")).toEqual([expect.stringMatching(/^source_yaml: Unresolved tag: !js\/function \(line 1, column 7\)$/)]);
    expect(yamlProblems("jobs: []\n? [a]\n: 1\n")).toEqual(["source_yaml: With stringKeys, all keys must be strings (line 2, column 3)"]);
    // Merge keys are plain keys here, which the schema refuses (the `<<` key shows URI-encoded).
    expect(yamlProblems("base: &b {x: 1}\njobs: [{id: a, actions: []}]\n<<: *b\n")).toEqual([
      "definition_json.base: is not allowed",
      expect.stringMatching(/^definition_json\.\S+: is not allowed$/),
    ]);
  });

  it("refuses what JSON cannot store: NUL, lone surrogates, non-finite numbers", () => {
    expect(yamlProblems('jobs:\n  - id: "a\\0b"\n    name: j\n')).toEqual([
      "definition_json.jobs[0].id: must not contain NUL characters or unpaired surrogates",
    ]);
    expect(yamlProblems('jobs:\n  - id: a\n    name: "\\ud800"\n')).toEqual([
      "definition_json.jobs[0].name: must not contain NUL characters or unpaired surrogates",
    ]);
    expect(yamlProblems("jobs:\n  - id: a\n    name: j\n    input: .inf\n")).toEqual(["definition_json.jobs[0].input: is a number too large to store"]);
  });

  it("catches a secret reference written in YAML", () => {
    const text = `jobs:\n  - id: a\n    actions:\n      - name: http\n        config:\n          url: https://x.example.com\n          headers:\n            X-Key: "{{ secrets.tenant.KEY }}"\n`;
    const result = workflowProblems({ source_yaml: text });
    expect(result.secretRef).toBe(true);
    expect(result.problems).toEqual([
      'definition_json.jobs[0].actions[0].config.headers["X-Key"]: references a secret; a definition never holds secret references (set them as env values at activation and read {{ config.env.NAME }})',
    ]);
    let err: ApiError | undefined;
    try {
      checkWorkflowDefinition({ source_yaml: text });
    } catch (e) {
      err = e as ApiError;
    }
    expect([err?.status, err?.details.code, err?.details.errors]).toEqual([422, "SECRET_REF_IN_DEFINITION", result.problems]);
    expect(workflowProblems({ source_yaml: text.replace("secrets.tenant.KEY", "input.key") }).problems).toEqual([]);
  });
});
