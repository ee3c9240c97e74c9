// `$pipe` in both forms through the one evaluator: the expression string
// reading `$rows`, and the steps (map, filter, orderBy, orderByList,
// distinct, leftJoin, guardedProject), with their save-time check (the same
// directive `check`), the shared budget, and `leftJoin` refused where no
// data source can be read (a workflow).
import { describe, expect, it } from "vitest";
import { Collector } from "../../src/definition/checks/collector";
import { Expressions } from "../../src/definition/checks/expressions";
import { Redactor } from "../../src/lib/redact";
import { EvaluationBudget, ExpressionError, ExpressionSyntaxError, expressionsIn, resolveSmartValue, smartValueDirectives } from "../../src/lib/smart-values";

const orders = [
  { id: 1, customer: "c2", total: 30, status: "open", tags: { region: "eu" } },
  { id: 2, customer: "c1", total: null, status: "closed", tags: { region: "us" } },
  { id: 3, customer: "c3", total: 10, status: "open", tags: { region: "eu" } },
  { id: 4, customer: "c1", total: 30, status: "draft" },
];
const scope = { outputs: { q: { rows: orders } }, input: { who: "c1" } };

const piped = (pipe: unknown, options: Parameters<typeof resolveSmartValue>[2] = {}) =>
  resolveSmartValue({ $rows: "{{ outputs.q.rows }}", $pipe: pipe }, scope, options);

async function failure(promise: Promise<unknown>): Promise<Error> {
  try {
    await promise;
  } catch (err) {
    return err as Error;
  }
  throw new Error("expected a failure");
}

