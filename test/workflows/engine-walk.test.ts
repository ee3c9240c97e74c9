// The walker's semantics against a fake world: every effect is recorded in
// order, the clock is a number the test moves, and `execute` answers what
// each test scripts. No Durable Object and no database: what is proven here
// is what the walker decides and in which order it records and acts.
import { describe, expect, it } from "vitest";
import { actionPositions } from "../../src/workflows/engine/positions";
import type {
  ActionDocument,
  ActionInvocation,
  ActionOutcome,
  ActionRecord,
  Effects,
  Journal,
  RunDocument,
  StepDocument,
  StepRecord,
} from "../../src/workflows/engine/types";
import { Walker } from "../../src/workflows/engine/walk";
import { errorValue } from "../../src/lib/errors";

type Call =
  | { kind: "step"; id: string; record: StepRecord }
  | { kind: "action"; key: string; record: ActionRecord }
  | { kind: "execute"; key: string; idempotencyKey: string; config: unknown }
  | { kind: "schema"; name: string };

/** What a test's execute answers; by default the `pipe`-like script of `scripted`. */
type Handler = (invocation: ActionInvocation) => ActionOutcome | Promise<ActionOutcome>;

const failure = (message: string) => errorValue("UNPROCESSABLE_ENTITY", message);

/**
 * The default script, read from the resolved config: `{ error }` answers an
 * error outcome, `{ wait, retry? }` a wait until `wait`, anything else
 * succeeds with `config.value`.
 */
const scripted: Handler = ({ config }) => {
  const c = (config ?? {}) as { value?: unknown; error?: string; wait?: number | null; retry?: boolean };
  if (c.error !== undefined) return { kind: "error", error: failure(c.error) };
  if (c.wait !== undefined) return { kind: "wait", until: c.wait ?? undefined, retry: c.retry };
  return { kind: "success", result: c.value };
};

interface World {
  clock: { now: number };
  calls: Call[];
  journal: Journal;
  effects: Effects;
  executed(): string[];
  stepStatus(id: string): string | undefined;
  actionStatus(key: string): string | undefined;
}

function world(handler: Handler = scripted, schemas: Record<string, unknown> = {}, journal: Journal = { steps: {}, actions: {} }): World {
  const clock = { now: 1_000 };
  const calls: Call[] = [];
  const effects: Effects = {
    now: () => clock.now,
    recordStep: async (id, record) => void calls.push({ kind: "step", id, record: structuredClone(record) }),
    recordAction: async (record) => void calls.push({ kind: "action", key: record.key, record: structuredClone(record) }),
    execute: async (invocation) => {
      calls.push({ kind: "execute", key: invocation.record.key, idempotencyKey: invocation.idempotencyKey, config: invocation.config });
      return handler(invocation);
    },
    schema: async (name) => {
      calls.push({ kind: "schema", name });
      return schemas[name];
    },
  };
  return {
    clock,
    calls,
    journal,
    effects,
    executed: () => calls.flatMap((c) => (c.kind === "execute" ? [c.key] : [])),
    stepStatus: (id) => journal.steps[id]?.status,
    actionStatus: (key) => journal.actions[key]?.status,
  };
}

function runDoc(jobs: StepDocument[], extra: Partial<RunDocument> = {}): RunDocument {
  return {
    runId: "run-1",
    tenantId: "tenant-1",
    workflowId: "wf-1",
    workflowVersion: 1,
    definition: { jobs },
    env: { region: "eu" },
    policyId: null,
    context: { input: { name: "Ada" }, trigger: { id: "manual", type: "webhook" }, run: { id: "run-1" } },
    ...extra,
  };
}

const walk = (w: World, jobs: StepDocument[], extra: Partial<RunDocument> = {}) => new Walker(runDoc(jobs, extra), w.journal, w.effects).walk();

const pipe = (value: unknown, more: Partial<ActionDocument> = {}): ActionDocument => ({ name: "pipe", config: { value }, ...more });
const failing = (message: string, more: Partial<ActionDocument> = {}): ActionDocument => ({ name: "pipe", config: { error: message }, ...more });
const step = (id: string, actions: ActionDocument[], more: Partial<StepDocument> = {}): StepDocument => ({ id, actions, ...more });

/** Every execute call came after a `running` record of the same key (in this walk's calls, or else in the journal it started from), with that record's idempotency key. */
function expectRecordedBeforeExecute(calls: Call[], startedFrom: Journal = { steps: {}, actions: {} }): void {
  calls.forEach((call, i) => {
    if (call.kind !== "execute") return;
    const before = calls.slice(0, i).filter((c): c is Extract<Call, { kind: "action" }> => c.kind === "action" && c.key === call.key);
    const last = before.at(-1)?.record ?? startedFrom.actions[call.key];
    expect(last?.status, `record before executing ${call.key}`).toBe("running");
    expect(call.idempotencyKey).toBe(last!.idempotencyKey ?? `run-1:${call.key}:${last!.attempt}`);
  });
}

