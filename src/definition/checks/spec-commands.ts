// A spec's command lists (`actionHandlers.<handler>`, with their onSuccess
// and onError) and the workflow actions they run inline: an `actions`
// command's list and the bodies of `jobs`. Actions get the job checks a
// workflow's jobs get (workflow.ts); what they may not do here is wait,
// since a command runs them while the render waits.
import { COMMAND_FIELDS, UPLOAD_TTL } from "../language/spec-schema";
import { WAITING_ACTIONS } from "../language/workflow-schema";
import { child, has, items, templated, type Obj } from "./collector";
import type { Place, SpecChecks } from "./spec-names";
import { checkActionList } from "./workflow";
import { isObject } from "../../lib/is-object";

/** Command fields that are neither a smart value nor walked as one. */
const COMMAND_STRUCTURE = new Set(["kind", "stepId", "if", "onSuccess", "onError"]);
/** Enough for any real list; the input guard bounds the nesting itself. */
const MAX_ACTIONS = 500;

/** Every waiting action of a list, onSuccess and onError included, walked without recursion. */
function checkSynchronous(checks: SpecChecks, actions: unknown, path: string, where: string): void {
  const stack: [unknown, string][] = [[actions, path]];
  while (stack.length) {
    const [list, at] = stack.pop()!;
    items(list, MAX_ACTIONS).forEach((action, i) => {
      if (!isObject(action)) return;
      const here = child(at, i);
      if (typeof action.name === "string" && WAITING_ACTIONS.has(action.name)) {
        checks.found.add(
          child(here, "name"),
          "action_not_synchronous",
          `${action.name} waits for a later event, but ${where} runs its actions while the render waits; run it from a workflow`,
        );
      }
      stack.push([action.onSuccess, child(here, "onSuccess")], [action.onError, child(here, "onError")]);
    });
  }
}

/** An action list run inline by a command: the job checks, and nothing that waits. */
function checkInlineActions(checks: SpecChecks, actions: unknown, path: string, where: string): void {
  checkActionList(checks.found, actions, path, checks.declared, checks.expressions, checks.configLines);
  checkSynchronous(checks, actions, path, where);
}

/** `jobs.<key>`: an inline body `{ actions, input?, output? }`, or a slot (null or `{}`) filled by a binding. */
export function checkJobs(checks: SpecChecks, jobs: Obj, path: string): void {
  for (const [key, job] of Object.entries(jobs)) {
    if (!isObject(job)) continue;
    const at = child(path, key);
    checks.expressions.smartValue(job.input, child(at, "input"));
    checks.expressions.smartValue(job.output, child(at, "output"));
    if (has(job, "actions")) checkInlineActions(checks, job.actions, child(at, "actions"), "a job command");
  }
}

/** `createTempFileUploadUrl.slots` written out: each slot name once. */
function checkSlots(checks: SpecChecks, slots: unknown, path: string): void {
  const names = new Map<string, string>();
  items(slots, Infinity).forEach((slot, i) => {
    if (!isObject(slot) || typeof slot.name !== "string") return;
    const at = child(child(path, i), "name");
    const first = names.get(slot.name);
    if (first)
      checks.found.add(at, "duplicate_upload_slot", `${JSON.stringify(slot.name)} is already the name of ${first}; each slot of one step has its own name`);
    else names.set(slot.name, at);
  });
}

/** A literal `createTempFileUploadUrl.ttl` out of range; a computed one is checked when the step runs. */
function checkTtl(checks: SpecChecks, ttl: unknown, path: string): void {
  if (ttl === undefined || templated(ttl) || (Number.isInteger(ttl) && (ttl as number) >= 1 && (ttl as number) <= UPLOAD_TTL.max)) return;
  checks.found.add(
    path,
    "schema_violation",
    `must be an integer from 1 to ${UPLOAD_TTL.max}, or a {{ }} template or $jsonata directive, got ${JSON.stringify(ttl)}`,
  );
}

/**
 * The fields a command's kind takes and requires: the schema holds every
 * kind's fields in one object (a branch per kind costs too much on a large
 * spec), so what belongs to which kind is told here, as the schema would.
 */
function checkKindFields(checks: SpecChecks, command: Obj, path: string): void {
  const kind = command.kind;
  if (typeof kind !== "string" || !Object.hasOwn(COMMAND_FIELDS, kind)) return;
  const fields: { required?: readonly string[]; properties: object } = COMMAND_FIELDS[kind as keyof typeof COMMAND_FIELDS];
  for (const key of Object.keys(command)) {
    if (!COMMAND_STRUCTURE.has(key) && !Object.hasOwn(fields.properties, key))
      checks.found.add(child(path, key), "schema_violation", `is not a field of a ${kind} command`);
  }
  for (const key of fields.required ?? []) if (!has(command, key)) checks.found.add(child(path, key), "schema_violation", "is required");
}

/** One command and its onSuccess and onError; `stepIds` is shared by the whole list they belong to. */
function checkCommand(checks: SpecChecks, command: Obj, path: string, place: Place, stepIds: Map<string, string>): void {
  const { found, expressions } = checks;
  if (typeof command.stepId === "string") {
    const first = stepIds.get(command.stepId);
    if (first)
      found.add(
        child(path, "stepId"),
        "duplicate_step_id",
        `${JSON.stringify(command.stepId)} is already the stepId of ${first}; outputs.<stepId> names one step`,
      );
    else stepIds.set(command.stepId, path);
  }
  expressions.bare(command, "if", path);
  checkKindFields(checks, command, path);
  const kind = command.kind;
  for (const [key, value] of Object.entries(command)) {
    if (COMMAND_STRUCTURE.has(key) || (kind === "actions" && key === "actions")) continue;
    // A literal page is resolved now; a computed one when the command runs.
    if (kind === "navigate" && key === "page" && typeof value === "string" && !value.includes("{{")) continue;
    expressions.smartValue(value, child(path, key));
  }
  if (kind === "navigate" && typeof command.page === "string" && !command.page.includes("{{") && !checks.names.hasPage(command.page, place)) {
    found.add(
      child(path, "page"),
      "unknown_page",
      `names ${JSON.stringify(command.page)}, which is no page or modal of ${place.dashboard ? "the dashboard or the spec" : "the spec or of every dashboard"}`,
    );
  }
  if (kind === "job" && typeof command.job === "string" && !Object.hasOwn(checks.jobs, command.job)) {
    const keys = Object.keys(checks.jobs);
    found.add(
      child(path, "job"),
      "unknown_job",
      `names ${JSON.stringify(command.job)}, which is not a key of jobs (${keys.length ? `keys: ${keys.slice(0, 20).join(", ")}` : "the spec declares none"})`,
    );
  }
  if (kind === "actions") checkInlineActions(checks, command.actions, child(path, "actions"), "an actions command");
  if (kind === "createTempFileUploadUrl") {
    if (Array.isArray(command.slots)) checkSlots(checks, command.slots, child(path, "slots"));
    checkTtl(checks, command.ttl, child(path, "ttl"));
  }
  checkCommandList(checks, command.onSuccess, child(path, "onSuccess"), place, stepIds);
  checkCommandList(checks, command.onError, child(path, "onError"), place, stepIds);
}

/** A command list; a top-level list starts its own set of stepIds. */
export function checkCommandList(checks: SpecChecks, list: unknown, path: string, place: Place, stepIds = new Map<string, string>()): void {
  items(list, Infinity).forEach((command, i) => {
    if (isObject(command)) checkCommand(checks, command, child(path, i), place, stepIds);
  });
}
