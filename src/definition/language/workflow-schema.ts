// The workflow language as one JSON Schema document: the first layer of the
// save-time checks, served by the API and used in the OpenAPI description.
// What a schema cannot say (profile references, the DAG, expression syntax,
// secret references) is checked in checks.ts. Keys inside a definition are
// camelCase.
import { uuidSchema } from "../../lib/schemas";
import { AUTH_PROFILE_SCHEMA, type AuthProfile } from "../../lib/outbound/profile-schema";

/** Bounds on one document, so a definition of at most 1 MiB is checked in bounded work. */
export const LIMITS = {
  jobs: 200,
  /** Actions in one job, its onSuccess/onError sub-sequences included. */
  actionsPerJob: 500,
  /** Levels of onSuccess/onError below a job's top-level actions. */
  nesting: 10,
  triggers: 100,
  profiles: 100,
  attributeFilters: 50,
} as const;

/** The action catalog: every action name a job may use. */
export const ACTION_NAMES = [
  "http",
  "httpCallback",
  "llmCallback",
  "awaitInput",
  "invokeWorkflow",
  "queryEntity",
  "queryEntityGraph",
  "upsertEntity",
  "pipe",
  "removeEntities",
  "upsertRelationship",
  "removeRelationships",
  "syncRelationships",
  "uploadArtifact",
  "downloadArtifact",
  "listEntityArtifacts",
  "createArtifactDownloadURL",
  "uploadTempFile",
  "downloadTempFile",
  "createTempFileDownloadURL",
  "zipCompress",
  "zipDecompress",
  "archiveDecompress",
  "splitPdf",
  "mergePdf",
  "chunkPdf",
  "csvFromZipStream",
  "transformCsvStream",
  "mergeCsvStreams",
  "importEntitiesFromCsv",
  "exportEntitiesToCsv",
] as const;

/**
 * Actions that wait for something outside the request (an input, a
 * callback, a completion that may take minutes): refused where actions run
 * synchronously, inside an app's request.
 */
export const WAITING_ACTIONS: ReadonlySet<string> = new Set<(typeof ACTION_NAMES)[number]>(["awaitInput", "httpCallback", "llmCallback"]);

/** Step, action and trigger ids: readable as `outputs.<id>` in an expression and usable in a URL path. */
export const ID_PATTERN = "^[A-Za-z_][A-Za-z0-9_-]{0,127}$";

/** The particle operators of `POST /entity/query` that read one entity's own attributes. */
export const ATTRIBUTE_FILTER_OPERATORS = ["eq", "neq", "is", "gt", "gte", "lt", "lte", "in", "like", "ilike", "segment", "fuzzy", "cs", "ov"] as const;

const id = { type: "string", pattern: ID_PATTERN } as const;
/** A bare JSONata expression; its syntax is checked by compiling it. */
const expression = { type: "string", minLength: 1, maxLength: 10_000 } as const;
/** A smart value: a literal, `{{ }}` templates, or `$`-directives. */
const smartValue = { description: "A smart value: a literal, {{ }} JSONata templates, or $jsonata / $literal / $rows directives" } as const;
const policy = { enum: ["continue", "abort", "fail"], default: "fail" } as const;
const embeddedSchema = {
  type: ["object", "boolean"],
  additionalProperties: true,
  description: "An embedded JSON Schema; $ref only within the same document (#...)",
} as const;
const schemaName = { type: "string", minLength: 1, maxLength: 200, description: "A registered schema name" } as const;

/** The contract and shape fields shared by a workflow's inline step and a published job. */
const contract = {
  input: smartValue,
  output: smartValue,
  inputSchema: embeddedSchema,
  outputSchema: embeddedSchema,
  inputSchemaName: schemaName,
  outputSchemaName: schemaName,
} as const;

const sequence = { type: "array", maxItems: LIMITS.actionsPerJob, items: { $ref: "#/$defs/action" } } as const;