describe("conditionPolicy", () => {
  it("a true condition runs the step", async () => {
    const w = world();
    const result = await walk(w, [step("a", [pipe(1, { stepId: "x" })], { condition: "config.env.region = 'eu'", conditionPolicy: "fail" })]);
    expect(result).toEqual({ status: "success", outputs: { a: { x: 1 } } });
    expect(w.executed()).toEqual(["a/0"]);
  });

  const cases = [
    { policy: "continue", run: "success", dependentRuns: true },
    { policy: "abort", run: "success", dependentRuns: false },
    { policy: "fail", run: "error", dependentRuns: false },
    { policy: undefined, run: "error", dependentRuns: false },
  ] as const;
  for (const { policy, run, dependentRuns } of cases) {
    it(`a false condition with ${policy ?? "no"} conditionPolicy: step skipped, run ${run}, dependent ${dependentRuns ? "runs without its output" : "never starts"}`, async () => {
      const w = world();
      const jobs = [
        step("a", [pipe("a-out", { stepId: "x" })], { condition: "context.input.name = 'Bob'", conditionPolicy: policy }),
        step("b", [{ name: "pipe", config: { value: "{{ input }}" }, stepId: "y" }], {
          dependencies: ["a"],
          input: { seen: "{{ $exists(outputs.a) }}", a: "{{ outputs.a }}" },
        }),
      ];
      const result = await walk(w, jobs);
      expect(result.status).toBe(run);
      expect(w.stepStatus("a")).toBe("skipped");
      expect(w.journal.steps.a).toEqual({ status: "skipped", skippedReason: "condition_false", startedAt: 1_000, finishedAt: 1_000 });
      if (dependentRuns) {
        expect(w.executed()).toEqual(["b/0"]);
        expect(w.stepStatus("b")).toBe("success");
        // The dependent's input read `outputs.a`: nothing, so the member is absent.
        expect(w.journal.steps.b.input).toStrictEqual({ seen: false });
        expect(result.outputs).toEqual({ b: { y: { seen: false } } });
      } else {
        expect(w.executed()).toEqual([]);
        // The run ended before b started: it is recorded so, and none of its actions.
        expect(w.journal.steps.b).toEqual({ status: "skipped", skippedReason: "run_ended", finishedAt: 1_000 });
        expect(Object.keys(w.journal.actions)).toEqual([]);
        expect(result.outputs).toEqual({});
      }
    });
  }

  it("a condition that cannot be evaluated is a step error under errorPolicy", async () => {
    const w = world();
    const result = await walk(w, [step("a", [pipe(1)], { condition: "$undefinedFn(1)", errorPolicy: "continue" })]);
    expect(result.status).toBe("success");
    expect(w.journal.steps.a.status).toBe("error");
    expect(w.journal.steps.a.error?.code).toBe("UNPROCESSABLE_ENTITY");
    expect(w.journal.steps.a.error?.message).toMatch(/^condition: /);
    expect(w.executed()).toEqual([]);
  });
});

describe("step errorPolicy", () => {
  const cases = [
    { policy: "continue", run: "success", dependentRuns: true },
    { policy: "abort", run: "success", dependentRuns: false },
    { policy: "fail", run: "error", dependentRuns: false },
    { policy: undefined, run: "error", dependentRuns: false },
  ] as const;
  for (const { policy, run, dependentRuns } of cases) {
    it(`a failing step with ${policy ?? "no"} errorPolicy: step error, run ${run}`, async () => {
      const w = world();
      const jobs = [
        step("a", [failing("boom"), pipe("never")], { errorPolicy: policy }),
        step("b", [pipe("b-out", { stepId: "y" })], { dependencies: ["a"], input: { a: "{{ outputs.a }}" } }),
      ];
      const result = await walk(w, jobs);
      expect(result.status).toBe(run);
      expect(w.journal.steps.a).toMatchObject({ status: "error", error: failure("boom"), consumed: policy === "continue" });
      expect(w.actionStatus("a/0")).toBe("error");
      expect(w.journal.actions["a/1"]).toBeUndefined();
      expect(w.executed()).toEqual(dependentRuns ? ["a/0", "b/0"] : ["a/0"]);
      expect(result.outputs).toEqual(dependentRuns ? { b: { y: "b-out" } } : {});
      if (dependentRuns) expect(w.journal.steps.b.input).toStrictEqual({});
    });
  }
});

