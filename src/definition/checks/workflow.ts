// The save-time checks only a workflow or a published job has: the job
// graph (step ids, dependencies, cycles), the action lists (stepIds, nesting,
// the `http` knobs), triggers and their filters. The checks any document kind
// shares (profiles, secrets, expressions, embedded schemas) are given the
// workflow kind's read scopes (./kinds.ts) here. Each check reads the document defensively, so
// they all run even when the schema layer has already refused its shape.
import { cronProblem } from "../language/cron-expression";
import { check } from "../../lib/validate";
import { attributeFilterProblems } from "../language/attribute-filters";
import { ACTION_DECLARATIONS } from "../language/actions";
import { LIMITS, type ActionName } from "../language/workflow-schema";
import { checkRequestAuth, checkRootProfiles, inlineProfileScope } from "./auth-profiles";
import { child, Collector, has, items, type Findings, type Obj } from "./collector";
import { Expressions, type ReadScope } from "./expressions";
import { rootProfileScope } from "./kinds";
import { checkContracts } from "./schemas";
import { secretTexts } from "./secrets";
import { isObject } from "../../lib/is-object";

const PROFILE_SCOPE = rootProfileScope("workflow");
/** An inline auth block on an action reads what the action's config reads. */
const ACTION_AUTH_SCOPE = inlineProfileScope(["input", "outputs"]);
/** What an action's config is resolved against when the action runs. */
const ACTION_CONFIG_SCOPE = {
  reads: ["input", "outputs"],
  code: "expression_scope",
  explanation: "an action's config reads only input (the job's input) and outputs (the results of the job's earlier actions)",
} as const satisfies ReadScope;

const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
/** Actions whose config carries `auth`, `headers` and `query` of an outbound request. */
const OUTBOUND_ACTIONS = new Set(["http", "httpCallback"]);
/** A value decided at run time: a string with a `{{ }}` template, or a `$jsonata` directive. */
const templated = (v: unknown) => (typeof v === "string" && v.includes("{{")) || (isObject(v) && has(v, "$jsonata"));
/** A value resolved to itself: no `{{ }}` template and no `$`-directive anywhere in it. */
function literal(v: unknown): boolean {
  if (typeof v === "string") return !v.includes("{{");
  if (Array.isArray(v)) return v.every(literal);
  if (isObject(v)) return Object.entries(v).every(([key, value]) => !key.startsWith("$") && literal(value));
  return true;
}

// --- actions --------------------------------------------------------------

const integerIn = (min: number, max: number) => (v: unknown) => Number.isInteger(v) && (v as number) >= min && (v as number) <= max;
/** Literal `http` knobs and what each accepts; a templated value is checked when the action runs. */
const KNOBS: Record<string, [accepts: (v: unknown) => boolean, rule: string]> = {
  timeoutMs: [integerIn(1000, 115_000), "must be an integer from 1000 to 115000"],
  maxRetries: [integerIn(0, 5), "must be an integer from 0 to 5"],
  initialRetryDelayMs: [integerIn(0, Number.MAX_SAFE_INTEGER), "must be an integer of 0 or more"],
  maxRetryDelayMs: [integerIn(0, Number.MAX_SAFE_INTEGER), "must be an integer of 0 or more"],
  redirect: [(v) => v === "follow" || v === "manual", "must be follow or manual"],
  method: [(v) => typeof v === "string" && HTTP_METHODS.includes(v), `must be one of ${HTTP_METHODS.join(", ")}`],
};
const DEFAULT_DELAYS = { initialRetryDelayMs: 15_000, maxRetryDelayMs: 60_000 };

