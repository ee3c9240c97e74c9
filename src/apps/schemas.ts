// Request and answer schemas of /apps: the routes validate with them and
// document them; service input types derive from them.
import { grantInput } from "../access/policies";
import { freeFormObject, uuidSchema } from "../lib/schemas";
import { WIDENING_CODES } from "./consent";

export const configPatch = {
  ...freeFormObject,
  description: "An RFC 7396 merge patch of the scope's stored config: a key sent sets, null unsets, nested objects merge, arrays replace",
} as const;

export const bindingsPatch = {
  type: "object",
  description:
    "Job slot key (a key of the spec's `jobs` whose value is null or {}) → job definition id visible to the tenant (its own, or a job of a workflow shared with it)",
  propertyNames: { minLength: 1, maxLength: 200 },
  additionalProperties: { anyOf: [uuidSchema, { type: "null" }] },
  maxProperties: 200,
} as const;

const bindings = { type: "object", additionalProperties: { type: "string" }, description: "Job slot key → job definition id" } as const;

export const specParams = { specId: uuidSchema } as const;
export const integrationParams = { specId: uuidSchema, integrationId: uuidSchema } as const;
export const principalParams = {
  specId: uuidSchema,
  type: { enum: ["company", "team", "user"] },
  principalId: {
    type: "string",
    minLength: 1,
    maxLength: 200,
    description: "company: the external company's external_id; team: a team id; user: a user id; `self`: the caller's own user",
  },
} as const;

export const configBody = {
  type: "object",
  additionalProperties: false,
  properties: {
    config: configPatch,
    policy_id: {
      anyOf: [uuidSchema, { type: "null" }],
      description: "A policy of the tenant the app's users act with; null returns to the spec's defaultPolicy; left out keeps the choice made before",
    },
    policy: {
      type: "object",
      additionalProperties: false,
      required: ["grants"],
      description: "An inline policy provisioned for this activation (named `<spec name>:policy` unless `name` is given) and bound",
      properties: { name: { type: "string", minLength: 1, maxLength: 200 }, grants: { type: "array", maxItems: 100, items: grantInput } },
    },
    spec_version: {
      anyOf: [{ type: "integer", minimum: 1 }, { type: "null" }],
      description:
        "Pin a kept version of the spec (rolling back is pinning the previous one); null follows the latest. Either accepts that version: for a spec shared to this tenant, a held pending_version",
    },
    job_bindings: { ...bindingsPatch, description: `${bindingsPatch.description}; merged (null unbinds)` },
  },
  not: { required: ["policy_id", "policy"] },
} as const;

const timestamps = { created_at: { type: "string", format: "date-time" }, updated_at: { type: "string", format: "date-time" } } as const;

export const activationItem = {
  type: "object",
  required: [
    "id",
    "spec_id",
    "config",
    "effective_config",
    "policy_id",
    "spec_version",
    "effective_spec_version",
    "pending_version",
    "pending_changes",
    "job_bindings",
    "created_at",
    "updated_at",
  ],
  properties: {
    id: { type: "string", description: "The activation id (what `app` grants narrow to with resource_id)" },
    spec_id: { type: "string" },
    config: { ...freeFormObject, description: "The `app` scope as stored: operator values and schema defaults" },
    effective_config: { ...freeFormObject, description: "The spec version's `config.app` with the stored value merged over it" },
    policy_id: { type: ["string", "null"], description: "The policy the app's users act with; null: standard mode (their role bindings)" },
    spec_version: { type: ["integer", "null"], description: "The pinned version; null follows the latest" },
    effective_spec_version: { type: "integer" },
    pending_version: {
      type: ["integer", "null"],
      description:
        "A spec shared to this tenant: its latest version, held until a write accepts it because it widens what the activation accepted; null when none is held",
    },
    pending_changes: {
      type: "array",
      description: "How pending_version widens the version in use",
      items: {
        type: "object",
        required: ["code", "path"],
        properties: {
          code: { enum: WIDENING_CODES },
          path: { type: "string", description: "Dotted path in the pending version's document" },
        },
      },
    },
    job_bindings: bindings,
    ...timestamps,
  },
} as const;

const ORIGIN = "^https?://[^/?#\\s]+$";

export const integrationCreate = {
  type: "object",
  additionalProperties: false,
  required: ["external_company_id"],
  properties: {
    external_company_id: uuidSchema,
    name: { type: ["string", "null"], minLength: 1, maxLength: 200 },
    allowed_origins: {
      type: "array",
      maxItems: 50,
      uniqueItems: true,
      items: { type: "string", maxLength: 300, pattern: ORIGIN },
      description: "Exact origins (`https://host[:port]`, no path) a browser host renders from",
    },
    config: configPatch,
    job_bindings: { ...bindingsPatch, description: `${bindingsPatch.description}; win over the activation's` },
    is_enabled: { type: "boolean" },
  },
} as const;

export const integrationChange = {
  type: "object",
  additionalProperties: false,
  minProperties: 1,
  properties: {
    name: integrationCreate.properties.name,
    allowed_origins: integrationCreate.properties.allowed_origins,
    config: configPatch,
    job_bindings: { ...bindingsPatch, description: `${bindingsPatch.description}; replaces the integration's bindings` },
    is_enabled: { type: "boolean" },
  },
} as const;

export const integrationItem = {
  type: "object",
  required: [
    "id",
    "spec_id",
    "activation_id",
    "external_company_id",
    "provider",
    "company_external_id",
    "name",
    "allowed_origins",
    "config",
    "effective_config",
    "job_bindings",
    "is_enabled",
    "created_at",
    "updated_at",
  ],
  properties: {
    id: { type: "string" },
    spec_id: { type: "string" },
    activation_id: { type: "string" },
    external_company_id: { type: "string" },
    provider: { type: "string" },
    company_external_id: { type: "string" },
    name: { type: ["string", "null"] },
    allowed_origins: { type: "array", items: { type: "string" } },
    config: { ...freeFormObject, description: "The `integration` scope as stored" },
    effective_config: { ...freeFormObject, description: "The spec version's `config.integration` with the stored value merged over it" },
    job_bindings: { ...bindings, description: "The integration's own bindings (they win over the activation's)" },
    is_enabled: { type: "boolean" },
    ...timestamps,
  },
} as const;

export const principalBody = { type: "object", additionalProperties: false, required: ["config"], properties: { config: configPatch } } as const;

export const principalQuery = {
  type: "object",
  additionalProperties: false,
  properties: {
    provider: {
      type: "string",
      minLength: 1,
      maxLength: 200,
      description: "company principals of a spec with several providers: the provider the external_id belongs to",
    },
  },
} as const;

export const principalItem = {
  type: "object",
  required: ["spec_id", "principal_type", "principal_id", "provider", "config", "effective_config", "created_at", "updated_at"],
  properties: {
    spec_id: { type: "string" },
    principal_type: { enum: ["company", "team", "user"] },
    principal_id: { type: "string", description: "As resolved (`self` answers the caller's user id)" },
    provider: { type: ["string", "null"], description: "company principals: the provider of the external company; else null" },
    config: { ...freeFormObject, description: "The scope as stored" },
    effective_config: { ...freeFormObject, description: "The spec version's `config.<type>` with the stored value merged over it" },
    ...timestamps,
  },
} as const;