describe("actions", () => {
  it("errorPolicy fail (the default) ends the job at the failing action with its error", async () => {
    const w = world();
    const result = await walk(w, [step("a", [pipe(1), failing("bad"), pipe(3)])]);
    expect(result.status).toBe("error");
    expect(w.executed()).toEqual(["a/0", "a/1"]);
    expect(w.journal.steps.a.error).toEqual(failure("bad"));
    expect(w.journal.actions["a/1"]).toMatchObject({ status: "error", error: failure("bad"), attempt: 1, finishedAt: 1_000 });
    expect(w.journal.actions["a/1"].consumed).toBeUndefined();
  });

  it("errorPolicy continue consumes the error: the action stays error, the job goes on and succeeds", async () => {
    const w = world();
    const result = await walk(w, [step("a", [failing("bad", { stepId: "f", errorPolicy: "continue" }), pipe(2, { stepId: "n" })])]);
    expect(result).toEqual({ status: "success", outputs: { a: { n: 2 } } });
    expect(w.executed()).toEqual(["a/0", "a/1"]);
    expect(w.journal.actions["a/0"]).toMatchObject({ status: "error", consumed: true, error: failure("bad") });
    expect(w.journal.steps.a.status).toBe("success");
  });

  it("onError runs before the errorPolicy decides, and its actions see the job's outputs", async () => {
    const w = world();
    const jobs = [
      step("cont", [
        pipe("first", { stepId: "p" }),
        failing("x", { errorPolicy: "continue", onError: [pipe("{{ outputs.p }}", { stepId: "cleanup" })] }),
        pipe("after"),
      ]),
      step("fail", [failing("y", { onError: [pipe("handled")], onSuccess: [pipe("not me")] }), pipe("never")], {
        dependencies: ["cont"],
        errorPolicy: "continue",
      }),
    ];
    const result = await walk(w, jobs);
    expect(w.executed()).toEqual(["cont/0", "cont/1", "cont/1.onError.0", "cont/2", "fail/0", "fail/0.onError.0"]);
    expect(w.journal.actions["cont/1.onError.0"].result).toBe("first");
    // The consumed mark is recorded after onError ran: the policy decided last.
    const order = w.calls.flatMap((c) => (c.kind === "action" ? [`${c.key}:${c.record.status}${c.record.consumed ? ":consumed" : ""}`] : []));
    expect(order.indexOf("cont/1:error:consumed")).toBeGreaterThan(order.indexOf("cont/1.onError.0:success"));
    expect(result.status).toBe("success");
    expect(w.journal.steps.fail).toMatchObject({ status: "error", error: failure("y") });
  });

  it("a failing onError action ends the job with its own error", async () => {
    const w = world();
    const result = await walk(w, [step("a", [failing("outer", { errorPolicy: "continue", onError: [failing("inner")] }), pipe(2)])]);
    expect(result.status).toBe("error");
    expect(w.executed()).toEqual(["a/0", "a/0.onError.0"]);
    expect(w.journal.steps.a.error).toEqual(failure("inner"));
  });

  it("onSuccess runs after success only, in order, before the next action", async () => {
    const w = world();
    const result = await walk(w, [
      step("a", [
        pipe(1, { stepId: "one", onSuccess: [pipe("{{ outputs.one + 1 }}", { stepId: "two" })], onError: [pipe("no")] }),
        failing("x", { errorPolicy: "continue", onSuccess: [pipe("no")] }),
        pipe(3, { stepId: "three" }),
      ]),
    ]);
    expect(w.executed()).toEqual(["a/0", "a/0.onSuccess.0", "a/1", "a/2"]);
    expect(result).toEqual({ status: "success", outputs: { a: { one: 1, two: 2, three: 3 } } });
  });

  it("a false `if` skips the action and its onSuccess; `if` sees input and outputs", async () => {
    const w = world();
    const result = await walk(w, [
      step(
        "a",
        [
          pipe(5, { stepId: "n" }),
          pipe("skipped", { if: "outputs.n > input.limit", onSuccess: [pipe("nor me")] }),
          pipe("ran", { if: "outputs.n <= input.limit", stepId: "r" }),
        ],
        { input: { limit: 10 } },
      ),
    ]);
    expect(w.executed()).toEqual(["a/0", "a/2"]);
    expect(w.journal.actions["a/1"]).toEqual({
      key: "a/1",
      jobId: "a",
      name: "pipe",
      status: "skipped",
      skippedReason: "if_false",
      attempt: 0,
      startedAt: 1_000,
      finishedAt: 1_000,
    });
    expect(w.journal.actions["a/1.onSuccess.0"]).toBeUndefined();
    expect(result.outputs).toEqual({ a: { n: 5, r: "ran" } });
  });

  it("a truthy errorWhen marks the action failed; it sees result, input and outputs", async () => {
    const w = world();
    const result = await walk(w, [
      step(
        "a",
        [
          pipe({ code: 200 }, { stepId: "ok", errorWhen: "result.code >= input.max" }),
          pipe({ code: 503 }, { stepId: "bad", errorWhen: "result.code >= input.max and outputs.ok.code = 200" }),
        ],
        { input: { max: 500 } },
      ),
    ]);
    expect(result.status).toBe("error");
    expect(w.journal.actions["a/0"].status).toBe("success");
    expect(w.journal.actions["a/1"]).toMatchObject({
      status: "error",
      result: { code: 503 },
      error: { code: "UNPROCESSABLE_ENTITY", details: { result: { code: 503 } } },
    });
    expect(w.journal.actions["a/1"].error?.message).toBe("Action bad: errorWhen holds for its result");
  });

  it("an http action fails on a 4xx or 5xx result unless its errorWhen says otherwise", async () => {
    const w = world(({ config }) => ({ kind: "success", result: { status: (config as { status: number }).status, headers: {}, body: null } }));
    const http = (status: number, more: Partial<ActionDocument> = {}): ActionDocument => ({
      name: "http",
      config: { status },
      errorPolicy: "continue",
      ...more,
    });
    await walk(w, [step("a", [http(204), http(404), http(404, { errorWhen: "result.status >= 500" })])]);
    expect(["a/0", "a/1", "a/2"].map(w.actionStatus)).toEqual(["success", "error", "success"]);
  });

  it("config is validated by execute: an error outcome for a bad config fails the action like any other", async () => {
    const problem = errorValue("VALIDATION_FAILED", "The action's config is invalid", { errors: ["config.value: is required"] });
    const w = world(({ config }) => ((config as { value?: unknown }).value === undefined ? { kind: "error", error: problem } : { kind: "success", result: 1 }));
    const result = await walk(w, [step("a", [{ name: "pipe", config: {} }])]);
    expect(result.status).toBe("error");
    expect(w.journal.steps.a.error).toEqual(problem);
    expect(w.calls.filter((c) => c.kind === "execute")).toEqual([{ kind: "execute", key: "a/0", idempotencyKey: "run-1:a/0:1", config: {} }]);
  });

  it("a runaway expression in a config fails that action with a clear error, without executing it", async () => {
    const w = world();
    const loop = { $jsonata: "(function($f){ $f($f) })(function($f){ $f($f) })" };
    const started = Date.now();
    const result = await walk(w, [step("a", [{ name: "pipe", config: { value: loop } }])]);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(result.status).toBe("error");
    expect(w.executed()).toEqual([]);
    const error = w.journal.actions["a/0"].error!;
    expect(error.code).toBe("UNPROCESSABLE_ENTITY");
    expect(error.details).toEqual({ field: "config" });
    expect(error.message).toMatch(
      /^config: value\.\$jsonata: expression (exceeded 1000000 evaluation steps|ran longer than 1000 ms|nested deeper than 500 levels)$/,
    );
    expect(w.journal.steps.a.error).toEqual(error);
  });
});