function checkHttpKnobs(found: Collector, config: Obj, path: string): void {
  for (const [knob, [accepts, rule]] of Object.entries(KNOBS)) {
    const value = config[knob];
    if (value === undefined || templated(value) || accepts(value)) continue;
    found.add(child(path, knob), "http_option_invalid", `${rule}, or a {{ }} template`);
  }
  const initial = config.initialRetryDelayMs ?? DEFAULT_DELAYS.initialRetryDelayMs;
  const max = config.maxRetryDelayMs ?? DEFAULT_DELAYS.maxRetryDelayMs;
  if (Number.isInteger(initial) && Number.isInteger(max) && (max as number) < (initial as number)) {
    found.add(child(path, "maxRetryDelayMs"), "http_option_invalid", `must be at least initialRetryDelayMs (${initial})`);
  }
}

interface JobContext {
  declared: Map<string, Obj> | null;
  stepIds: Map<string, string>;
  count: number;
  expressions: Expressions;
  /** What literal configs' schemas refuse, added once the other checks have named their paths (configChecked). */
  configLines: string[];
  /** What an action's config may read; unchecked when absent (an app's actions read the render context). */
  configScope?: ReadScope;
}

/**
 * A literal config (an absent one is `{}`) is checked now against its
 * action's schema, as the action would check it when it runs.
 */
function checkLiteralConfig(job: JobContext, action: Obj, path: string): void {
  const declared =
    typeof action.name === "string" && Object.hasOwn(ACTION_DECLARATIONS, action.name) ? ACTION_DECLARATIONS[action.name as ActionName] : undefined;
  const config = action.config ?? {};
  if (!declared || !literal(config)) return;
  job.configLines.push(...check(declared.configSchema, config, path).filter((line) => !/^\.\.\. and \d+ more errors$/.test(line)));
}

/** The literal configs' lines, but for a path another line already names (the `http` knobs, the document's schema). */
export function configChecked(found: Collector, lines: string[], schemaLines: string[]): void {
  const pathOf = (line: string) => line.slice(0, line.indexOf(": "));
  const named = new Set([...schemaLines, ...found.lines].map(pathOf));
  for (const line of lines) if (!named.has(pathOf(line))) found.addLine(line, "action_config_invalid");
}

function checkSequence(found: Collector, sequence: unknown, path: string, depth: number, job: JobContext): void {
  if (!Array.isArray(sequence)) return;
  if (depth > LIMITS.nesting) {
    found.add(path, "nesting_too_deep", `nests onSuccess/onError deeper than ${LIMITS.nesting} levels`);
    return;
  }
  sequence.forEach((action, i) => {
    if (job.count++ === LIMITS.actionsPerJob)
      found.add(path, "too_many_actions", `a job holds at most ${LIMITS.actionsPerJob} actions, onSuccess and onError included`);
    if (job.count > LIMITS.actionsPerJob || !isObject(action)) return;
    const at = child(path, i);
    if (typeof action.stepId === "string") {
      const first = job.stepIds.get(action.stepId);
      if (first) found.add(child(at, "stepId"), "duplicate_step_id", `${JSON.stringify(action.stepId)} is already the stepId of ${first}`);
      else job.stepIds.set(action.stepId, at);
    }
    job.expressions.bare(action, "if", at);
    job.expressions.bare(action, "errorWhen", at);
    const config = action.config;
    if (isObject(config)) {
      const configAt = child(at, "config");
      // An inline auth block is collected with its narrower scope; the rest of the config is a smart value.
      const { auth, ...rest } = config;
      job.expressions.smartValue(rest, configAt, job.configScope);
      if (typeof action.name === "string" && OUTBOUND_ACTIONS.has(action.name))
        checkRequestAuth(found, config, configAt, job.declared, ACTION_AUTH_SCOPE, job.expressions);
      else job.expressions.smartValue(auth, child(configAt, "auth"), job.configScope);
      if (action.name === "http") checkHttpKnobs(found, config, configAt);
    }
    if (action.config === undefined || isObject(action.config)) checkLiteralConfig(job, action, child(at, "config"));
    checkSequence(found, action.onSuccess, child(at, "onSuccess"), depth + 1, job);
    checkSequence(found, action.onError, child(at, "onError"), depth + 1, job);
  });
}

