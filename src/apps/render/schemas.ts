// The render request and answer as OpenAPI shows them.
const anyObject = { type: "object", additionalProperties: true } as const;

/** The host's JSON object: its own keys are read by the provider's identity extractors; three are the service's. */
export const renderBody = {
  type: "object",
  additionalProperties: true,
  properties: {
    state: { ...anyObject, description: "The state of the previous answer, posted back to continue" },
    action: { ...anyObject, description: "{ widgetId, handler, payload?, surface? }: refused for now (widget actions do not run yet)" },
    context: { description: "The host's request context, the render context's `context`" },
  },
} as const;

const block = { ...anyObject, description: "A widget { id, widgetComponent, props }, a row { component: row, children }, or an inline node { component, id?, config?, children? }" } as const;

const surface = {
  type: "object",
  required: ["type", "id", "page", "blocks"],
  additionalProperties: false,
  properties: {
    type: { enum: ["dashboard", "panel", "scanCard"] },
    id: { type: "string" },
    page: { type: "string" },
    props: anyObject,
    blocks: { type: "array", items: block },
    modals: {
      type: "array",
      items: { type: "object", required: ["page", "wide", "blocks"], additionalProperties: false, properties: { page: { type: "string" }, wide: { type: "boolean" }, blocks: { type: "array", items: block } } },
    },
  },
} as const;

export const renderAnswer = {
  type: "object",
  required: ["surfaces", "state", "referenceData", "notifications"],
  additionalProperties: false,
  properties: {
    surfaces: { type: "array", items: surface },
    state: { ...anyObject, description: "{ dashboard, page, params, data, widgets, modals }: post it back as `state`" },
    referenceData: { type: "object", additionalProperties: { type: "object", required: ["rows", "total"], additionalProperties: false, properties: { rows: { type: "array", items: {} }, total: { type: "integer" } } } },
    notifications: {
      type: "array",
      items: { type: "object", required: ["id", "level", "message"], additionalProperties: false, properties: { id: { type: "string" }, level: { enum: ["INFO", "WARNING", "ERROR"] }, message: { type: "string" } } },
    },
    debug: { type: "array", items: {} },
  },
} as const;
