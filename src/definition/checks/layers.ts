// The layers a saved document of any kind goes through: the input guard
// (what the service cannot store), the kind's JSON Schema, then its semantic
// checks. Every problem of every layer is an issue `{ path, code, message }`;
// the answer's `<path>: <message>` lines are derived from them, under one cap.
import { ApiError } from "../../lib/errors";
import { jsonProblems, problemLines } from "../../lib/input-guard";
import { capLines, checkAll, validationFailed } from "../../lib/validate";
import { issueLine, lineIssue, type Findings, type Issue, type IssueCode } from "./collector";
import { DOCUMENT_KINDS, type DocumentKindName } from "./kinds";

export interface DocumentProblems<D> {
  /** The lines answered in `details.errors` and `details.validation_errors`. */
  problems: string[];
  /** Every problem as an issue, uncapped. */
  issues: Issue[];
  /** True when a problem is a secret reference (answered with `details.code: SECRET_REF_IN_DEFINITION`). */
  secretRef: boolean;
  /** The parsed document, when it could be read as an object (even with problems). */
  definition?: D;
}

/** Where the document's paths start. */
export const BASE = "definition_json";
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

/** A document refused before its layers ran (no document to read, unparsable text): its lines as issues of `code`. */
export function refusedLines(lines: string[], code: IssueCode): DocumentProblems<never> {
  return { problems: lines, issues: lines.map((line) => lineIssue(line, code)), secretRef: false };
}

/** The checked layers of one document: guard, schema, semantics (given the schema layer's lines). */
export function documentProblems<D>(
  value: unknown,
  schema: object,
  semantics: (doc: Record<string, unknown>, schemaLines: string[]) => Findings,
  base = BASE,
): DocumentProblems<D> {
  const guard = jsonProblems(value, { base });
  // A value the service cannot store (NUL, lone surrogates, runaway nesting) is not read any further.
  if (guard.length)
    return { problems: problemLines(guard), issues: guard.map((p) => ({ path: p.path, code: "input_refused", message: p.reason })), secretRef: false };
  if (value === null || typeof value !== "object" || Array.isArray(value)) {
    const issue: Issue = { path: base, code: "schema_violation", message: "must be an object" };
    return { problems: [issueLine(issue)], issues: [issue], secretRef: false };
  }
  const doc = value as Record<string, unknown>;
  const everySchemaLine = checkAll(schema, doc, base);
  const schemaLines = capLines(everySchemaLine);
  const { issues, secretRef } = semantics(doc, schemaLines);
  const schemaIssues = everySchemaLine.map((line) => lineIssue(line, "schema_violation"));
  const named = new Set(everySchemaLine);
  const semantic = issues.filter((issue) => !named.has(issueLine(issue)));
  return { problems: merge(schemaLines, semantic.map(issueLine)), issues: [...schemaIssues, ...semantic], secretRef, definition: doc as D };
}

/**
 * The 422 refusing a document with problems: SECRET_REF_IN_DEFINITION when
 * one is a secret reference; else, for a kind answering issues,
 * SPEC_STRUCTURE_INVALID; else plain VALIDATION_FAILED lines.
 */
export function refused(result: DocumentProblems<unknown>, what: string, kind: DocumentKindName): ApiError {
  const errors = result.problems;
  const issues = DOCUMENT_KINDS[kind].answersIssues ? { issues: result.issues } : {};
  if (result.secretRef) {
    return new ApiError(
      { code: "SECRET_REF_IN_DEFINITION", errors, validation_errors: errors, ...issues },
      `The ${what} references secrets; set secret references as env values at activation`,
    );
  }
  if (DOCUMENT_KINDS[kind].answersIssues)
    return new ApiError({ code: "SPEC_STRUCTURE_INVALID", issues: result.issues, errors, validation_errors: errors }, `The ${what} is invalid`);
  return validationFailed(errors, `The ${what} is invalid`);
}
