// The render request and answer as OpenAPI shows them.
const anyObject = { type: "object", additionalProperties: true } as const;

/** The host's JSON object: its own keys are read by the provider's identity extractors; three are the service's. */
export const renderBody = {
  type: "object",
  additionalProperties: true,
  properties: {
    // Any JSON: a state that is absent, null or not an object starts afresh rather than refusing the render (pages/state.ts).
    state: { description: "The state of the previous answer, posted back to continue; anything but an object starts a fresh state" },
    action: { ...anyObject, description: "{ widgetId, handler, payload?, surface? }: runs the widget's actionHandlers.<handler> before the screens resolve" },
    context: { description: "The host's request context, the render context's `context`" },
  },
} as const;

const block = {
  ...anyObject,
  description: "A widget { id, widgetComponent, props }, a row { component: row, children }, or an inline node { component, id?, config?, children? }",
} as const;

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
      items: {
        type: "object",
        required: ["page", "wide", "blocks"],
        additionalProperties: false,
        properties: { page: { type: "string" }, wide: { type: "boolean" }, blocks: { type: "array", items: block } },
      },
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
    referenceData: {
      type: "object",
      additionalProperties: {
        type: "object",
        required: ["rows", "total"],
        additionalProperties: false,
        properties: { rows: { type: "array", items: {} }, total: { type: "integer" } },
      },
    },
    notifications: {
      type: "array",
      items: {
        type: "object",
        required: ["id", "level", "message"],
        additionalProperties: false,
        properties: {
          id: { type: "string" },
          level: { enum: ["INFO", "WARNING", "ERROR"] },
          message: { type: "string" },
          details: {
            type: "object",
            required: ["code"],
            additionalProperties: false,
            description:
              "On widget-error-<id> and widget-timeout-<id>: the cause's details.code or error code, the data source's name, and (an author's preview only) the cause's message",
            properties: { code: { type: "string" }, source: { type: "string" }, message: { type: "string" } },
          },
        },
      },
    },
    debug: { type: "array", items: {} },
  },
} as const;

const scopePatch = { type: "object", additionalProperties: true, description: "Merged over the stored scope (RFC 7396) for this render only" } as const;

/** An author's preview: what a host would post, and what to render instead of the stored spec and config. */
export const previewBody = {
  type: "object",
  additionalProperties: false,
  properties: {
    identity: {
      ...anyObject,
      description: "The identity keys as the provider's extractors would give them (user_external_id, company_external_id, team_id, ...)",
    },
    config: {
      type: "object",
      additionalProperties: false,
      properties: { app: scopePatch, integration: scopePatch, company: scopePatch, team: scopePatch, user: scopePatch },
    },
    state: renderBody.properties.state,
    action: renderBody.properties.action,
    context: renderBody.properties.context,
    spec_document: { ...anyObject, description: "A spec document to render instead of the activation's (checked as a publish checks it; not saved)" },
    spec_version: { type: "integer", minimum: 1, description: "A kept version to render instead of the activation's" },
  },
} as const;