/** An execute that holds every call until `release(key)`, logging starts and ends. */
function gated() {
  const log: string[] = [];
  const waiters = new Map<string, () => void>();
  const started = new Map<string, () => void>();
  const startedPromises = new Map<string, Promise<void>>();
  const whenStarted = (key: string) => {
    if (!startedPromises.has(key)) startedPromises.set(key, new Promise<void>((r) => started.set(key, r)));
    return startedPromises.get(key)!;
  };
  const handler: Handler = async (inv) => {
    const key = inv.record.key;
    log.push(`start ${key}`);
    whenStarted(key);
    started.get(key)!();
    await new Promise<void>((r) => waiters.set(key, r));
    log.push(`end ${key}`);
    return scripted(inv);
  };
  const release = async (key: string) => {
    await whenStarted(key);
    waiters.get(key)!();
  };
  return { log, handler, release, whenStarted };
}

describe("secrets in a step's input", () => {
  const marker = "\u0000missing-secret:secrets.tenant.CRM_TOKEN\u0000";

  it("an input reading a secret without a value fails its job with Missing secrets. before any action", async () => {
    const w = world();
    const jobs = [step("a", [pipe(1)], { input: { token: "{{ config.env.TOKEN }}", url: "{{ config.env.URL }}" } }), step("b", [pipe(2)])];
    const result = await walk(w, jobs, { env: { TOKEN: `Bearer ${marker}`, URL: "https://x.example" } });
    expect(result.status).toBe("error");
    expect(w.executed()).toEqual(["b/0"]);
    expect(w.journal.steps.a).toMatchObject({
      status: "error",
      error: { status: 422, code: "UNPROCESSABLE_ENTITY", message: "Missing secrets.", details: { missing_secrets: ["secrets.tenant.CRM_TOKEN"] } },
    });
    // The step's input is never recorded with the marker in it.
    expect(w.journal.steps.a.input).toBeUndefined();
  });

  it("a step that does not read the missing secret runs", async () => {
    const w = world();
    const result = await walk(w, [step("a", [pipe("{{ input.url }}", { stepId: "x" })], { input: { url: "{{ config.env.URL }}" } })], {
      env: { TOKEN: marker, URL: "https://x.example" },
    });
    expect(result).toEqual({ status: "success", outputs: { a: { x: "https://x.example" } } });
  });
});

