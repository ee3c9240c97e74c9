// Every spec example of docs/apps.md and README.md must stay a spec document
// with no issue (test/apps/docs-examples.test.ts renders them too).
import { describe, expect, it } from "vitest";
import apps from "../../docs/apps.md?raw";
import readme from "../../README.md?raw";
import { specExamples } from "../support/doc-examples";
import { specProblems } from "../../src/definition/checks/spec";

const examples = [...specExamples("docs/apps.md", apps), ...specExamples("README.md", readme)];

describe("the spec examples of the docs", () => {
  it("the complete example of docs/apps.md uses every top-level key", () => {
    const example = examples.find((e) => e.heading === "A complete example");
    expect(Object.keys(example!.document)).toEqual(
      expect.arrayContaining([
        "dashboards",
        "widgets",
        "providers",
        "config",
        "configSchemas",
        "policies",
        "defaultPolicy",
        "shares",
        "jobs",
        "functions",
        "messages",
        "auth",
      ]),
    );
  });

  it.each(examples.map((e) => [e.where, e] as const))("%s is a spec document with no issue", (_where, example) => {
    const result = specProblems(example.document);
    expect(result.issues).toEqual([]);
    expect(result.problems).toEqual([]);
  });
});