const defs = {
  profile: AUTH_PROFILE_SCHEMA,
  /** The `http` action's config: the `$http` fields plus the request knobs. */
  httpConfig: {
    type: "object",
    required: ["url"],
    properties: {
      url: smartValue,
      method: smartValue,
      headers: { type: "object", additionalProperties: smartValue },
      query: { type: "object", additionalProperties: smartValue },
      body: smartValue,
      auth: {
        type: ["string", "object"],
        description: "A profile name of the root auth map, or an inline profile block",
        additionalProperties: true,
        if: { type: "object", additionalProperties: true },
        then: { $ref: "#/$defs/profile" },
      },
      timeoutMs: smartValue,
      maxRetries: smartValue,
      initialRetryDelayMs: smartValue,
      maxRetryDelayMs: smartValue,
      redirect: smartValue,
      binaryUpload: smartValue,
    },
    additionalProperties: false,
  },
  action: {
    type: "object",
    required: ["name"],
    properties: {
      stepId: id,
      name: { enum: ACTION_NAMES },
      config: {
        type: "object",
        additionalProperties: true,
        description: "The action's config, a smart value checked against the action's own schema when it runs",
      },
      if: expression,
      errorWhen: expression,
      onSuccess: sequence,
      onError: sequence,
      errorPolicy: { enum: ["fail", "continue"], default: "fail" },
    },
    additionalProperties: false,
    allOf: [{ if: { required: ["name"], properties: { name: { const: "http" } } }, then: { properties: { config: { $ref: "#/$defs/httpConfig" } } } }],
  },
  step: {
    type: "object",
    required: ["id"],
    properties: {
      id,
      actions: sequence,
      name: { type: "string", minLength: 1, maxLength: 200, description: "A published job's name (a reference step)" },
      dependencies: { type: "array", maxItems: LIMITS.jobs, uniqueItems: true, items: id },
      condition: expression,
      conditionPolicy: policy,
      errorPolicy: policy,
      rerunPolicy: { enum: ["continue", "allow", "abort"], default: "allow" },
      ...contract,
    },
    additionalProperties: false,
  },
  eventSource: {
    type: "object",
    required: ["entityTypeId", "eventAction"],
    properties: {
      entityTypeId: uuidSchema,
      eventAction: { enum: ["created", "updated", "deleted"] },
      relationshipRuleId: uuidSchema,
      entityId: uuidSchema,
      attributeFilters: {
        type: "array",
        maxItems: LIMITS.attributeFilters,
        items: {
          type: "object",
          required: ["operator", "path", "value"],
          properties: {
            operator: { enum: ATTRIBUTE_FILTER_OPERATORS },
            path: {
              description: "Relative to the entity's attributes: a dotted path (`address.city`) or an array of segments",
              anyOf: [
                { type: "string", minLength: 1 },
                { type: "array", minItems: 1, items: { type: "string", minLength: 1 } },
              ],
            },
            value: true,
          },
          additionalProperties: false,
        },
      },
    },
    additionalProperties: false,
  },
  webhook: {
    type: "object",
    required: ["methods"],
    properties: {
      methods: { type: "array", minItems: 1, uniqueItems: true, items: { enum: ["GET", "POST", "PUT", "PATCH", "DELETE"] } },
      verification: {
        type: "object",
        required: ["location", "key", "method"],
        properties: {
          location: { enum: ["header", "query", "body"] },
          key: { type: "string", minLength: 1, maxLength: 200 },
          method: { enum: ["exact", "hmac-sha256", "hmac-sha1"] },
        },
        additionalProperties: false,
      },
      challenge: {
        type: "object",
        required: ["enabled", "queryParam", "responseType"],
        properties: {
          enabled: { type: "boolean" },
          queryParam: { type: "string", minLength: 1, maxLength: 200 },
          responseType: { type: "string", minLength: 1, maxLength: 200 },
        },
        additionalProperties: false,
      },
    },
    additionalProperties: false,
  },
  trigger: {
    type: "object",
    required: ["id"],
    properties: {
      id,
      source: { $ref: "#/$defs/eventSource" },
      cron: { type: "string", minLength: 1, maxLength: 200, description: "Five crontab fields, UTC" },
      webhook: { $ref: "#/$defs/webhook" },
      condition: expression,
      contextData: smartValue,
      idempotencyKey: smartValue,
    },
    additionalProperties: false,
  },
} as const;