describe("the DAG", () => {
  it("independent steps run concurrently; a step waits for all its dependencies", async () => {
    const g = gated();
    const w = world(g.handler);
    const done = walk(w, [
      step("a", [pipe("A", { stepId: "v" })]),
      step("b", [pipe("B", { stepId: "v" })]),
      step("c", [pipe("{{ input }}", { stepId: "v" })], { dependencies: ["a", "b"], input: "{{ outputs.a.v & outputs.b.v }}" }),
    ]);
    // Both started while neither has finished: the second start happened with the first held.
    await g.whenStarted("a/0");
    await g.whenStarted("b/0");
    expect(g.log).toEqual(["start a/0", "start b/0"]);
    await g.release("b/0");
    await g.release("a/0");
    await g.release("c/0");
    const result = await done;
    expect(g.log).toEqual(["start a/0", "start b/0", "end b/0", "end a/0", "start c/0", "end c/0"]);
    expect(result).toEqual({ status: "success", outputs: { a: { v: "A" }, b: { v: "B" }, c: { v: "AB" } } });
  });

  it("a diamond: the two middle steps overlap, the last sees both and the shared root", async () => {
    const g = gated();
    const w = world(g.handler);
    const done = walk(w, [
      step("d", [pipe("{{ input }}", { stepId: "v" })], {
        dependencies: ["b", "c"],
        input: { b: "{{ outputs.b.v }}", c: "{{ outputs.c.v }}", a: "{{ outputs.a.v }}" },
      }),
      step("b", [pipe("{{ input }}", { stepId: "v" })], { dependencies: ["a"], input: "{{ outputs.a.v & 'b' }}" }),
      step("c", [pipe("{{ input }}", { stepId: "v" })], { dependencies: ["a"], input: "{{ outputs.a.v & 'c' }}" }),
      step("a", [pipe("a", { stepId: "v" })]),
    ]);
    await g.release("a/0");
    await g.whenStarted("b/0");
    await g.whenStarted("c/0");
    expect(g.log).toEqual(["start a/0", "end a/0", "start b/0", "start c/0"]);
    await g.release("c/0");
    await g.release("b/0");
    await g.release("d/0");
    const result = await done;
    expect(g.log.slice(4)).toEqual(["end c/0", "end b/0", "start d/0", "end d/0"]);
    expect(result.outputs.d).toEqual({ v: { a: "a", b: "ab", c: "ac" } });
  });

  it("a step sees only the outputs of the steps it depends on, never one that merely finished first", async () => {
    const g = gated();
    const w = world(g.handler);
    const done = walk(w, [
      step("a", [pipe("A", { stepId: "v" })]),
      step("b", [pipe("B", { stepId: "v" })]),
      step("c", [pipe("{{ input }}", { stepId: "v" })], { dependencies: ["b"], input: { a: "{{ outputs.a.v }}", b: "{{ outputs.b.v }}" } }),
    ]);
    await g.release("a/0");
    await g.release("b/0");
    await g.release("c/0");
    await done;
    expect(g.log.indexOf("end a/0")).toBeLessThan(g.log.indexOf("start c/0"));
    expect(w.journal.steps.c.input).toStrictEqual({ b: "B" });
  });

  it("a run decided by one step cancels the steps still running: they start no further action", async () => {
    const g = gated();
    const w = world(g.handler);
    const done = walk(w, [step("slow", [pipe(1), pipe(2)]), step("bad", [failing("stop")])]);
    await g.whenStarted("slow/0");
    await g.release("bad/0");
    // Let `bad` record its error before `slow`'s first action finishes.
    while (w.stepStatus("bad") !== "error") await Promise.resolve();
    await g.release("slow/0");
    const result = await done;
    expect(result.status).toBe("error");
    expect(w.executed()).toEqual(["slow/0", "bad/0"]);
    expect(w.journal.actions["slow/0"].status).toBe("success");
    // Never started, and recorded so: the run ended first.
    expect(w.journal.actions["slow/1"]).toEqual({
      key: "slow/1",
      jobId: "slow",
      name: "pipe",
      status: "skipped",
      skippedReason: "run_ended",
      attempt: 0,
      finishedAt: 1_000,
    });
    expect(w.journal.steps.slow).toMatchObject({ status: "cancelled", finishedAt: 1_000 });
  });

  it("a decided run cancels a step waiting for input, and its waiting action", async () => {
    const w = world();
    const result = await walk(w, [step("wait", [{ name: "awaitInput", config: { wait: 5_000 } }]), step("bad", [failing("stop")], { errorPolicy: "abort" })]);
    expect(result.status).toBe("success");
    expect(w.stepStatus("wait")).toBe("cancelled");
    expect(w.journal.actions["wait/0"]).toMatchObject({ status: "cancelled", until: undefined });
    expect(w.stepStatus("bad")).toBe("error");
  });

  it("fail wins over abort whichever step decided first", async () => {
    const w = world();
    const result = await walk(w, [step("ab", [failing("a")], { errorPolicy: "abort" }), step("fa", [failing("f")], { errorPolicy: "fail" })]);
    expect(result.status).toBe("error");
  });
});

describe("scopes", () => {
  it("a step's input sees outputs, context and config.env; the job's actions read it as input", async () => {
    const w = world();
    const result = await walk(w, [
      step("a", [pipe({ n: 41 }, { stepId: "x" })]),
      step("b", [pipe("{{ input }}", { stepId: "got" })], {
        dependencies: ["a"],
        input: { prev: "{{ outputs.a.x.n + 1 }}", who: "{{ context.input.name }}", region: "{{ config.env.region }}", run: "{{ context.run.id }}" },
      }),
    ]);
    expect(w.journal.steps.b.input).toEqual({ prev: 42, who: "Ada", region: "eu", run: "run-1" });
    expect(result.outputs.b).toEqual({ got: { prev: 42, who: "Ada", region: "eu", run: "run-1" } });
  });

  it("an action's config reading context or config.env gets nothing: the member is absent", async () => {
    const w = world();
    await walk(w, [
      step("a", [{ name: "pipe", config: { value: 1, ctx: "{{ context.input.name }}", env: "{{ config.env.region }}", text: "[{{ context.input.name }}]" } }]),
    ]);
    const call = w.calls.find((c) => c.kind === "execute")!;
    expect(call).toMatchObject({ kind: "execute" });
    expect((call as { config: unknown }).config).toStrictEqual({ value: 1, text: "[]" });
  });

  it("a job's output is its `output` smart value over input and outputs, or else the map of action results", async () => {
    const w = world();
    const result = await walk(w, [
      step("shaped", [pipe(2, { stepId: "two" }), pipe(3, { stepId: "three" })], {
        input: { base: 10 },
        output: { sum: "{{ input.base + outputs.two + outputs.three }}" },
      }),
      step("plain", [pipe("x", { stepId: "x" }), pipe("unnamed"), pipe("y", { stepId: "y" })]),
      step("later", [pipe("{{ input }}", { stepId: "v" })], { dependencies: ["shaped", "plain"], input: "{{ outputs.shaped.sum & '/' & outputs.plain.y }}" }),
    ]);
    expect(result.outputs).toEqual({ shaped: { sum: 15 }, plain: { x: "x", y: "y" }, later: { v: "15/y" } });
    expect(w.journal.steps.shaped).toMatchObject({ status: "success", input: { base: 10 }, output: { sum: 15 } });
  });

  it("an output expression that fails is a step error", async () => {
    const w = world();
    const result = await walk(w, [step("a", [pipe(1)], { output: "{{ $undefinedFn() }}" })]);
    expect(result.status).toBe("error");
    expect(w.journal.steps.a.error?.message).toMatch(/^output: /);
  });
});