/**
 * The job checks of one action list outside a workflow (an app's inline job
 * or `actions` command): stepIds, nesting, `http` knobs and profiles against
 * `declared`, literal configs (their lines land in `configLines`, for
 * configChecked); config reads are not scope-checked.
 */
export function checkActionList(
  found: Collector,
  actions: unknown,
  path: string,
  declared: Map<string, Obj>,
  expressions: Expressions,
  configLines: string[],
): void {
  checkSequence(found, actions, path, 0, { declared, stepIds: new Map(), count: 0, expressions, configLines });
}

// --- steps and the graph --------------------------------------------------

/** The first cycle of the dependency graph, as its step ids in order, first repeated at the end. */
function findCycle(graph: Map<string, string[]>): string[] | null {
  const state = new Map<string, "open" | "done">();
  for (const start of graph.keys()) {
    if (state.has(start)) continue;
    // Iterative depth-first search: the path on the stack is the chain being explored.
    const path: string[] = [];
    const stack: [string, number][] = [[start, 0]];
    while (stack.length) {
      const top = stack[stack.length - 1];
      const [node, next] = top;
      if (next === 0) {
        state.set(node, "open");
        path.push(node);
      }
      const deps = graph.get(node) ?? [];
      if (next < deps.length) {
        top[1]++;
        const dep = deps[next];
        if (state.get(dep) === "open") return [...path.slice(path.indexOf(dep)), dep];
        if (!state.has(dep) && graph.has(dep)) stack.push([dep, 0]);
        continue;
      }
      state.set(node, "done");
      path.pop();
      stack.pop();
    }
  }
  return null;
}

function checkSteps(found: Collector, jobs: unknown, path: string, declared: Map<string, Obj>, expressions: Expressions, configLines: string[]): void {
  if (Array.isArray(jobs) && jobs.length === 0) found.add(path, "required", "holds no step; a workflow needs at least one job");
  const steps = items(jobs, LIMITS.jobs);
  const ids = new Map<string, string>();
  const graph = new Map<string, string[]>();
  steps.forEach((step, i) => {
    if (!isObject(step) || typeof step.id !== "string") return;
    const at = child(path, i);
    const first = ids.get(step.id);
    if (first) found.add(child(at, "id"), "duplicate_id", `${JSON.stringify(step.id)} is already the id of ${first}`);
    else ids.set(step.id, at);
  });
  steps.forEach((step, i) => {
    if (!isObject(step)) return;
    const at = child(path, i);
    const inline = has(step, "actions");
    if (inline && has(step, "name")) found.add(at, "step_shape", "has both actions (an inline job) and name (a reference to a published job); keep one");
    if (!inline && !has(step, "name")) found.add(at, "step_shape", "needs actions (an inline job) or name (a reference to a published job)");
    const deps = items(step.dependencies, LIMITS.jobs).filter((d): d is string => typeof d === "string");
    deps.forEach((dep, j) => {
      if (!ids.has(dep)) found.add(child(child(at, "dependencies"), j), "unknown_dependency", `names ${JSON.stringify(dep)}, which is not a step id`);
    });
    if (typeof step.id === "string" && ids.get(step.id) === at)
      graph.set(
        step.id,
        deps.filter((d) => ids.has(d)),
      );
    expressions.bare(step, "condition", at);
    expressions.smartValue(step.input, child(at, "input"));
    expressions.smartValue(step.output, child(at, "output"));
    checkContracts(found, step, at);
    // A reference step's job is checked when it is published.
    if (inline)
      checkSequence(found, step.actions, child(at, "actions"), 0, {
        declared,
        stepIds: new Map(),
        count: 0,
        expressions,
        configLines,
        configScope: ACTION_CONFIG_SCOPE,
      });
  });
  const cycle = findCycle(graph);
  if (cycle) found.add(path, "dependency_cycle", `the dependencies form a cycle: ${cycle.join(" -> ")}`);
}

// --- triggers -------------------------------------------------------------

const TRIGGER_KINDS = ["source", "cron", "webhook"];

