// The JSON Schema of an app spec document (docs/apps.md), served by
// `GET /definition/specs/schema` and applied first on every publish.
export type SpecDocument = Record<string, unknown> & { dashboards: Record<string, unknown> };

export const SPEC_DOCUMENT_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  title: "App spec document",
  type: "object",
  required: ["dashboards"],
  properties: { dashboards: { type: "object" } },
} as const;