describe("schemas", () => {
  const numberSchema = { type: "object", properties: { n: { type: "number" } }, required: ["n"] };

  it("an embedded input schema refuses the input before any action runs, and the step records that input", async () => {
    const w = world();
    const result = await walk(w, [step("a", [pipe(1)], { input: { n: "{{ context.input.name }}" }, inputSchema: numberSchema })]);
    expect(result.status).toBe("error");
    expect(w.executed()).toEqual([]);
    expect(w.journal.steps.a).toMatchObject({
      status: "error",
      input: { n: "Ada" },
      error: { status: 422, code: "VALIDATION_FAILED", message: "The step's input does not satisfy its schema" },
    });
    expect(w.journal.steps.a.error!.details.errors).toEqual(["input.n: must be number, got string"]);
    // One record: the failure, never a `running` step that was then refused.
    expect(w.calls.filter((c) => c.kind === "step")).toHaveLength(1);
  });

  it("a named input schema comes from effects.schema", async () => {
    const w = world(scripted, { Numbered: numberSchema });
    const bad = await walk(w, [step("a", [pipe(1)], { input: { n: "x" }, inputSchemaName: "Numbered" })]);
    expect(bad.status).toBe("error");
    expect(w.calls.filter((c) => c.kind === "schema")).toEqual([{ kind: "schema", name: "Numbered" }]);
    expect(w.journal.steps.a.error?.code).toBe("VALIDATION_FAILED");

    const w2 = world(scripted, { Numbered: numberSchema });
    const good = await walk(w2, [step("a", [pipe(1, { stepId: "one" })], { input: { n: 1 }, inputSchemaName: "Numbered" })]);
    expect(good).toEqual({ status: "success", outputs: { a: { one: 1 } } });
  });

  it("an output schema, embedded or named, refuses the job's output after its actions ran", async () => {
    const w = world(scripted, { Numbered: numberSchema });
    const result = await walk(w, [
      step("emb", [pipe("text", { stepId: "n" })], { outputSchema: numberSchema, errorPolicy: "continue" }),
      step("named", [pipe(7, { stepId: "n" })], { outputSchemaName: "Numbered" }),
      step("named-bad", [pipe("7", { stepId: "n" })], { outputSchemaName: "Numbered", errorPolicy: "continue" }),
    ]);
    expect(result).toEqual({ status: "success", outputs: { named: { n: 7 } } });
    expect(w.executed().sort()).toEqual(["emb/0", "named-bad/0", "named/0"]);
    expect(w.journal.steps.emb.error).toMatchObject({ code: "VALIDATION_FAILED", message: "The step's output does not satisfy its schema" });
    expect(w.journal.steps["named-bad"]).toMatchObject({ status: "error", consumed: true, error: { code: "VALIDATION_FAILED" } });
  });
});

