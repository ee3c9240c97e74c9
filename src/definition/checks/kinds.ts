// The document kinds the save-time checks serve, each declared once: what its
// root auth profiles' templates may read, and whether its refusal answers
// coded issues (`details.issues`) beside the `<path>: <message>` lines.
import { profileScope } from "./auth-profiles";
import type { ReadScope } from "./expressions";

export interface DocumentKind {
  /** What a root profile's `{{ }}` templates may read: the scope names a profile resolves against. */
  profileReads: readonly string[];
  /** A refusal carries `details.code: SPEC_STRUCTURE_INVALID` and `details.issues`. */
  answersIssues: boolean;
}

export const DOCUMENT_KINDS = {
  /** A workflow's profiles resolve against the activation's env and the run's context. */
  workflow: { profileReads: ["config.env", "context"], answersIssues: false },
  /** An app spec's profiles resolve against the render context. */
  app: { profileReads: ["config", "provider", "identity", "context", "permissions", "secretsSet"], answersIssues: true },
} as const satisfies Record<string, DocumentKind>;

export type DocumentKindName = keyof typeof DOCUMENT_KINDS;

/** What a root profile of a document of `kind` may read. */
export const rootProfileScope = (kind: DocumentKindName): ReadScope => profileScope(DOCUMENT_KINDS[kind].profileReads);
