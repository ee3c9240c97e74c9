// The save-time checks a JSON Schema cannot state: auth profiles and where
// they are used, secret references, the step graph, ids, triggers, the
// `http` knobs, embedded schemas and the syntax of every expression. Each
// check reads the document defensively, so they all run even when the schema
// layer has already refused its shape, and every problem comes back at once.
import { compileExpression, ExpressionSyntaxError, expressionsIn, rootNamesOf } from "../../lib/smart-values";
import { schemaProblems } from "../../schema/schema-check";
import { cronProblem } from "../../workflows/triggers/cron-expression";
import { attributeFilterProblems } from "../../workflows/triggers/events";
import { LIMITS } from "./workflow-schema";

type Obj = Record<string, unknown>;

const isObject = (v: unknown): v is Obj => typeof v === "object" && v !== null && !Array.isArray(v);
/** At most `max` items: a longer array is already refused by the schema, and the work stays bounded. */
const items = (v: unknown, max: number): unknown[] => (Array.isArray(v) ? v.slice(0, max) : []);
const has = (o: Obj, key: string) => Object.hasOwn(o, key) && o[key] !== undefined;
/** A value decided at run time: a string with a `{{ }}` template, or a `$jsonata` directive. */
const templated = (v: unknown) => (typeof v === "string" && v.includes("{{")) || (isObject(v) && has(v, "$jsonata"));

