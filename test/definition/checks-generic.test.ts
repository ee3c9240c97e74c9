// The save-time checks any document kind shares (src/definition/checks/),
// driven directly with a kind's own read scopes and directives, as an app
// spec will drive them: what a profile may read is the caller's parameter,
// and a directive registered by the caller has its expressions compiled.
import { describe, expect, it } from "vitest";
import { checkRequestAuth, checkRootProfiles, inlineProfileScope, profileScope } from "../../src/definition/checks/auth-profiles";
import { Collector, ISSUE_CODES } from "../../src/definition/checks/collector";
import { DOCUMENT_KINDS, rootProfileScope, type DocumentKindName } from "../../src/definition/checks/kinds";
import { documentProblems, refused } from "../../src/definition/checks/layers";
import { Expressions } from "../../src/definition/checks/expressions";
import { checkContracts } from "../../src/definition/checks/schemas";
import { secretTexts } from "../../src/definition/checks/secrets";
import { SMART_VALUE_DIRECTIVES, type Directive } from "../../src/lib/smart-values";

/** `{ "$query": { "typeName": ..., "filter": "expr" } }`, as an app kind could register it. */
const query: Directive = {
  keys: ["$query"],
  check(use) {
    const body = use.value.$query;
    if (typeof body !== "object" || body === null || Array.isArray(body)) use.refuse("$query", "must be an object");
    use.smartValue("$query");
  },
  evaluate: (use) => use.resolve("$query"),
};

describe("generic save-time checks", () => {
  it("checks profile reads against the scopes the document kind passes", () => {
    const found = new Collector();
    const expressions = new Expressions(found);
    const auth = {
      ok: { type: "bearer", token: "{{ app.settings.token }}" },
      wide: { type: "bearer", token: "{{ app.user.token }}" },
      runs: { type: "bearer", token: "{{ context.x }}" },
    };
    const declared = checkRootProfiles(found, auth, "spec.auth", profileScope(["config.env", "app.settings"]), 10, expressions);
    checkRequestAuth(
      found,
      { auth: { type: "bearer", token: "{{ state.t }} {{ input.t }}" } },
      "spec.command.config",
      declared,
      inlineProfileScope(["state"]),
      expressions,
    );
    expressions.check();
    expect([...declared.keys()]).toEqual(["ok", "wide", "runs"]);
    expect(found.lines).toEqual([
      "spec.auth.wide.token: reads app; a profile may read only config.env.* and app.settings.*",
      "spec.auth.runs.token: reads context; a profile may read only config.env.* and app.settings.*",
      "spec.command.config.auth.token: reads input; an inline auth block may read only state",
    ]);
  });

  it("compiles the expressions a registered directive declares, and refuses it where the kind does not register it", () => {
    const value = { rows: { $query: { typeName: "order", filter: "{{ input. + }}" } } };
    const found = new Collector();
    const expressions = new Expressions(found, SMART_VALUE_DIRECTIVES.with(query));
    expressions.smartValue({ $query: 3 }, "spec.count");
    expressions.smartValue(value, "spec.source");
    expressions.smartValue({ $query: { key: "{{ secrets.api }}" } }, "spec.other");
    expressions.check();
    expect(found.lines).toEqual([
      "spec.count.$query: must be an object",
      expect.stringMatching(/^spec\.source\.rows\.\$query\.filter: invalid JSONata expression: .+ \(at character \d+\)$/),
      "spec.other.$query.key: references a secret; a definition never holds secret references (set them as env values at activation and read {{ config.env.NAME }})",
    ]);
    expect(found.secretRef).toBe(true);

    const plain = new Collector();
    const without = new Expressions(plain);
    without.smartValue(value, "spec.source");
    expect(plain.lines).toEqual([
      'spec.source.rows: "$query" is not a directive (directives: $jsonata, $literal, or $rows with $pipe; wrap data with $-keys in {"$literal": ...})',
    ]);
  });

  it("finds secret text anywhere and checks embedded schemas", () => {
    const found = new Collector();
    secretTexts(found, { a: [{ b: { $literal: "{{ secrets.x }}" } }] }, "spec");
    checkContracts(found, { inputSchema: { $ref: "https://elsewhere/x" }, outputSchema: { type: "object" }, outputSchemaName: "out" }, "spec.page");
    expect(found.findings()).toEqual({
      issues: [
        {
          path: "spec.a[0].b.$literal",
          code: "secret_ref_in_definition",
          message: "references a secret; a definition never holds secret references (set them as env values at activation and read {{ config.env.NAME }})",
        },
        { path: "spec.page.inputSchema.$ref", code: "contract_schema_invalid", message: '"https://elsewhere/x" does not resolve to a schema in this document' },
        {
          path: "spec.page.outputSchemaName",
          code: "contract_conflict",
          message: "cannot be set together with outputSchema; use one form for the output contract",
        },
      ],
      secretRef: true,
    });
  });

  it("keeps each problem as a coded issue, its line derived, and the same issue once", () => {
    const found = new Collector();
    found.add("spec.auth.a", "auth_profile_invalid", "must be an inline profile block");
    found.add("spec.auth.a", "auth_profile_invalid", "must be an inline profile block");
    found.addLine('spec.pages["a: b"].layout[0]: names no widget', "schema_violation");
    found.addLine("no path here", "input_refused");
    expect(found.issues).toEqual([
      { path: "spec.auth.a", code: "auth_profile_invalid", message: "must be an inline profile block" },
      { path: 'spec.pages["a: b"].layout[0]', code: "schema_violation", message: "names no widget" },
      { path: "", code: "input_refused", message: "no path here" },
    ]);
    expect(found.lines).toEqual(["spec.auth.a: must be an inline profile block", 'spec.pages["a: b"].layout[0]: names no widget', ": no path here"]);
    expect(new Set(ISSUE_CODES).size).toBe(ISSUE_CODES.length);
  });

  it("gives a refused profile reference, conflict and read their SPEC issue codes", () => {
    const found = new Collector();
    const expressions = new Expressions(found);
    const declared = checkRootProfiles(
      found,
      { key: { type: "apiKey", in: "header", name: "X-Key", value: "{{ input.k }}" } },
      "spec.auth",
      rootProfileScope("app"),
      10,
      expressions,
    );
    checkRequestAuth(found, { auth: "missing" }, "spec.a", declared, inlineProfileScope([]), expressions);
    checkRequestAuth(found, { auth: "key", headers: { "x-key": "v" } }, "spec.b", declared, inlineProfileScope([]), expressions);
    expressions.check();
    expect(found.issues.map(({ path, code }) => [path, code])).toEqual([
      ["spec.a.auth", "auth_profile_unknown_reference"],
      ['spec.b.headers["x-key"]', "auth_conflict"],
      ["spec.auth.key.value", "auth_profile_scope"],
    ]);
  });
});

