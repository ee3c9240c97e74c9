// The save-time checks any document kind shares (src/definition/checks/),
// driven directly with a kind's own read scopes and directives, as an app
// spec will drive them: what a profile may read is the caller's parameter,
// and a directive registered by the caller has its expressions compiled.
import { describe, expect, it } from "vitest";
import { checkRequestAuth, checkRootProfiles, inlineProfileScope, profileScope } from "../../src/definition/checks/auth-profiles";
import { Collector } from "../../src/definition/checks/collector";
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
    checkRequestAuth(found, { auth: { type: "bearer", token: "{{ state.t }} {{ input.t }}" } }, "spec.command.config", declared, inlineProfileScope(["state"]), expressions);
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
    expect(plain.lines).toEqual(['spec.source.rows: "$query" is not a directive (directives: $jsonata, $literal, or $rows with $pipe; wrap data with $-keys in {"$literal": ...})']);
  });

  it("finds secret text anywhere and checks embedded schemas", () => {
    const found = new Collector();
    secretTexts(found, { a: [{ b: { $literal: "{{ secrets.x }}" } }] }, "spec");
    checkContracts(found, { inputSchema: { $ref: "https://elsewhere/x" }, outputSchema: { type: "object" }, outputSchemaName: "out" }, "spec.page");
    expect(found.findings()).toEqual({
      problems: [
        "spec.a[0].b.$literal: references a secret; a definition never holds secret references (set them as env values at activation and read {{ config.env.NAME }})",
        'spec.page.inputSchema.$ref: "https://elsewhere/x" does not resolve to a schema in this document',
        "spec.page.outputSchemaName: cannot be set together with outputSchema; use one form for the output contract",
      ],
      secretRef: true,
    });
  });
});