/** `.key` for identifiers, `["key"]` for anything else (spaces, dots, NUL). */
export function child(path: string, key: string | number): string {
  if (typeof key === "number") return `${path}[${key}]`;
  return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`;
}

const PROFILE_KEY = /^[A-Za-z][A-Za-z0-9_-]*$/;
/** Profile fields that choose the mechanism, so they are read before any expression runs. */
const PROFILE_LITERALS = ["type", "grant", "in", "name", "clientAuth"];
const HTTP_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];
/** Actions whose config carries `auth`, `headers` and `query` of an outbound request. */
const OUTBOUND_ACTIONS = new Set(["http", "httpCallback"]);
/** `{{ secrets.` as written in a string, wherever the string sits (a `$literal`, an env default, a key name). */
const SECRET_TEXT = /\{\{\s*secrets\s*[.[]/;

/** Where a profile is declared decides the names its templates may read. */
type ProfileScope = "root" | "inline";
const SCOPE_TEXT: Record<ProfileScope, string> = {
  root: "a profile may read only config.env.* and context.*",
  inline: "an inline auth block may read only input and outputs",
};

/** The problem lines found so far, and whether one is a secret reference. */
class Collector {
  readonly lines: string[] = [];
  secretRef = false;
  private readonly secretPaths = new Set<string>();

  add(path: string, reason: string): void {
    const line = `${path}: ${reason}`;
    if (!this.lines.includes(line)) this.lines.push(line);
  }

  secret(path: string): void {
    this.secretRef = true;
    if (this.secretPaths.has(path)) return;
    this.secretPaths.add(path);
    this.add(path, "references a secret; a definition never holds secret references (set them as env values at activation and read {{ config.env.NAME }})");
  }
}

/** Where an expression sits and what may be read there. */
interface Expression {
  path: string;
  text: string;
  /** The root names this expression may read, when restricted (auth profiles). */
  scope?: ProfileScope;
}

/** Compiles every expression, refusing syntax errors, secret reads and reads outside a profile's scope. */
function checkExpressions(found: Collector, expressions: Expression[]): void {
  for (const { path, text, scope } of expressions) {
    try {
      compileExpression(text);
    } catch (e) {
      if (!(e instanceof ExpressionSyntaxError)) throw e;
      found.add(path, `invalid JSONata expression: ${e.message}${e.position !== undefined ? ` (at character ${e.position})` : ""}`);
      if (SECRET_TEXT.test(`{{${text}`)) found.secret(path);
      continue;
    }
    const roots = rootNamesOf(text);
    if (roots.includes("secrets")) found.secret(path);
    if (scope) {
      const outside = roots.filter((name) => name !== "secrets" && !allowedIn(scope, name, text));
      if (outside.length) found.add(path, `reads ${outside.join(", ")}; ${SCOPE_TEXT[scope]}`);
    }
  }
}

/**
 * A root profile reads `config.env` and `context` only. The syntax tree gives
 * root names, not paths, so for `config` the text decides: every `config`
 * outside a longer path must go on as `.env`.
 */
function allowedIn(scope: ProfileScope, name: string, text: string): boolean {
  if (scope === "inline") return name === "input" || name === "outputs";
  if (name === "context") return true;
  return name === "config" && !/(^|[^\w$.`])config(?!\s*\.\s*env\b)/.test(text);
}

/** Every string of a document that spells out `{{ secrets.`, by path, walking without recursion. */
function secretTexts(found: Collector, root: unknown, base: string): void {
  const stack: [unknown, string][] = [[root, base]];
  while (stack.length) {
    const [value, path] = stack.pop()!;
    if (typeof value === "string") {
      if (SECRET_TEXT.test(value)) found.secret(path);
    } else if (Array.isArray(value)) value.forEach((v, i) => stack.push([v, child(path, i)]));
    else if (isObject(value)) for (const [k, v] of Object.entries(value)) stack.push([v, child(path, k)]);
  }
}

/** Every expression of a smart value, with its path; a malformed template or directive is a problem of its own. */
function smartExpressions(found: Collector, value: unknown, path: string, scope?: ProfileScope): Expression[] {
  if (value === undefined) return [];
  try {
    return expressionsIn(value, path).map((e) => ({ ...e, scope }));
  } catch (e) {
    if (!(e instanceof ExpressionSyntaxError)) throw e;
    // The message already names the path.
    if (!found.lines.includes(e.message)) found.lines.push(e.message);
    return [];
  }
}

function bare(owner: Obj, key: string, path: string): Expression[] {
  const text = owner[key];
  return typeof text === "string" && text !== "" ? [{ path: child(path, key), text }] : [];
}

// --- auth profiles -------------------------------------------------------

/** The shape rules every profile block follows, wherever it is declared; its expressions are collected. */
function checkProfileBlock(found: Collector, profile: Obj, path: string, scope: ProfileScope, expressions: Expression[]): void {
  for (const [key, value] of Object.entries(profile)) {
    const at = child(path, key);
    if (isObject(value) && has(value, "$jsonata")) {
      found.add(at, "is a $jsonata object; profile fields are literal strings or {{ }} templates");
      continue;
    }
    if (typeof value !== "string") continue;
    if (PROFILE_LITERALS.includes(key)) {
      if (value.includes("{{")) found.add(at, "must be a literal (it decides how the request is authenticated)");
      continue;
    }
    expressions.push(...smartExpressions(found, value, at, scope));
  }
  const username = profile.username;
  if (profile.type === "basic" && typeof username === "string" && !username.includes("{{") && username.includes(":")) {
    found.add(child(path, "username"), "must not contain ':' (Basic auth joins username and password with it)");
  }
}

/** The root `auth` map: profile keys, blocks only. Answers the declared profiles by name. */
function checkRootProfiles(found: Collector, auth: unknown, path: string, expressions: Expression[]): Map<string, Obj> {
  const declared = new Map<string, Obj>();
  if (!isObject(auth)) return declared;
  for (const [key, profile] of Object.entries(auth).slice(0, LIMITS.profiles)) {
    const at = child(path, key);
    if (!PROFILE_KEY.test(key)) found.add(at, "is not a profile key: it starts with a letter, then letters, digits, _ or -");
    if (!isObject(profile)) {
      found.add(at, "must be an inline profile block; a profile cannot point at another profile");
      continue;
    }
    declared.set(key, profile);
    checkProfileBlock(found, profile, at, "root", expressions);
  }
  return declared;
}

/** Header names set by hand, lower-cased, each with the key as written. */
function headerNames(headers: unknown): Map<string, string> {
  return new Map(isObject(headers) ? Object.keys(headers).map((h) => [h.toLowerCase(), h]) : []);
}

/**
 * `auth` on an outbound action: a declared profile name or an inline block,
 * not both a profile and a hand-set header or query parameter for the same
 * credential. `declared` is null for a job published alone: its profile names
 * resolve against the running workflow's map at run time.
 */
function checkActionAuth(found: Collector, config: Obj, path: string, declared: Map<string, Obj> | null, expressions: Expression[]): void {
  const auth = config.auth;
  if (auth === undefined) return;
  const at = child(path, "auth");
  let profile: Obj | undefined;
  if (typeof auth === "string") {
    if (!declared) return;
    profile = declared.get(auth);
    if (!profile) {
      const names = [...declared.keys()];
      found.add(at, `names the profile ${JSON.stringify(auth)}, which the root auth map does not declare (${names.length ? `declared: ${names.join(", ")}` : "it declares none"})`);
      return;
    }
  } else if (isObject(auth)) {
    profile = auth;
    checkProfileBlock(found, auth, at, "inline", expressions);
  } else return;
  if (!declared) return;
  const headers = headerNames(config.headers);
  const headersAt = child(path, "headers");
  const authorization = headers.get("authorization");
  if (authorization !== undefined) found.add(child(headersAt, authorization), "is set by hand while auth is set; the profile sends Authorization");
  if (profile.type === "apiKey" && typeof profile.name === "string") {
    const name = profile.name;
    const header = headers.get(name.toLowerCase());
    if (profile.in === "header" && header !== undefined) found.add(child(headersAt, header), `is set by hand; the apiKey profile sends the ${name} header`);
    if (profile.in === "query" && isObject(config.query) && has(config.query, name)) found.add(child(child(path, "query"), name), `is set by hand; the apiKey profile sends the ${name} query parameter`);
  }
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
    found.add(child(path, knob), `${rule}, or a {{ }} template`);
  }
  const initial = config.initialRetryDelayMs ?? DEFAULT_DELAYS.initialRetryDelayMs;
  const max = config.maxRetryDelayMs ?? DEFAULT_DELAYS.maxRetryDelayMs;
  if (Number.isInteger(initial) && Number.isInteger(max) && (max as number) < (initial as number)) {
    found.add(child(path, "maxRetryDelayMs"), `must be at least initialRetryDelayMs (${initial})`);
  }
}

interface JobContext {
  declared: Map<string, Obj> | null;
  stepIds: Map<string, string>;
  count: number;
  expressions: Expression[];
}

function checkSequence(found: Collector, sequence: unknown, path: string, depth: number, job: JobContext): void {
  if (!Array.isArray(sequence)) return;
  if (depth > LIMITS.nesting) {
    found.add(path, `nests onSuccess/onError deeper than ${LIMITS.nesting} levels`);
    return;
  }
  sequence.forEach((action, i) => {
    if (job.count++ === LIMITS.actionsPerJob) found.add(path, `a job holds at most ${LIMITS.actionsPerJob} actions, onSuccess and onError included`);
    if (job.count > LIMITS.actionsPerJob || !isObject(action)) return;
    const at = child(path, i);
    if (typeof action.stepId === "string") {
      const first = job.stepIds.get(action.stepId);
      if (first) found.add(child(at, "stepId"), `${JSON.stringify(action.stepId)} is already the stepId of ${first}`);
      else job.stepIds.set(action.stepId, at);
    }
    job.expressions.push(...bare(action, "if", at), ...bare(action, "errorWhen", at));
    const config = action.config;
    if (isObject(config)) {
      const configAt = child(at, "config");
      // An inline auth block is collected with its narrower scope; the rest of the config is a smart value.
      const { auth, ...rest } = config;
      job.expressions.push(...smartExpressions(found, rest, configAt));
      if (typeof action.name === "string" && OUTBOUND_ACTIONS.has(action.name)) checkActionAuth(found, config, configAt, job.declared, job.expressions);
      else if (auth !== undefined) job.expressions.push(...smartExpressions(found, auth, child(configAt, "auth")));
      if (action.name === "http") checkHttpKnobs(found, config, configAt);
    }
    checkSequence(found, action.onSuccess, child(at, "onSuccess"), depth + 1, job);
    checkSequence(found, action.onError, child(at, "onError"), depth + 1, job);
  });
}

// --- contracts ------------------------------------------------------------

/** `$ref`s other than `#...`, under an embedded schema (data keywords skipped, as evaluation skips them). */
function outsideRefs(schema: unknown, path: string, out: string[]): void {
  const stack: [unknown, string][] = [[schema, path]];
  while (stack.length) {
    const [node, at] = stack.pop()!;
    if (Array.isArray(node)) node.forEach((v, i) => stack.push([v, child(at, i)]));
    if (!isObject(node)) continue;
    for (const [key, value] of Object.entries(node)) {
      if (key === "$ref" && typeof value === "string" && !value.startsWith("#")) out.push(`${child(at, key)}: ${JSON.stringify(value)} must point within the same schema (#...)`);
      if (!["enum", "const", "default", "examples"].includes(key)) stack.push([value, child(at, key)]);
    }
  }
}

/** One contract each for input and output, embedded or named; an embedded schema must be usable. */
function checkContracts(found: Collector, owner: Obj, path: string): void {
  for (const side of ["input", "output"]) {
    const embedded = `${side}Schema`;
    const named = `${side}SchemaName`;
    if (has(owner, embedded) && has(owner, named)) found.add(child(path, named), `cannot be set together with ${embedded}; use one form for the ${side} contract`);
    const schema = owner[embedded];
    if (!isObject(schema) && typeof schema !== "boolean") continue;
    const refs: string[] = [];
    outsideRefs(schema, child(path, embedded), refs);
    for (const line of refs.length ? refs : schemaProblems(schema, child(path, embedded))) found.lines.push(line);
  }
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

function checkSteps(found: Collector, jobs: unknown, path: string, declared: Map<string, Obj>, expressions: Expression[]): void {
  const steps = items(jobs, LIMITS.jobs);
  const ids = new Map<string, string>();
  const graph = new Map<string, string[]>();
  steps.forEach((step, i) => {
    if (!isObject(step) || typeof step.id !== "string") return;
    const at = child(path, i);
    const first = ids.get(step.id);
    if (first) found.add(child(at, "id"), `${JSON.stringify(step.id)} is already the id of ${first}`);
    else ids.set(step.id, at);
  });
  steps.forEach((step, i) => {
    if (!isObject(step)) return;
    const at = child(path, i);
    const inline = has(step, "actions");
    if (inline && has(step, "name")) found.add(at, "has both actions (an inline job) and name (a reference to a published job); keep one");
    if (!inline && !has(step, "name")) found.add(at, "needs actions (an inline job) or name (a reference to a published job)");
    const deps = items(step.dependencies, LIMITS.jobs).filter((d): d is string => typeof d === "string");
    deps.forEach((dep, j) => {
      if (!ids.has(dep)) found.add(child(child(at, "dependencies"), j), `names ${JSON.stringify(dep)}, which is not a step id`);
    });
    if (typeof step.id === "string" && ids.get(step.id) === at) graph.set(step.id, deps.filter((d) => ids.has(d)));
    expressions.push(...bare(step, "condition", at), ...smartExpressions(found, step.input, child(at, "input")), ...smartExpressions(found, step.output, child(at, "output")));
    checkContracts(found, step, at);
    // A reference step's job is checked when it is published.
    if (inline) checkSequence(found, step.actions, child(at, "actions"), 0, { declared, stepIds: new Map(), count: 0, expressions });
  });
  const cycle = findCycle(graph);
  if (cycle) found.add(path, `the dependencies form a cycle: ${cycle.join(" -> ")}`);
}

// --- triggers -------------------------------------------------------------

const TRIGGER_KINDS = ["source", "cron", "webhook"];

function checkTriggers(found: Collector, triggers: unknown, path: string, expressions: Expression[]): void {
  const ids = new Map<string, string>();
  items(triggers, LIMITS.triggers).forEach((trigger, i) => {
    if (!isObject(trigger)) return;
    const at = child(path, i);
    if (typeof trigger.id === "string") {
      const first = ids.get(trigger.id);
      if (first) found.add(child(at, "id"), `${JSON.stringify(trigger.id)} is already the id of ${first}`);
      else ids.set(trigger.id, at);
    }
    const kinds = TRIGGER_KINDS.filter((k) => has(trigger, k));
    if (kinds.length !== 1) found.add(at, `needs exactly one of source, cron and webhook${kinds.length ? ` (has ${kinds.join(", ")})` : ""}`);
    if (typeof trigger.cron === "string") {
      const problem = cronProblem(trigger.cron);
      if (problem) found.add(child(at, "cron"), problem);
    }
    const verification = isObject(trigger.webhook) ? trigger.webhook.verification : undefined;
    if (isObject(verification) && verification.location === "body" && typeof verification.method === "string" && verification.method.startsWith("hmac-")) {
      found.add(child(child(child(at, "webhook"), "verification"), "location"), `body cannot carry a ${verification.method} signature (a signature cannot sign the body that holds it); use header or query`);
    }
    expressions.push(...bare(trigger, "condition", at), ...smartExpressions(found, trigger.contextData, child(at, "contextData")), ...smartExpressions(found, trigger.idempotencyKey, child(at, "idempotencyKey")));
  });
}

/** What the attribute filter compiler says of filters whose shape the schema accepted. */
function checkAttributeFilters(found: Collector, triggers: unknown, path: string, schemaLines: string[]): void {
  items(triggers, LIMITS.triggers).forEach((trigger, i) => {
    if (!isObject(trigger) || !isObject(trigger.source) || trigger.source.attributeFilters === undefined) return;
    const at = child(child(child(path, i), "source"), "attributeFilters");
    if (schemaLines.some((line) => line.startsWith(at))) return;
    for (const line of attributeFilterProblems(trigger.source.attributeFilters, at)) found.lines.push(line);
  });
}

// --- entry points ---------------------------------------------------------

export interface Findings {
  problems: string[];
  secretRef: boolean;
}

/** The semantic problems of a workflow document (`definition_json`), given the schema layer's lines. */
export function workflowFindings(doc: Obj, base: string, schemaLines: string[]): Findings {
  const found = new Collector();
  const expressions: Expression[] = [];
  const declared = checkRootProfiles(found, doc.auth, child(base, "auth"), expressions);
  checkSteps(found, doc.jobs, child(base, "jobs"), declared, expressions);
  checkTriggers(found, doc.triggers, child(base, "triggers"), expressions);
  checkAttributeFilters(found, doc.triggers, child(base, "triggers"), schemaLines);
  checkExpressions(found, expressions);
  secretTexts(found, doc, base);
  return { problems: found.lines, secretRef: found.secretRef };
}

/** The semantic problems of a published job's document: no root auth map, so profile names and conflicts wait for run time. */
export function jobFindings(doc: Obj, base: string): Findings {
  const found = new Collector();
  const expressions: Expression[] = [];
  expressions.push(...smartExpressions(found, doc.input, child(base, "input")), ...smartExpressions(found, doc.output, child(base, "output")));
  checkContracts(found, doc, base);
  checkSequence(found, doc.actions, child(base, "actions"), 0, { declared: null, stepIds: new Map(), count: 0, expressions });
  checkExpressions(found, expressions);
  secretTexts(found, doc, base);
  return { problems: found.lines, secretRef: found.secretRef };
}