describe("document kinds", () => {
  const reads = (kind: DocumentKindName, token: string) => {
    const found = new Collector();
    const expressions = new Expressions(found);
    checkRootProfiles(found, { p: { type: "bearer", token } }, "doc.auth", rootProfileScope(kind), 10, expressions);
    expressions.check();
    return found.lines;
  };

  it("declares each kind's profile read scopes", () => {
    expect(DOCUMENT_KINDS.workflow.profileReads).toEqual(["config.env", "context"]);
    expect(DOCUMENT_KINDS.app.profileReads).toEqual(["config", "provider", "identity", "context", "permissions", "secretsSet"]);
  });

  it("lets an app profile read the render context and a workflow profile only env and context", () => {
    const app = "{{ config.integration.key }}{{ provider.provider }}{{ identity.user_email }}{{ context.x }}{{ permissions[0] }}{{ secretsSet.tenant[0] }}";
    expect(reads("app", app)).toEqual([]);
    expect(reads("app", "{{ input.t }}")).toEqual([
      "doc.auth.p.token: reads input; a profile may read only config.*, provider.*, identity.*, context.*, permissions.* and secretsSet.*",
    ]);
    expect(reads("workflow", "{{ config.env.T }}{{ context.x }}")).toEqual([]);
    expect(reads("workflow", "{{ config.integration.key & identity.user_email }}")).toEqual([
      "doc.auth.p.token: reads config, identity; a profile may read only config.env.* and context.*",
    ]);
  });

  it("answers an app kind's refusal with SPEC_STRUCTURE_INVALID issues, a workflow's with lines only", () => {
    const schema = { type: "object", properties: { dashboards: { type: "object" } }, required: ["dashboards"] };
    const semantics = () => {
      const found = new Collector();
      found.add("spec.auth.1x", "auth_profile_invalid", "is not a profile key");
      return found.findings();
    };
    const result = documentProblems({ auth: {} }, schema, semantics, "spec");
    expect(result.issues).toEqual([
      { path: "spec.dashboards", code: "schema_violation", message: "is required" },
      { path: "spec.auth.1x", code: "auth_profile_invalid", message: "is not a profile key" },
    ]);
    const lines = result.issues.map((i) => `${i.path}: ${i.message}`);
    expect(result.problems).toEqual(lines);

    const app = refused(result, "app spec", "app");
    expect([app.status, app.code, app.details]).toEqual([
      422,
      "VALIDATION_FAILED",
      { code: "SPEC_STRUCTURE_INVALID", issues: result.issues, errors: lines, validation_errors: lines },
    ]);
    const workflow = refused(result, "workflow definition", "workflow");
    expect([workflow.status, workflow.code, workflow.details]).toEqual([422, "VALIDATION_FAILED", { errors: lines, validation_errors: lines }]);

    const many = documentProblems(
      Object.fromEntries(Array.from({ length: 25 }, (_, i) => [`k${i}`, i])),
      { type: "object", additionalProperties: { type: "string" } },
      semantics,
      "spec",
    );
    expect(many.issues).toHaveLength(26);
    expect(many.issues.at(24)).toEqual({ path: "spec.k24", code: "schema_violation", message: expect.stringMatching(/string/) });
    expect(many.problems).toHaveLength(21);
    expect(many.problems.at(-1)).toBe("... and 6 more errors");

    const guarded = documentProblems({ a: "x\u0000" }, schema, semantics, "spec");
    expect(guarded.issues).toEqual([{ path: "spec.a", code: "input_refused", message: "must not contain NUL characters or unpaired surrogates" }]);
    const secret = refused({ ...result, secretRef: true }, "app spec", "app");
    expect(secret.details).toEqual({ code: "SECRET_REF_IN_DEFINITION", errors: lines, validation_errors: lines, issues: result.issues });
  });
});
