// The entry point of the save-time checks: a definition (JSON or YAML) goes
// through the language's JSON Schema, then the semantic checks, and every
// problem of both layers is answered at once as `<path>: <reason>` lines.
import { ApiError } from "../../lib/errors";
import { jsonProblems, problemLines } from "../../lib/input-guard";
import { check, validationFailed } from "../../lib/validate";
import { jobFindings, workflowFindings, type Findings } from "./checks";
import { JOB_LANGUAGE_SCHEMA, WORKFLOW_LANGUAGE_SCHEMA, type JobDocument, type WorkflowDocument } from "./workflow-schema";
import { parseWorkflowYaml } from "./yaml";

export { JOB_LANGUAGE_SCHEMA, WORKFLOW_LANGUAGE_SCHEMA, type JobDocument, type WorkflowDocument };

export interface DefinitionInput {
  definition_json?: unknown;
  source_yaml?: string;
}

export interface CheckedDefinition {
  definition: WorkflowDocument;
  sourceYaml?: string;
}

export interface WorkflowProblems {
  problems: string[];
  /** True when a problem is a secret reference (answered with `details.code: SECRET_REF_IN_DEFINITION`). */
  secretRef: boolean;
  /** The parsed document, when it could be read as an object (even with problems). */
  definition?: WorkflowDocument;
}

const BASE = "definition_json";
const MORE = /^\.\.\. and (\d+) more errors$/;

/** Lines shown; the rest are counted, as in every validation answer. */
const SHOWN = 20;

/** Both layers' lines under the one cap, counting the lines the schema layer already left out. */
function merge(schemaLines: string[], semantic: string[]): string[] {
  const tail = schemaLines.at(-1)?.match(MORE);
  const kept = tail ? schemaLines.slice(0, -1) : schemaLines;
  const lines = [...kept, ...semantic.filter((line) => !kept.includes(line))];
  const total = lines.length + (tail ? Number(tail[1]) : 0);
  return total <= SHOWN ? lines : [...lines.slice(0, SHOWN), `... and ${total - SHOWN} more errors`];
}

/** The checked layers of one document: guard, schema, semantics. */
function layers(value: unknown, schema: object, semantics: (doc: Record<string, unknown>, schemaLines: string[]) => Findings): WorkflowProblems {
  const guard = jsonProblems(value, { base: BASE });
  // A value the service cannot store (NUL, lone surrogates, runaway nesting) is not read any further.
  if (guard.length) return { problems: problemLines(guard), secretRef: false };
  if (value === null || typeof value !== "object" || Array.isArray(value)) return { problems: [`${BASE}: must be an object`], secretRef: false };
  const doc = value as Record<string, unknown>;
  const schemaLines = check(schema, doc, BASE);
  const { problems, secretRef } = semantics(doc, schemaLines);
  return { problems: merge(schemaLines, problems), secretRef, definition: doc as unknown as WorkflowDocument };
}

/** Parses (YAML) and checks a definition, answering every problem line instead of throwing. */
export function workflowProblems(input: DefinitionInput): WorkflowProblems {
  const json = input.definition_json !== undefined;
  const yaml = input.source_yaml !== undefined;
  if (json === yaml) return { problems: [`${BASE}: exactly one of definition_json and source_yaml is required`], secretRef: false };
  let value = input.definition_json;
  if (yaml) {
    if (typeof input.source_yaml !== "string") return { problems: ["source_yaml: must be a string"], secretRef: false };
    const parsed = parseWorkflowYaml(input.source_yaml);
    if (parsed.problems) return { problems: parsed.problems, secretRef: false };
    value = parsed.value;
  }
  return layers(value, WORKFLOW_LANGUAGE_SCHEMA, (doc, schemaLines) => workflowFindings(doc, BASE, schemaLines));
}

function refused(result: WorkflowProblems, what: string): ApiError {
  const errors = result.problems;
  if (result.secretRef) {
    return new ApiError({ code: "SECRET_REF_IN_DEFINITION", errors, validation_errors: errors }, `The ${what} references secrets; set secret references as env values at activation`);
  }
  return validationFailed(errors, `The ${what} is invalid`);
}

/** Parses (YAML) and checks a definition; throws ApiError 422 VALIDATION_FAILED listing every problem. */
export function checkWorkflowDefinition(input: DefinitionInput): CheckedDefinition {
  const result = workflowProblems(input);
  if (result.problems.length || !result.definition) throw refused(result, "workflow definition");
  return input.source_yaml !== undefined ? { definition: result.definition, sourceYaml: input.source_yaml } : { definition: result.definition };
}

/** The job document of `POST /definition/jobs`; throws ApiError 422 VALIDATION_FAILED listing every problem. */
export function checkJobDefinition(definition: unknown): JobDocument {
  const result = layers(definition, JOB_LANGUAGE_SCHEMA, (doc) => jobFindings(doc, BASE));
  if (result.problems.length) throw refused(result, "job definition");
  return definition as JobDocument;
}