describe("records before effects, and replay", () => {
  const job = () => [
    step("a", [
      pipe(1, { stepId: "one", onSuccess: [pipe("s")] }),
      failing("x", { errorPolicy: "continue", onError: [pipe("e")] }),
      pipe(3, { stepId: "three" }),
    ]),
    step("b", [pipe("{{ input }}", { stepId: "v" })], { dependencies: ["a"], input: "{{ outputs.a.three }}" }),
  ];

  it("every execute follows a `running` record of that action and attempt", async () => {
    const w = world();
    await walk(w, job());
    expect(w.executed()).toHaveLength(6);
    expectRecordedBeforeExecute(w.calls);
    // A step is recorded running with its input before its first action.
    const firstB = w.calls.findIndex((c) => c.kind === "step" && c.id === "b");
    expect(w.calls[firstB]).toMatchObject({ record: { status: "running", input: 3 } });
    expect(w.calls.findIndex((c) => c.kind === "execute" && c.key === "b/0")).toBeGreaterThan(firstB);
  });

  it("a walk over a finished journal executes nothing and answers the same", async () => {
    const first = world();
    const result = await walk(first, job());
    const again = world(scripted, {}, structuredClone(first.journal));
    expect(await walk(again, job())).toEqual(result);
    expect(again.executed()).toEqual([]);
  });

  it("each crash point resumes without redoing a recorded outcome", async () => {
    const full = world();
    const expected = await walk(full, job());
    const records = full.calls.filter((c) => c.kind !== "execute" && c.kind !== "schema");
    for (let n = 0; n <= records.length; n++) {
      // The journal as it stood after the n-th record: a crash right there.
      const journal: Journal = { steps: {}, actions: {} };
      for (const c of records.slice(0, n)) {
        if (c.kind === "step") journal.steps[c.id] = structuredClone(c.record);
        else if (c.kind === "action") journal.actions[c.key] = structuredClone(c.record);
      }
      const finishedBefore = Object.values(journal.actions)
        .filter((r) => r.status !== "running")
        .map((r) => r.key);
      const resumed = world(scripted, {}, structuredClone(journal));
      expect(await walk(resumed, job()), `crash after record ${n}`).toEqual(expected);
      for (const key of finishedBefore) expect(resumed.executed()).not.toContain(key);
      expectRecordedBeforeExecute(resumed.calls, journal);
      // The same journal, but for an action caught `running`: its resend counts one attempt more.
      const ended = structuredClone(full.journal);
      for (const rec of Object.values(journal.actions)) if (rec.status === "running") ended.actions[rec.key].attempt += 1;
      expect(resumed.journal).toEqual(ended);
    }
  });

  it("an action recorded `running` (a crash after its record) is executed again as the next attempt, with the same idempotency key and the recorded config", async () => {
    const journal: Journal = {
      steps: { a: { status: "running", input: { n: 1 }, startedAt: 500 } },
      actions: {
        "a/0": {
          key: "a/0",
          jobId: "a",
          stepId: "one",
          name: "pipe",
          status: "success",
          attempt: 1,
          config: { value: 1 },
          result: 1,
          startedAt: 500,
          finishedAt: 600,
        },
        "a/1": { key: "a/1", jobId: "a", stepId: "two", name: "pipe", status: "running", attempt: 1, config: { value: "recorded" }, startedAt: 700 },
      },
    };
    const w = world(scripted, {}, journal);
    const result = await walk(w, [step("a", [pipe(1, { stepId: "one" }), pipe("{{ input.n }}", { stepId: "two" })], { input: { n: 2 } })]);
    expect(w.calls.filter((c) => c.kind === "execute")).toEqual([
      { kind: "execute", key: "a/1", idempotencyKey: "run-1:a/1:1", config: { value: "recorded" } },
    ]);
    expect(w.calls[0]).toMatchObject({ kind: "action", key: "a/1", record: { status: "running", attempt: 2, idempotencyKey: "run-1:a/1:1" } });
    expect(w.journal.actions["a/1"]).toMatchObject({ status: "success", attempt: 2, idempotencyKey: "run-1:a/1:1" });
    expect(result).toEqual({ status: "success", outputs: { a: { one: 1, two: "recorded" } } });
    expect(w.journal.steps.a).toMatchObject({ input: { n: 1 }, startedAt: 500, finishedAt: 1_000 });
  });

  const waitingJournal = (record: Partial<ActionRecord>): Journal => ({
    steps: { a: { status: "waiting", input: {}, startedAt: 500 } },
    actions: {
      "a/0": { key: "a/0", jobId: "a", stepId: "w", name: "pipe", status: "waiting", attempt: 1, config: { value: "late" }, startedAt: 500, ...record },
    },
  });
  const waitingJob = () => [step("a", [pipe("late", { stepId: "w" })])];

  it("a waiting action with `until` in the future suspends the run with that wakeAt, executing nothing", async () => {
    const w = world(scripted, {}, waitingJournal({ until: 5_000 }));
    expect(await walk(w, waitingJob())).toEqual({ status: "suspended", wakeAt: 5_000, outputs: {} });
    expect(w.calls).toEqual([]);
  });

  it("a waiting action without `until` suspends with no wakeAt (it waits for input)", async () => {
    const w = world(scripted, {}, waitingJournal({}));
    expect(await walk(w, waitingJob())).toEqual({ status: "suspended", wakeAt: undefined, outputs: {} });
  });

  it("a due waiting action is recorded running again, then executed with its current attempt", async () => {
    const w = world(scripted, {}, waitingJournal({ until: 900, attempt: 2 }));
    const result = await walk(w, waitingJob());
    expect(result).toEqual({ status: "success", outputs: { a: { w: "late" } } });
    expect(w.calls[0]).toMatchObject({ kind: "action", key: "a/0", record: { status: "running", attempt: 2, until: 900 } });
    expect(w.calls[1]).toEqual({ kind: "execute", key: "a/0", idempotencyKey: "run-1:a/0:2", config: { value: "late" } });
    expect(w.journal.actions["a/0"]).toMatchObject({ status: "success", result: "late", until: undefined });
  });

  it("an action resent after a crash is told so, and a crash during the resend resends it once more under the same key", async () => {
    const resent: boolean[] = [];
    const w = world(
      (invocation) => {
        resent.push(invocation.resent === true);
        return { kind: "success", result: invocation.record.attempt };
      },
      {},
      waitingJournal({ status: "running", attempt: 3, idempotencyKey: "run-1:a/0:2" }),
    );
    expect(await walk(w, waitingJob())).toEqual({ status: "success", outputs: { a: { w: 4 } } });
    expect(resent).toEqual([true]);
    expect(w.calls.filter((c) => c.kind === "execute")).toEqual([{ kind: "execute", key: "a/0", idempotencyKey: "run-1:a/0:2", config: { value: "late" } }]);
    expect(w.journal.actions["a/0"]).toMatchObject({ status: "success", attempt: 4, idempotencyKey: "run-1:a/0:2" });

    const fresh = world((invocation) => {
      resent.push(invocation.resent === true);
      return { kind: "success", result: null };
    });
    await walk(fresh, [step("a", [pipe(1)])]);
    expect(resent).toEqual([true, false]);
    expect(fresh.journal.actions["a/0"]).toMatchObject({ attempt: 1, idempotencyKey: "run-1:a/0:1" });
  });

  it("a retry wait is the next attempt at `until`; a deadline wait is the same attempt", async () => {
    let calls = 0;
    const answers: ActionOutcome[] = [
      { kind: "wait", until: 2_000, retry: true, detail: { reason: "429" } },
      { kind: "wait", until: 3_000 },
      { kind: "success", result: "finally" },
    ];
    const w = world(() => answers[calls++]);
    const jobs = [step("a", [{ name: "pipe" as const, stepId: "r", config: {} }])];
    expect(await walk(w, jobs)).toEqual({ status: "suspended", wakeAt: 2_000, outputs: {} });
    expect(w.journal.steps.a.status).toBe("waiting");
    expect(w.journal.actions["a/0"]).toMatchObject({ status: "waiting", attempt: 2, until: 2_000, detail: { reason: "429" } });

    // Too early: nothing happens.
    w.clock.now = 1_999;
    expect(await new Walker(runDoc(jobs), w.journal, w.effects).walk()).toMatchObject({ status: "suspended", wakeAt: 2_000 });
    w.clock.now = 2_000;
    expect(await new Walker(runDoc(jobs), w.journal, w.effects).walk()).toMatchObject({ status: "suspended", wakeAt: 3_000 });
    expect(w.journal.actions["a/0"]).toMatchObject({ status: "waiting", attempt: 2, until: 3_000, detail: { reason: "429" } });
    w.clock.now = 3_000;
    expect(await new Walker(runDoc(jobs), w.journal, w.effects).walk()).toEqual({ status: "success", outputs: { a: { r: "finally" } } });
    // Every attempt of the action carries one key: a target deduplicating by it applies the action once.
    expect(w.calls.flatMap((c) => (c.kind === "execute" ? [c.idempotencyKey] : []))).toEqual(["run-1:a/0:1", "run-1:a/0:1", "run-1:a/0:1"]);
    expectRecordedBeforeExecute(w.calls);
  });

  it("a policy decision recorded before a crash decides the resumed walk the same way", async () => {
    const jobs = [step("a", [pipe(1)], { condition: "false", conditionPolicy: "fail" }), step("b", [pipe(2)], { dependencies: ["a"] })];
    const w = world(scripted, {}, { steps: { a: { status: "skipped", startedAt: 1, finishedAt: 1 } }, actions: {} });
    expect(await walk(w, jobs)).toEqual({ status: "error", outputs: {} });
    expect(w.executed()).toEqual([]);

    const failed = world(scripted, {}, { steps: { a: { status: "error", error: failure("x"), consumed: false } }, actions: {} });
    expect(await walk(failed, [step("a", [pipe(1)], { errorPolicy: "abort" }), step("b", [pipe(2)], { dependencies: ["a"] })])).toEqual({
      status: "success",
      outputs: {},
    });
    expect(failed.executed()).toEqual([]);
  });
});