describe("$pipe steps", () => {
  it("the expression form still reads the rows as $rows and the scope", async () => {
    expect(await piped("$rows[customer = $$.input.who].id")).toEqual([2, 4]);
  });

  it("map and filter take the row as their input", async () => {
    expect(await piped([{ filter: "status = 'open'" }, { map: "{ 'id': id, 'label': customer & ':' & total }" }])).toEqual([
      { id: 1, label: "c2:30" },
      { id: 3, label: "c3:10" },
    ]);
    // A map selecting nothing for a row keeps its place as null.
    expect(await piped([{ map: "tags.region" }])).toEqual(["eu", "us", "eu", null]);
  });

  it("orderBy is stable, nulls last in either direction, over several keys", async () => {
    const ids = async (keys: unknown) => ((await piped([{ orderBy: keys }])) as { id: number }[]).map((r) => r.id);
    expect(await ids([{ path: "total", direction: "asc" }])).toEqual([3, 1, 4, 2]);
    expect(await ids([{ path: "total", direction: "desc" }])).toEqual([1, 4, 3, 2]);
    expect(await ids([{ path: "total", direction: "desc" }, { path: "customer" }])).toEqual([4, 1, 3, 2]);
    expect(await ids([{ path: "tags.region" }])).toEqual([1, 3, 2, 4]);
  });

  it("orderByList puts the listed values first in list order, the rest after as they were", async () => {
    const rows = (await piped([{ orderByList: { path: "status", list: ["draft", "closed"] } }])) as { id: number }[];
    expect(rows.map((r) => r.id)).toEqual([4, 2, 1, 3]);
  });

  it("distinct keeps the first row of each combination", async () => {
    expect(((await piped([{ distinct: ["customer"] }])) as { id: number }[]).map((r) => r.id)).toEqual([1, 2, 3]);
    expect(((await piped([{ distinct: ["status", "tags.region"] }])) as { id: number }[]).map((r) => r.id)).toEqual([1, 2, 4]);
  });

  it("guardedProject picks dotted paths, a missing one as null", async () => {
    expect(await piped([{ guardedProject: { id: "id", region: "tags.region" } }, { distinct: ["region"] }])).toEqual([
      { id: 1, region: "eu" },
      { id: 2, region: "us" },
      { id: 4, region: null },
    ]);
  });

  it("leftJoin reads another source through the caller's hook: the first match or null", async () => {
    const customers = [
      { key: "c1", name: "Ada" },
      { key: "c2", name: "Grace" },
      { key: "c1", name: "Ada (duplicate)" },
    ];
    const asked: string[] = [];
    const directives = smartValueDirectives(async (source) => (asked.push(source), customers));
    const rows = await piped([{ leftJoin: { source: "customers", localKey: "customer", foreignKey: "key", as: "who" } }, { map: "who.name" }], { directives });
    expect(rows).toEqual(["Grace", "Ada", null, "Ada"]);
    expect(asked).toEqual(["customers"]);
  });

  it("leftJoin without a hook (a workflow) is refused at run time and at save time", async () => {
    const step = [{ leftJoin: { source: "customers", localKey: "customer", foreignKey: "key", as: "who" } }];
    const err = await failure(piped(step));
    expect(err).toBeInstanceOf(ExpressionSyntaxError);
    expect(err.message).toBe("$pipe[0].leftJoin: reads another data source, which only an app page has");
    expect(() => expressionsIn({ $rows: [], $pipe: step }, "jobs[0].actions[0].config.value")).toThrow(
      "jobs[0].actions[0].config.value.$pipe[0].leftJoin: reads another data source, which only an app page has",
    );
  });

  it("refuses malformed steps at save time, naming the step", () => {
    const cases: [unknown, string][] = [
      [[{ sortBy: "x" }], "c.$pipe[0].sortBy: is not a step (steps: map, filter, orderBy, orderByList, distinct, leftJoin, guardedProject)"],
      [
        [{ map: "a", filter: "b" }],
        "c.$pipe[0]: must hold exactly one of map, filter, orderBy, orderByList, distinct, leftJoin, guardedProject, got map, filter",
      ],
      [[{ map: 3 }], "c.$pipe[0].map: must be a JSONata expression string"],
      [
        [{ map: "a" }, { orderBy: [{ path: "a", direction: "up" }] }],
        'c.$pipe[1].orderBy[0]: must be { path, direction } with a non-empty path and direction "asc" or "desc"',
      ],
      [[{ orderByList: { path: "a" } }], "c.$pipe[0].orderByList: list must be an array"],
      [[{ distinct: [] }], "c.$pipe[0].distinct: must be a non-empty array of dotted paths"],
      [[{ guardedProject: { a: 1 } }], "c.$pipe[0].guardedProject: must map each field to a dotted path"],
      [["map"], "c.$pipe[0]: must be an object with one of map, filter, orderBy, orderByList, distinct, leftJoin, guardedProject"],
      [5, "c.$pipe: must be a JSONata expression string or an array of steps"],
    ];
    for (const [pipe, message] of cases) {
      let thrown: unknown;
      try {
        expressionsIn({ $rows: [], $pipe: pipe }, "c");
      } catch (err) {
        thrown = err;
      }
      expect(thrown).toBeInstanceOf(ExpressionSyntaxError);
      expect((thrown as Error).message).toBe(message);
    }
  });

  it("declares the steps' expressions for the save-time compile, as row expressions", () => {
    expect(expressionsIn({ $rows: "{{ input.rows }}", $pipe: [{ filter: "a > 1" }, { orderBy: [{ path: "a" }] }, { map: "b" }] }, "config.v")).toEqual([
      { path: "config.v.$rows", text: " input.rows " },
      { path: "config.v.$pipe[0].filter", text: "a > 1", input: "row" },
      { path: "config.v.$pipe[2].map", text: "b", input: "row" },
    ]);
    // A workflow field that may read only input and outputs accepts a step reading its row; a step that does not compile is refused.
    const found = new Collector();
    const expressions = new Expressions(found);
    const scopeOf = { reads: ["input", "outputs"], code: "expression_scope" as const, explanation: "an action config reads only input and outputs" };
    expressions.smartValue(
      { $rows: "{{ outputs.q.rows }}", $pipe: [{ filter: "status = 'open'" }, { map: "total +" }] },
      "jobs[0].actions[0].config.value",
      scopeOf,
    );
    expressions.check();
    expect(found.lines).toHaveLength(1);
    expect(found.lines[0]).toMatch(/^jobs\[0\]\.actions\[0\]\.config\.value\.\$pipe\[1\]\.map: invalid JSONata expression/);
  });

  it("step expressions draw from the caller's budget and taint what reads a secret", async () => {
    const budget = new EvaluationBudget({ maxSteps: 400 });
    // Each row's map spends about a hundred steps: the third row passes what the budget holds.
    const err = await failure(piped([{ map: "$sum([1..30].($ * 2))" }], { budget }));
    expect(err).toBeInstanceOf(ExpressionError);
    expect(err.message).toBe("$pipe[0].map: expression exceeded 400 evaluation steps");

    const secrets = new Redactor(["s3cr3t-value"]);
    const rows = await resolveSmartValue({ $rows: [{ k: "s3cr3t-value" }, { k: "plain" }], $pipe: [{ map: "$uppercase(k)" }] }, {}, { secrets });
    expect(rows).toEqual(["S3CR3T-VALUE", "PLAIN"]);
    expect(secrets.value(rows)).toEqual(["***", "PLAIN"]);
  });
});
