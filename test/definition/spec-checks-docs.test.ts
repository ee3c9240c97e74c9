// The example of docs/apps.md ("A complete example") must stay a valid spec document.
import { describe, expect, it } from "vitest";
import apps from "../../docs/apps.md?raw";
import { specProblems } from "../../src/definition/checks/spec";

describe("docs/apps.md", () => {
  it("its complete example is a spec document with no issue", () => {
    const section = apps.slice(apps.indexOf("## A complete example"));
    const block = /```json\n([\s\S]*?)\n```/.exec(section);
    expect(block).not.toBeNull();
    const example = JSON.parse(block![1]);
    expect(Object.keys(example)).toEqual(expect.arrayContaining(["dashboards", "widgets", "providers", "config", "configSchemas", "policies", "defaultPolicy", "shares", "jobs", "functions", "messages", "auth"]));
    const result = specProblems(example);
    expect(result.issues).toEqual([]);
    expect(result.problems).toEqual([]);
  });
});
