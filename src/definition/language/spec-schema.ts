// The JSON Schema of an app spec document (docs/apps.md), served by
// `GET /definition/specs/schema` and applied first on every publish. What a
// schema cannot say (ids naming widgets, pages, sources and jobs; expression
// syntax; provider identity rules; secret references) is checked by
// ../checks/spec.ts. Keys inside a spec document are camelCase.
import type { JSONSchema } from "json-schema-to-ts";
import type { Accepted } from "../../lib/validate";
import { ACTION_NAMES, ID_PATTERN, JOB_LANGUAGE_SCHEMA } from "./workflow-schema";
import { CATALOGUE_NAMES } from "./components/catalogue";

/** The config scopes a spec declares values and schemas for. */
export const CONFIG_SCOPES = ["app", "integration", "company", "team", "user"] as const;
/** Components an inline layout node may name: containers hold children, leaves do not. */
export const CONTAINER_COMPONENTS = ["section", "row", "tabs", "header", "footer"] as const;
export const LEAF_COMPONENTS = ["divider", "iframe", "file_viewer"] as const;
/** Containers allowed only as top-level layout entries. */
export const TOP_LEVEL_ONLY = ["tabs", "header", "footer"] as const;
/** The upload types a provider may declare. */
export const UPLOAD_TYPES = ["canvasFileUpload"] as const;
/** The most a file field or an upload slot may accept: 25 MiB. */
export const MAX_UPLOAD_BYTES = 26_214_400;
/** An upload link's lifetime in seconds: the default and the most a `createTempFileUploadUrl` step may ask for. */
export const UPLOAD_TTL = { default: 1800, max: 7200 } as const;
/** An `accept` entry naming an extension: `.pdf`, `.tar.gz`. */
export const ACCEPT_EXTENSION = /^\.[A-Za-z0-9][A-Za-z0-9+_-]*(\.[A-Za-z0-9+_-]+)*$/;
/** An `accept` entry naming a MIME type: `application/pdf`, `image/*` (RFC 6838 names). */
export const ACCEPT_MIME = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*\/(\*|[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*)$/;
export const COMMAND_KINDS = [
  "navigate",
  "refresh",
  "setPageData",
  "setWidgetState",
  "notify",
  "actions",
  "job",
  "setPrincipalConfig",
  "setSecret",
  "createTempFileUploadUrl",
  "closeModal",
  "debug",
] as const;
export const PIPE_STEPS = ["map", "filter", "orderBy", "orderByList", "leftJoin", "distinct", "guardedProject"] as const;

/** Entries a `shares` block may hold: each is looked up in the database at publish. */
export const MAX_SHARES = 100;

const key = { type: "string", minLength: 1, maxLength: 200 } as const;
const text = { type: "string", minLength: 1 } as const;
const id = { type: "string", pattern: ID_PATTERN } as const;
/** A bare JSONata expression; its syntax is checked by compiling it. */
const expression = { type: "string", minLength: 1, maxLength: 10_000, description: "A bare JSONata expression (no {{ }})" } as const;
/** A smart value: a literal, `{{ }}` templates, or `$`-directives. */
const smartValue = { description: "A smart value: a literal, {{ }} JSONata templates, or $jsonata / $literal directives" } as const;
const dotted = { type: "string", minLength: 1, description: "A dotted path" } as const;
const map = (value: object, description: string) => ({ type: "object", description, propertyNames: key, additionalProperties: value }) as const;
/** An object keyed by config scope. */
const scoped = (value: object, description: string) =>
  ({ type: "object", description, properties: Object.fromEntries(CONFIG_SCOPES.map((scope) => [scope, value])), additionalProperties: false }) as const;
const actionNames = { type: "array", uniqueItems: true, items: { enum: ACTION_NAMES } } as const;

/** A command's own fields beside those every command has. */
export const COMMAND_FIELDS = {
  navigate: {
    required: ["page"],
    properties: { page: { ...smartValue, description: "A page or modal key (literal or smart value)" }, params: smartValue, modal: { type: "boolean" } },
  },
  refresh: { properties: { includeModal: { type: "boolean" } } },
  setPageData: { required: ["data"], properties: { data: smartValue, inModal: { type: "boolean" } } },
  setWidgetState: { required: ["widgetId", "state"], properties: { widgetId: key, state: smartValue } },
  notify: { required: ["level", "message"], properties: { level: { enum: ["INFO", "WARN", "ERROR"] }, message: smartValue } },
  actions: {
    required: ["actions"],
    properties: {
      actions: { $ref: "#/$defs/actions" },
      input: smartValue,
      output: smartValue,
      permissionSet: { enum: ["readonly", "dataMutation"], default: "readonly" },
      additionalAllowed: actionNames,
      denied: actionNames,
    },
  },
  job: {
    required: ["job"],
    properties: { job: { ...key, description: "A key of the spec's jobs" }, input: smartValue, additionalAllowed: actionNames, denied: actionNames },
  },
  setPrincipalConfig: {
    required: ["principalType"],
    properties: {
      principalType: { enum: ["company", "team", "user"] },
      principalId: smartValue,
      config: smartValue,
      ops: {
        type: "array",
        items: {
          type: "object",
          required: ["op", "path"],
          properties: { op: { enum: ["appendUnique", "remove", "moveItem"] }, path: dotted, value: smartValue, by: { enum: [1, -1] } },
          additionalProperties: false,
        },
      },
    },
  },
  setSecret: {
    required: ["target", "value"],
    properties: {
      target: { type: "string", pattern: "^(user|company|team)\\.[A-Za-z_][A-Za-z0-9_]*$", description: "<user|company|team>.<NAME>" },
      value: smartValue,
    },
  },
  createTempFileUploadUrl: {
    required: ["slots"],
    properties: {
      slots: {
        type: ["array", "object"],
        description: "Upload slots, or a $jsonata directive computing them",
        items: {
          type: "object",
          required: ["name"],
          properties: { name: key, maxFileSize: { type: "integer", minimum: 1 }, accept: { type: "array", items: text } },
          additionalProperties: false,
        },
        required: ["$jsonata"],
        properties: { $jsonata: expression },
        additionalProperties: false,
      },
      type: { enum: UPLOAD_TYPES },
      ttl: {
        ...smartValue,
        default: UPLOAD_TTL.default,
        description: `Seconds the links live, 1 to ${UPLOAD_TTL.max}: an integer, or a smart value checked when the step runs`,
      },
    },
  },
  closeModal: { properties: { result: smartValue } },
  debug: { properties: { value: smartValue } },
} as const satisfies Record<(typeof COMMAND_KINDS)[number], { required?: readonly string[]; properties: Record<string, unknown> }>;

const COMMON_COMMAND_FIELDS = {
  kind: true,
  stepId: id,
  if: expression,
  onSuccess: { $ref: "#/$defs/commands" },
  onError: { $ref: "#/$defs/commands" },
} as const;

/** An outbound auth field: a profile name of the root auth map, or an inline block. */
const authField = {
  type: ["string", "object"],
  description: "A profile name of the root auth map, or an inline profile block",
  additionalProperties: true,
  if: { type: "object", additionalProperties: true },
  then: { $ref: "#/$defs/profile" },
} as const;

/** What a page and a modal share. */
const pageProperties = {
  layout: { type: "array", items: { $ref: "#/$defs/layoutEntry" } },
  dataSources: map({ $ref: "#/$defs/dataSource" }, "Data sources by name; a source resolves only when read"),
  widgets: map({ $ref: "#/$defs/widget" }, "Widgets of this page by id"),
} as const;

const defs = {
  ...JOB_LANGUAGE_SCHEMA.$defs,
  actions: { type: "array", maxItems: 500, items: { $ref: "#/$defs/action" } },
  commands: { type: "array", description: "Command steps, run in order", items: { $ref: "#/$defs/command" } },
  // One closed object holding every kind's fields: a branch per kind (if/then) costs a
  // dozen evaluations per command, too slow for a spec of thousands of widgets.
  // Which fields each kind takes and requires is checked beside the schema (checks/spec-commands.ts).
  command: {
    type: "object",
    description: "A command: kind, its fields (see COMMAND_FIELDS), and stepId, if, onSuccess, onError",
    required: ["kind"],
    properties: {
      ...COMMON_COMMAND_FIELDS,
      kind: { enum: COMMAND_KINDS },
      ...Object.assign({}, ...Object.values(COMMAND_FIELDS).map((fields) => fields.properties)),
    },
    additionalProperties: false,
  },
  widget: {
    type: "object",
    required: ["widgetComponent"],
    properties: {
      widgetComponent: { ...text, description: "The host's component name (a form is `form`)" },
      config: { ...smartValue, description: "The component's props, a smart value; a form lists config.fields" },
      dataSource: { ...key, description: "A source of the page showing the widget" },
      actionHandlers: map({ $ref: "#/$defs/commands" }, "Command lists by handler name"),
      stateKey: key,
    },
    additionalProperties: false,
  },
  gate: {
    type: "object",
    required: ["$if", "$then"],
    properties: { $if: expression, $then: { ...key, description: "A widget id" } },
    additionalProperties: false,
  },
  cell: {
    type: ["string", "object"],
    description: "A widget id, or a gate { $if, $then }",
    minLength: 1,
    additionalProperties: true,
    if: { type: "object", additionalProperties: true },
    then: { $ref: "#/$defs/gate" },
  },
  child: {
    type: ["string", "object"],
    description: "A widget id, a gate or an inline node",
    minLength: 1,
    additionalProperties: true,
    if: { type: "object", required: ["$if"], additionalProperties: true },
    then: { $ref: "#/$defs/gate" },
    else: { if: { type: "object", additionalProperties: true }, then: { $ref: "#/$defs/node" } },
  },
  node: {
    type: "object",
    description: "An inline layout node",
    required: ["component"],
    properties: {
      component: { enum: [...CONTAINER_COMPONENTS, ...LEAF_COMPONENTS] },
      id: key,
      config: smartValue,
      children: { type: "array", items: { $ref: "#/$defs/child" } },
      actionHandlers: true,
      stateKey: true,
      dataSource: true,
    },
    additionalProperties: false,
    if: { required: ["component"], properties: { component: { enum: LEAF_COMPONENTS } } },
    then: { not: { required: ["children"] } },
  },
  layoutEntry: {
    type: ["array", "object"],
    description: "A row of widget ids (or gates), or an inline node",
    items: { $ref: "#/$defs/cell" },
    additionalProperties: true,
    if: { type: "object", additionalProperties: true },
    then: { $ref: "#/$defs/node" },
  },
  page: { type: "object", properties: pageProperties, additionalProperties: false },
  modal: { type: "object", properties: { ...pageProperties, wide: { type: "boolean" } }, additionalProperties: false },
  surfacePage: {
    type: ["string", "object"],
    description: "A page key, or { page }",
    minLength: 1,
    required: ["page"],
    properties: { page: key },
    additionalProperties: false,
  },
  scanCard: {
    type: "object",
    required: ["page", "props"],
    properties: {
      page: key,
      if: { ...expression, description: "A bare JSONata predicate on the card page's render context" },
      props: {
        type: "object",
        required: ["title"],
        properties: {
          title: smartValue,
          link: smartValue,
          app: smartValue,
          maxHeight: smartValue,
        },
        additionalProperties: false,
      },
    },
    additionalProperties: false,
  },
  dashboard: {
    type: "object",
    required: ["surfaces"],
    properties: {
      name: key,
      surfaces: {
        type: "object",
        description: "The placements the dashboard declares, by type",
        minProperties: 1,
        properties: { dashboard: { $ref: "#/$defs/surfacePage" }, panel: { $ref: "#/$defs/surfacePage" }, scanCard: { $ref: "#/$defs/scanCard" } },
        additionalProperties: false,
      },
      pages: map({ $ref: "#/$defs/page" }, "Pages by key"),
      modals: map({ $ref: "#/$defs/modal" }, "Modals by key (opened by navigate with modal: true)"),
      widgets: map({ $ref: "#/$defs/widget" }, "Widgets by id"),
    },
    additionalProperties: false,
  },
  pipe: {
    type: ["string", "array"],
    description: "Row steps, or a JSONata expression reading the rows as $rows",
    minLength: 1,
    items: {
      type: "object",
      minProperties: 1,
      maxProperties: 1,
      properties: {
        map: expression,
        filter: expression,
        orderBy: {
          type: "array",
          items: { type: "object", required: ["path"], properties: { path: dotted, direction: { enum: ["asc", "desc"] } }, additionalProperties: false },
        },
        orderByList: { type: "object", required: ["path", "list"], properties: { path: dotted, list: { type: "array" } }, additionalProperties: false },
        leftJoin: {
          type: "object",
          required: ["source", "localKey", "foreignKey", "as"],
          properties: { source: { ...key, description: "A source of the same page" }, localKey: dotted, foreignKey: dotted, as: key },
          additionalProperties: false,
        },
        distinct: { type: "array", items: dotted },
        guardedProject: { type: "object", additionalProperties: dotted },
      },
      additionalProperties: false,
    },
  },
  dataSource: {
    type: "object",
    description: "Exactly one producer ($query, $http, $rows, $typeSchema), with $pipe and single beside it",
    oneOf: [{ required: ["$query"] }, { required: ["$http"] }, { required: ["$rows"] }, { required: ["$typeSchema"] }],
    properties: {
      $query: {
        type: "object",
        required: ["typeName"],
        properties: {
          typeName: smartValue,
          filter: smartValue,
          sort: smartValue,
          include: smartValue,
          limit: smartValue,
          single: { type: "boolean" },
          paged: {
            type: "boolean",
            description: "Pages on the server as the data_grid bound to the source asks (its page, pageSize, sorting, filters); the total is the exact count",
          },
          distinctOn: smartValue,
          search: smartValue,
        },
        additionalProperties: false,
      },
      $http: {
        type: "object",
        required: ["url"],
        properties: {
          url: smartValue,
          method: { enum: ["GET", "POST"], default: "GET" },
          headers: { type: "object", additionalProperties: smartValue },
          query: { type: "object", additionalProperties: smartValue },
          body: smartValue,
          auth: authField,
          rowsPath: dotted,
          paged: { type: "object", properties: { totalPath: dotted, hasNextPath: dotted }, additionalProperties: false },
          maxRetries: { type: "integer", minimum: 0, maximum: 2, default: 0 },
        },
        additionalProperties: false,
      },
      $rows: { ...smartValue, description: "An inline or computed array" },
      $typeSchema: {
        type: "object",
        properties: { entityType: key, attribute: dotted, schema: key, path: dotted },
        additionalProperties: false,
        oneOf: [{ required: ["entityType", "attribute"] }, { required: ["schema", "path"] }],
      },
      $pipe: { $ref: "#/$defs/pipe" },
      single: { type: "boolean", description: "With $query: the record or null" },
    },
    additionalProperties: false,
  },
  extractor: {
    description: "An extractor { source, path } or a smart value",
    if: { type: "object", required: ["source"], additionalProperties: true },
    then: {
      required: ["source", "path"],
      properties: { source: { enum: ["body", "header", "query", "jwt_claim"] }, path: dotted },
      additionalProperties: false,
    },
  },
  upload: {
    type: "object",
    properties: { props: smartValue, errorProps: smartValue },
    additionalProperties: false,
  },
  provider: {
    type: "object",
    required: ["auth"],
    properties: {
      auth: {
        type: "object",
        required: ["type"],
        properties: {
          type: { enum: ["bearer", "oidc", "exchange"] },
          header: { ...key, description: "The header carrying the credential instead of Authorization" },
          issuerPattern: { ...text, description: "oidc: a regex matched against iss" },
          audience: { type: ["string", "array"], items: text, description: "oidc, exchange: matched against aud" },
          jwksUriTemplate: { ...text, description: "oidc: the JWKS URL; {tid} only in path or query" },
          allowedTidClaim: { ...key, default: "tid" },
          requiredClaims: { type: "array", items: text },
          trustedAmurlHosts: { type: "array", items: text, description: "exchange: hosts the metadata URL may name" },
        },
        additionalProperties: false,
      },
      identity: map({ $ref: "#/$defs/extractor" }, "Identity keys and how each is read"),
      upload: {
        type: ["string", "object"],
        description: "An upload type name, or { <type>: { props?, errorProps? } }",
        if: { type: "string" },
        then: { enum: UPLOAD_TYPES },
        propertyNames: { enum: UPLOAD_TYPES },
        additionalProperties: { $ref: "#/$defs/upload" },
      },
      autoCreateUsers: { type: "boolean" },
      allowEmailLink: { type: "boolean", default: false },
      components: {
        description: "The component catalogue the provider's host draws: a catalogue's name, or { extends?, define } adding components of its own",
        oneOf: [
          { enum: CATALOGUE_NAMES },
          {
            type: "object",
            required: ["define"],
            properties: {
              extends: { enum: CATALOGUE_NAMES },
              define: map({ $ref: "#/$defs/componentDefinition" }, "Components by name, each with JSON Schemas of its config, state and handler payloads"),
            },
            additionalProperties: false,
          },
        ],
      },
    },
    additionalProperties: false,
  },
  componentDefinition: {
    type: "object",
    properties: {
      description: { type: "string" },
      config: { type: "object", description: "A JSON Schema of the resolved config", additionalProperties: true },
      state: { type: "object", description: "A JSON Schema of the widget state a host posts back", additionalProperties: true },
      handlers: map(
        {
          type: "object",
          properties: { payload: { type: "object", description: "A JSON Schema of the handler's payload", additionalProperties: true } },
          additionalProperties: false,
        },
        "Handlers by name",
      ),
    },
    additionalProperties: false,
  },
  grant: {
    type: "object",
    required: ["resource", "actions"],
    properties: {
      resource: key,
      actions: { type: "array", minItems: 1, items: { enum: ["read", "create", "update", "delete"] } },
      resourceName: { ...key, description: "A resource name; $app_config is the activation" },
      resourceId: key,
    },
    additionalProperties: false,
    not: { required: ["resourceName", "resourceId"] },
  },
  policy: {
    type: "object",
    required: ["grants"],
    properties: { description: { type: "string" }, grants: { type: "array", items: { $ref: "#/$defs/grant" } } },
    additionalProperties: false,
  },
  share: {
    type: "object",
    required: ["tenantId"],
    properties: {
      tenantId: { type: "string", format: "uuid" },
      resourceType: { enum: ["spec", "entity_type", "schema"], default: "spec" },
      resourceName: key,
      actions: { type: "array", items: { enum: ["read", "create", "update", "delete"] } },
    },
    additionalProperties: false,
  },
  job: {
    type: ["object", "null"],
    description: "An inline job { actions, input?, output? }; null or {} is a slot filled by a binding",
    properties: { actions: { $ref: "#/$defs/actions" }, input: smartValue, output: smartValue },
    dependentRequired: { input: ["actions"], output: ["actions"] },
    additionalProperties: false,
  },
} as const;

export const SPEC_DOCUMENT_SCHEMA = {
  $schema: "https://json-schema.org/draft/2020-12/schema",
  title: "App spec document",
  type: "object",
  required: ["dashboards"],
  properties: {
    dashboards: { ...map({ $ref: "#/$defs/dashboard" }, "Dashboards by key; the first is the fallback"), minProperties: 1 },
    widgets: map({ $ref: "#/$defs/widget" }, "Widgets merged into every dashboard"),
    pages: map({ $ref: "#/$defs/page" }, "Pages merged into every dashboard"),
    modals: map({ $ref: "#/$defs/modal" }, "Modals merged into every dashboard"),
    defaultDashboard: { ...smartValue, description: "A dashboard key, or a smart value choosing one" },
    providers: map({ $ref: "#/$defs/provider" }, "Host providers by name"),
    config: scoped({ type: "object", additionalProperties: true }, "Definition-level config values per scope, merged under the stored config"),
    configSchemas: scoped({ type: ["string", "null"], minLength: 1 }, "A registered schema name per scope (null: unvalidated)"),
    policies: map({ $ref: "#/$defs/policy" }, "Access policies provisioned per consumer tenant"),
    defaultPolicy: { ...key, description: "A key of policies" },
    shares: { type: "array", description: "Cross-tenant shares (the owner manifest)", maxItems: MAX_SHARES, items: { $ref: "#/$defs/share" } },
    jobs: map({ $ref: "#/$defs/job" }, "Jobs by key: inline bodies, or slots"),
    functions: map({ type: "string", minLength: 1, description: "function($a, ...) { ... }" }, "JSONata functions, callable as $<name>(...)"),
    messages: map({ type: "string" }, "Message templates by notification id or error code"),
    auth: { type: "object", description: "Named outbound auth profiles", maxProperties: 100, additionalProperties: { $ref: "#/$defs/profile" } },
  },
  additionalProperties: false,
  $defs: defs,
} as const;

// The document type is written out where json-schema-to-ts cannot follow
// the recursive `$ref`s (command lists, layout nodes); a command's own
// fields are typed from COMMAND_FIELDS, the schema publish checks them with.

export type CommandKind = (typeof COMMAND_KINDS)[number];

type KindSchema<K extends CommandKind> = (typeof COMMAND_FIELDS)[K];

/** A field that refers to the spec's `$defs` (an action list) is any value to the type: the reference is out of reach here. */
type Unreferenced<P> = { [F in keyof P]: P[F] extends { $ref: string } ? true : P[F] };

type FieldsSchema<K extends CommandKind> = {
  type: "object";
  properties: Unreferenced<KindSchema<K>["properties"]>;
  required: KindSchema<K> extends { required: infer R extends readonly string[] } ? R : [];
  additionalProperties: false;
};

/** The fields of a `K` command, as COMMAND_FIELDS declares them and checkKindFields holds a published command to. */
export type CommandFields<K extends CommandKind> = FieldsSchema<K> extends infer S extends JSONSchema ? Accepted<S> : never;

/** What every command has beside its kind's fields. */
interface CommandCommon {
  stepId?: string;
  if?: string;
  onSuccess?: CommandDocument[];
  onError?: CommandDocument[];
}

/** A command of kind `K` (any kind by default): a union discriminated by `kind`. */
export type CommandDocument<K extends CommandKind = CommandKind> = { [P in K]: { kind: P } & CommandCommon & CommandFields<P> }[K];

export interface WidgetDocument {
  widgetComponent: string;
  config?: unknown;
  dataSource?: string;
  actionHandlers?: Record<string, CommandDocument[]>;
  stateKey?: string;
}

export interface GateDocument {
  $if: string;
  $then: string;
}

export interface NodeDocument {
  component: (typeof CONTAINER_COMPONENTS)[number] | (typeof LEAF_COMPONENTS)[number];
  id?: string;
  config?: unknown;
  children?: (string | GateDocument | NodeDocument)[];
}

export interface PageDocument {
  layout?: ((string | GateDocument)[] | NodeDocument)[];
  dataSources?: Record<string, Record<string, unknown>>;
  widgets?: Record<string, WidgetDocument>;
}

export interface ModalDocument extends PageDocument {
  wide?: boolean;
}

export interface DashboardDocument {
  name?: string;
  surfaces: {
    dashboard?: string | { page: string };
    panel?: string | { page: string };
    scanCard?: { page: string; if?: string; props: { title: unknown; link?: unknown; app?: unknown; maxHeight?: unknown } };
  };
  pages?: Record<string, PageDocument>;
  modals?: Record<string, ModalDocument>;
  widgets?: Record<string, WidgetDocument>;
}

export type SpecDocument = Record<string, unknown> & {
  dashboards: Record<string, DashboardDocument>;
  widgets?: Record<string, WidgetDocument>;
  pages?: Record<string, PageDocument>;
  modals?: Record<string, ModalDocument>;
  defaultDashboard?: unknown;
  providers?: Record<string, Record<string, unknown>>;
  config?: Partial<Record<(typeof CONFIG_SCOPES)[number], Record<string, unknown>>>;
  configSchemas?: Partial<Record<(typeof CONFIG_SCOPES)[number], string | null>>;
  policies?: Record<string, { description?: string; grants: { resource: string; actions: string[]; resourceName?: string; resourceId?: string }[] }>;
  defaultPolicy?: string;
  shares?: { tenantId: string; resourceType?: "spec" | "entity_type" | "schema"; resourceName?: string; actions?: string[] }[];
  jobs?: Record<string, { actions?: unknown[]; input?: unknown; output?: unknown } | null>;
  functions?: Record<string, string>;
  messages?: Record<string, string>;
  auth?: Record<string, Record<string, unknown>>;
};
