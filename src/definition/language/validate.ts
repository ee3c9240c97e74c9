// The entry point of a workflow's save-time checks: a definition (JSON or
// YAML) goes through the layers every document kind shares
// (../checks/layers.ts) with the workflow language's JSON Schema and its
// semantic checks (../checks/workflow.ts).
import { BASE, documentProblems, refused, refusedLines, type DocumentProblems } from "../checks/layers";
import { jobFindings, workflowFindings } from "../checks/workflow";
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

export type WorkflowProblems = DocumentProblems<WorkflowDocument>;

/** Parses (YAML) and checks a definition, answering every problem line instead of throwing. */
export function workflowProblems(input: DefinitionInput): WorkflowProblems {
  const json = input.definition_json !== undefined;
  const yaml = input.source_yaml !== undefined;
  if (json === yaml) return refusedLines([`${BASE}: exactly one of definition_json and source_yaml is required`], "schema_violation");
  let value = input.definition_json;
  if (yaml) {
    if (typeof input.source_yaml !== "string") return refusedLines(["source_yaml: must be a string"], "schema_violation");
    const parsed = parseWorkflowYaml(input.source_yaml);
    if (parsed.problems) return refusedLines(parsed.problems, "input_refused");
    value = parsed.value;
  }
  return documentProblems(value, WORKFLOW_LANGUAGE_SCHEMA, (doc, schemaLines) => workflowFindings(doc, BASE, schemaLines));
}

/** Parses (YAML) and checks a definition; throws ApiError 422 VALIDATION_FAILED listing every problem. */
export function checkWorkflowDefinition(input: DefinitionInput): CheckedDefinition {
  const result = workflowProblems(input);
  if (result.problems.length || !result.definition) throw refused(result, "workflow definition", "workflow");
  return input.source_yaml !== undefined ? { definition: result.definition, sourceYaml: input.source_yaml } : { definition: result.definition };
}

/** The job document of `POST /definition/jobs`; throws ApiError 422 VALIDATION_FAILED listing every problem. */
export function checkJobDefinition(definition: unknown): JobDocument {
  const result = documentProblems<JobDocument>(definition, JOB_LANGUAGE_SCHEMA, (doc, schemaLines) => jobFindings(doc, BASE, schemaLines));
  if (result.problems.length) throw refused(result, "job definition", "workflow");
  return definition as JobDocument;
}
