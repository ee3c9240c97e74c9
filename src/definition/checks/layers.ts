// The layers a saved document of any kind goes through: the input guard
// (what the service cannot store), the kind's JSON Schema, then its semantic
// checks; every problem of every layer is answered at once as
// `<path>: <reason>` lines, under one cap.
import { ApiError } from "../../lib/errors";
import { jsonProblems, problemLines } from "../../lib/input-guard";
import { check, validationFailed } from "../../lib/validate";
import type { Findings } from "./collector";

export interface DocumentProblems<D> {
  problems: string[];
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

/** The checked layers of one document: guard, schema, semantics (given the schema layer's lines). */
export function documentProblems<D>(value: unknown, schema: object, semantics: (doc: Record<string, unknown>, schemaLines: string[]) => Findings): DocumentProblems<D> {
  const guard = jsonProblems(value, { base: BASE });
  // A value the service cannot store (NUL, lone surrogates, runaway nesting) is not read any further.
  if (guard.length) return { problems: problemLines(guard), secretRef: false };
  if (value === null || typeof value !== "object" || Array.isArray(value)) return { problems: [`${BASE}: must be an object`], secretRef: false };
  const doc = value as Record<string, unknown>;
  const schemaLines = check(schema, doc, BASE);
  const { problems, secretRef } = semantics(doc, schemaLines);
  return { problems: merge(schemaLines, problems), secretRef, definition: doc as D };
}

/** The 422 refusing a document with problems: SECRET_REF_IN_DEFINITION when one is a secret reference, else VALIDATION_FAILED. */
export function refused(result: DocumentProblems<unknown>, what: string): ApiError {
  const errors = result.problems;
  if (result.secretRef) {
    return new ApiError({ code: "SECRET_REF_IN_DEFINITION", errors, validation_errors: errors }, `The ${what} references secrets; set secret references as env values at activation`);
  }
  return validationFailed(errors, `The ${what} is invalid`);
}
