// The publish checks of an app spec document: the layers every document
// kind shares, with the spec's JSON Schema and its structural rules. Issue
// paths are dotted from the document root.
import { SPEC_DOCUMENT_SCHEMA, type SpecDocument } from "../language/spec-schema";
import { documentProblems, refused, type DocumentProblems } from "./layers";

export type SpecProblems = DocumentProblems<SpecDocument>;

/** Every problem of a spec document at once; nothing thrown. */
export function specProblems(value: unknown): SpecProblems {
  return documentProblems<SpecDocument>(value, SPEC_DOCUMENT_SCHEMA, () => ({ issues: [], secretRef: false }), "spec_document");
}

/** The checked document, or the 422 naming every problem. */
export function checkSpecDocument(value: unknown): SpecDocument {
  const result = specProblems(value);
  if (result.problems.length || !result.definition) throw refused(result, "spec document", "app");
  return result.definition;
}