describe("actionPositions", () => {
  const nested: ActionDocument[] = [
    pipe(0, { onSuccess: [pipe(1, { onError: [pipe(2)] }), pipe(3)], onError: [pipe(4)] }),
    pipe(5, { onError: [pipe(6, { onSuccess: [pipe(7)] })] }),
  ];

  it("numbers a job's actions depth-first: an action, its onSuccess subtree, then its onError subtree", () => {
    expect([...actionPositions(nested)]).toEqual([
      ["0", 0],
      ["0.onSuccess.0", 1],
      ["0.onSuccess.0.onError.0", 2],
      ["0.onSuccess.1", 3],
      ["0.onError.0", 4],
      ["1", 5],
      ["1.onError.0", 6],
      ["1.onError.0.onSuccess.0", 7],
    ]);
    expect(actionPositions([]).size).toBe(0);
  });

  it("has a position for every key the walker records", async () => {
    const w = world();
    const actions = [failing("x", { errorPolicy: "continue", onError: [pipe(1, { onSuccess: [pipe(2)] })] }), pipe(3, { onSuccess: [pipe(4)] })];
    await walk(w, [step("job", actions)]);
    const positions = actionPositions(actions);
    const keys = Object.keys(w.journal.actions).map((k) => k.slice("job/".length));
    expect(keys.map((k) => positions.get(k))).toEqual([0, 1, 2, 3, 4]);
  });
});