function checkTriggers(found: Collector, triggers: unknown, path: string, expressions: Expressions): void {
  const ids = new Map<string, string>();
  items(triggers, LIMITS.triggers).forEach((trigger, i) => {
    if (!isObject(trigger)) return;
    const at = child(path, i);
    if (typeof trigger.id === "string") {
      const first = ids.get(trigger.id);
      if (first) found.add(child(at, "id"), "duplicate_id", `${JSON.stringify(trigger.id)} is already the id of ${first}`);
      else ids.set(trigger.id, at);
    }
    const kinds = TRIGGER_KINDS.filter((k) => has(trigger, k));
    if (kinds.length !== 1) found.add(at, "trigger_shape", `needs exactly one of source, cron and webhook${kinds.length ? ` (has ${kinds.join(", ")})` : ""}`);
    if (typeof trigger.cron === "string") {
      const problem = cronProblem(trigger.cron);
      if (problem) found.add(child(at, "cron"), "cron_invalid", problem);
    }
    const verification = isObject(trigger.webhook) ? trigger.webhook.verification : undefined;
    if (isObject(verification) && verification.location === "body" && typeof verification.method === "string" && verification.method.startsWith("hmac-")) {
      found.add(
        child(child(child(at, "webhook"), "verification"), "location"),
        "webhook_signature_location",
        `body cannot carry a ${verification.method} signature (a signature cannot sign the body that holds it); use header or query`,
      );
    }
    expressions.bare(trigger, "condition", at);
    expressions.smartValue(trigger.contextData, child(at, "contextData"));
    expressions.smartValue(trigger.idempotencyKey, child(at, "idempotencyKey"));
  });
}

/** What the attribute filter compiler says of filters whose shape the schema accepted. */
function checkAttributeFilters(found: Collector, triggers: unknown, path: string, schemaLines: string[]): void {
  items(triggers, LIMITS.triggers).forEach((trigger, i) => {
    if (!isObject(trigger) || !isObject(trigger.source) || trigger.source.attributeFilters === undefined) return;
    const at = child(child(child(path, i), "source"), "attributeFilters");
    if (schemaLines.some((line) => line.startsWith(at))) return;
    for (const line of attributeFilterProblems(trigger.source.attributeFilters, at)) found.addLine(line, "attribute_filter_invalid");
  });
}

// --- entry points ---------------------------------------------------------

/** The semantic problems of a workflow document (`definition_json`), given the schema layer's lines. */
export function workflowFindings(doc: Obj, base: string, schemaLines: string[]): Findings {
  const found = new Collector();
  const expressions = new Expressions(found);
  const declared = checkRootProfiles(found, doc.auth, child(base, "auth"), PROFILE_SCOPE, LIMITS.profiles, expressions);
  const configLines: string[] = [];
  checkSteps(found, doc.jobs, child(base, "jobs"), declared, expressions, configLines);
  checkTriggers(found, doc.triggers, child(base, "triggers"), expressions);
  checkAttributeFilters(found, doc.triggers, child(base, "triggers"), schemaLines);
  expressions.check();
  configChecked(found, configLines, schemaLines);
  secretTexts(found, doc, base);
  return found.findings();
}

/** The semantic problems of a published job's document: no root auth map, so profile names and conflicts wait for run time. */
export function jobFindings(doc: Obj, base: string, schemaLines: string[] = []): Findings {
  const found = new Collector();
  const expressions = new Expressions(found);
  expressions.smartValue(doc.input, child(base, "input"));
  expressions.smartValue(doc.output, child(base, "output"));
  checkContracts(found, doc, base);
  const configLines: string[] = [];
  checkSequence(found, doc.actions, child(base, "actions"), 0, {
    declared: null,
    stepIds: new Map(),
    count: 0,
    expressions,
    configLines,
    configScope: ACTION_CONFIG_SCOPE,
  });
  expressions.check();
  configChecked(found, configLines, schemaLines);
  secretTexts(found, doc, base);
  return found.findings();
}