/** The JSON Schema of `definition_json` (a workflow definition). */
export const WORKFLOW_LANGUAGE_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  title: "Workflow definition",
  type: "object",
  required: ["jobs"],
  properties: {
    jobs: { type: "array", maxItems: LIMITS.jobs, items: { $ref: "#/$defs/step" } },
    triggers: { type: "array", maxItems: LIMITS.triggers, items: { $ref: "#/$defs/trigger" } },
    auth: {
      type: "object",
      maxProperties: LIMITS.profiles,
      description: "Named outbound auth profiles",
      additionalProperties: { $ref: "#/$defs/profile" },
    },
    config: {
      type: "object",
      properties: { env: { type: "object", additionalProperties: true, description: "Default env values; null means the activating tenant must supply it" } },
      additionalProperties: false,
    },
    configSchemas: {
      type: "object",
      properties: { env: { ...schemaName, description: "A registered schema the effective env must satisfy" } },
      additionalProperties: false,
    },
  },
  additionalProperties: false,
  $defs: defs,
} as const;

/** The JSON Schema of a published job's `definition_json`. */
export const JOB_LANGUAGE_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  title: "Job definition",
  type: "object",
  required: ["actions"],
  properties: { actions: sequence, ...contract },
  additionalProperties: false,
  $defs: { profile: defs.profile, httpConfig: defs.httpConfig, action: defs.action },
} as const;

// The document types are written out: json-schema-to-ts infers the recursive
// `$ref` of onSuccess/onError as unknown. They describe a document that passed
// the checks of validate.ts.

export type ActionName = (typeof ACTION_NAMES)[number];

export interface ActionDocument {
  stepId?: string;
  name: ActionName;
  config?: Record<string, unknown>;
  if?: string;
  errorWhen?: string;
  onSuccess?: ActionDocument[];
  onError?: ActionDocument[];
  errorPolicy?: "fail" | "continue";
}

interface Contract {
  input?: unknown;
  output?: unknown;
  inputSchema?: Record<string, unknown> | boolean;
  outputSchema?: Record<string, unknown> | boolean;
  inputSchemaName?: string;
  outputSchemaName?: string;
}

export type Policy = "continue" | "abort" | "fail";

export interface StepDocument extends Contract {
  id: string;
  /** Inline steps have actions; reference steps have `name` instead. */
  actions?: ActionDocument[];
  name?: string;
  dependencies?: string[];
  condition?: string;
  conditionPolicy?: Policy;
  errorPolicy?: Policy;
  rerunPolicy?: "continue" | "allow" | "abort";
}

export interface AttributeFilter {
  operator: (typeof ATTRIBUTE_FILTER_OPERATORS)[number];
  path: string | string[];
  value: unknown;
}

export interface EventSource {
  entityTypeId: string;
  eventAction: "created" | "updated" | "deleted";
  relationshipRuleId?: string;
  entityId?: string;
  attributeFilters?: AttributeFilter[];
}

export interface WebhookSource {
  methods: ("GET" | "POST" | "PUT" | "PATCH" | "DELETE")[];
  verification?: { location: "header" | "query" | "body"; key: string; method: "exact" | "hmac-sha256" | "hmac-sha1" };
  challenge?: { enabled: boolean; queryParam: string; responseType: string };
}

/** Exactly one of `source`, `cron` and `webhook`. */
export interface TriggerDocument {
  id: string;
  source?: EventSource;
  cron?: string;
  webhook?: WebhookSource;
  condition?: string;
  contextData?: unknown;
  idempotencyKey?: unknown;
}

export interface WorkflowDocument {
  jobs: StepDocument[];
  triggers?: TriggerDocument[];
  auth?: Record<string, AuthProfile>;
  config?: { env?: Record<string, unknown> };
  configSchemas?: { env?: string };
}

export interface JobDocument extends Contract {
  actions: ActionDocument[];
}
