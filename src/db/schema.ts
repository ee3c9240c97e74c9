// The one source of row types. Every tenant-owned table carries `tenant_id`
// (leading every index) and a row-level-security policy bound to the
// `app_tenant` role, which every request assumes with SET LOCAL ROLE (see db/client.ts).
import { sql } from "drizzle-orm";
import {
  bigint,
  type AnyPgColumn,
  boolean,
  check,
  customType,
  index,
  integer,
  json,
  jsonb,
  pgPolicy,
  pgRole,
  pgTable,
  primaryKey,
  text,
  unique,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import { pgTimestamptzToIso } from "../lib/timestamps";

export const appTenant = pgRole("app_tenant").existing();

const tenantMatches = sql`tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid)`;

/** The isolation policy every tenant-owned table carries. */
const tenantPolicy = (table: string) =>
  pgPolicy(`${table}_tenant_isolation`, { as: "permissive", for: "all", to: appTenant, using: tenantMatches, withCheck: tenantMatches });

const currentTenant = sql`(select nullif(current_setting('app.tenant_id', true), '')::uuid)`;

/**
 * For tables whose rows can be shared: one select policy that sees own rows
 * and rows shared with the current tenant (platform_* functions, migration
 * 0006), and the isolation rule for every write. Shares are a clause of the
 * policy, never a bypass. The select clause leads with
 * `tenant_id = any(<own and sharing tenants>)` so an index on tenant_id still serves it.
 */
const sharedReadPolicies = (table: string, visible: ReturnType<typeof sql>) => [
  pgPolicy(`${table}_visible`, { as: "permissive", for: "select", to: appTenant, using: visible }),
  pgPolicy(`${table}_tenant_insert`, { as: "permissive", for: "insert", to: appTenant, withCheck: tenantMatches }),
  pgPolicy(`${table}_tenant_update`, { as: "permissive", for: "update", to: appTenant, using: tenantMatches, withCheck: tenantMatches }),
  pgPolicy(`${table}_tenant_delete`, { as: "permissive", for: "delete", to: appTenant, using: tenantMatches }),
];

const bytea = customType<{ data: Uint8Array; driverData: Uint8Array }>({ dataType: () => "bytea" });

/** timestamptz read as an RFC 3339 string with microseconds (lib/timestamps.ts). */
const timestamptz = customType<{ data: string; driverData: string }>({
  dataType: () => "timestamp with time zone",
  fromDriver: pgTimestamptzToIso,
});

const id = () => uuid("id").primaryKey().default(sql`gen_random_uuid()`);
const tenantId = () =>
  uuid("tenant_id")
    .notNull()
    .references(() => tenants.id, { onDelete: "cascade" });
const createdAt = () => timestamptz("created_at").notNull().default(sql`now()`);
const ts = (name: string) => timestamptz(name);

export const tenants = pgTable("tenants", { id: id(), name: text("name").notNull(), createdAt: createdAt() }, () => [
  pgPolicy("tenants_tenant_isolation", {
    as: "permissive",
    for: "select",
    to: appTenant,
    using: sql`id = (select nullif(current_setting('app.tenant_id', true), '')::uuid)`,
  }),
]).enableRLS();

export const users = pgTable(
  "users",
  {
    id: id(),
    tenantId: tenantId(),
    name: text("name"),
    email: text("email"),
    /** A deactivated user's tokens are refused at authentication. */
    isActive: boolean("is_active").notNull().default(true),
    createdAt: createdAt(),
    updatedAt: ts("updated_at").notNull().default(sql`now()`),
  },
  (t) => [uniqueIndex("users_tenant_email_key").on(t.tenantId, sql`lower(${t.email})`).where(sql`${t.email} is not null`), tenantPolicy("users")],
).enableRLS();

export const roles = pgTable(
  "roles",
  {
    id: id(),
    tenantId: tenantId(),
    name: text("name").notNull(),
    /** `<resource>:<action>` strings; `*` matches any resource or action. */
    permissions: text("permissions").array().notNull(),
    createdAt: createdAt(),
    updatedAt: ts("updated_at").notNull().default(sql`now()`),
  },
  (t) => [uniqueIndex("roles_tenant_name_key").on(t.tenantId, t.name), tenantPolicy("roles")],
).enableRLS();

export const roleBindings = pgTable(
  "role_bindings",
  {
    id: id(),
    tenantId: tenantId(),
    roleId: uuid("role_id")
      .notNull()
      .references(() => roles.id, { onDelete: "cascade" }),
    principalType: text("principal_type", { enum: ["user", "token"] }).notNull(),
    principalId: uuid("principal_id").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("role_bindings_key").on(t.tenantId, t.principalType, t.principalId, t.roleId),
    check("role_bindings_principal_type", sql`${t.principalType} in ('user', 'token')`),
    tenantPolicy("role_bindings"),
  ],
).enableRLS();

export const apiTokens = pgTable(
  "api_tokens",
  {
    id: id(),
    tenantId: tenantId(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    name: text("name").notNull(),
    /** Public half of the PAT; globally unique so Basic auth can find the tenant. */
    clientId: text("client_id").notNull(),
    /** SHA-256 of the secret. Secrets are 256-bit random values, so a fast hash is enough. */
    secretHash: bytea("secret_hash").notNull(),
    expiresAt: ts("expires_at"),
    revokedAt: ts("revoked_at"),
    /**
     * True when the token was minted without `role_names`: it acts with its
     * user's role bindings as they are now. False: its own bindings only.
     */
    inheritsUserRoles: boolean("inherits_user_roles").notNull().default(false),
    createdAt: createdAt(),
  },
  (t) => [uniqueIndex("api_tokens_client_id_key").on(t.clientId), index("api_tokens_tenant_idx").on(t.tenantId, t.createdAt), tenantPolicy("api_tokens")],
).enableRLS();

export const idempotencyRecords = pgTable(
  "idempotency_records",
  {
    tenantId: tenantId(),
    /** The calling identity (token id); keys are scoped per identity. */
    identity: text("identity").notNull(),
    key: text("key").notNull(),
    requestHash: text("request_hash").notNull(),
    /** Null while the first request is still running. */
    status: integer("status"),
    body: text("body"),
    contentType: text("content_type"),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.identity, t.key] }),
    index("idempotency_records_created_idx").on(t.createdAt),
    tenantPolicy("idempotency_records"),
  ],
).enableRLS();

export const schemas = pgTable(
  "schemas",
  {
    id: id(),
    tenantId: tenantId(),
    name: text("name").notNull(),
    version: integer("version").notNull(),
    schema: jsonb("schema").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("schemas_tenant_name_version_key").on(t.tenantId, t.name, t.version),
    tenantPolicy("schemas"),
    pgPolicy("schemas_shared_read", {
      as: "permissive",
      for: "select",
      to: appTenant,
      using: sql`tenant_id = any((select platform_visible_tenants())::uuid[]) and exists (select 1 from shares s where s.target_tenant_id = ${currentTenant} and s.tenant_id = schemas.tenant_id and s.resource_type = 'schema' and s.resource_id = schemas.id and 'read' = any (s.actions))`,
    }),
  ],
).enableRLS();

export const entityTypes = pgTable(
  "entity_types",
  {
    id: id(),
    tenantId: tenantId(),
    name: text("name").notNull(),
    status: text("status", { enum: ["draft", "active"] })
      .notNull()
      .default("draft"),
    /** The effective JSON schema (a registered schema is resolved and copied in). */
    schema: jsonb("schema").notNull(),
    schemaName: text("schema_name"),
    config: jsonb("config").notNull(),
    createdAt: createdAt(),
    updatedAt: ts("updated_at").notNull().default(sql`now()`),
  },
  (t) => [
    uniqueIndex("entity_types_tenant_name_key").on(t.tenantId, t.name),
    check("entity_types_status", sql`${t.status} in ('draft', 'active')`),
    tenantPolicy("entity_types"),
    pgPolicy("entity_types_shared_read", {
      as: "permissive",
      for: "select",
      to: appTenant,
      using: sql`tenant_id = any((select platform_visible_tenants())::uuid[]) and platform_type_shared(tenant_id, id)`,
    }),
  ],
).enableRLS();

export const entities = pgTable(
  "entities",
  {
    id: id(),
    tenantId: tenantId(),
    typeId: uuid("type_id")
      .notNull()
      .references(() => entityTypes.id),
    name: text("name").notNull(),
    attributes: jsonb("attributes").notNull(),
    identifierKey: text("identifier_key").notNull(),
    createdAt: createdAt(),
    updatedAt: ts("updated_at").notNull().default(sql`now()`),
    deletedAt: ts("deleted_at"),
  },
  (t) => [
    uniqueIndex("entities_live_key").on(t.tenantId, t.typeId, t.identifierKey).where(sql`${t.deletedAt} is null`),
    index("entities_live_type_id_idx").on(t.tenantId, t.typeId, t.id).where(sql`${t.deletedAt} is null`),
    ...sharedReadPolicies(
      "entities",
      sql`tenant_id = any((select platform_visible_tenants())::uuid[]) and (tenant_id = ${currentTenant} or platform_entity_shared(tenant_id, type_id, id))`,
    ),
  ],
).enableRLS();

export const relationshipRules = pgTable(
  "relationship_rules",
  {
    id: id(),
    tenantId: tenantId(),
    name: text("name").notNull(),
    fromTypeId: uuid("from_type_id")
      .notNull()
      .references(() => entityTypes.id),
    toTypeId: uuid("to_type_id")
      .notNull()
      .references(() => entityTypes.id),
    /** How many live links one `to` entity may have under the rule (null: unlimited). */
    maxFromCardinality: integer("max_from_cardinality"),
    /** How many live links one `from` entity may have under the rule (null: unlimited). */
    maxToCardinality: integer("max_to_cardinality"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("relationship_rules_tenant_name_key").on(t.tenantId, t.name),
    index("relationship_rules_from_idx").on(t.tenantId, t.fromTypeId),
    index("relationship_rules_to_idx").on(t.tenantId, t.toTypeId),
    tenantPolicy("relationship_rules"),
    pgPolicy("relationship_rules_shared_read", {
      as: "permissive",
      for: "select",
      to: appTenant,
      using: sql`tenant_id = any((select platform_visible_tenants())::uuid[]) and platform_type_shared(tenant_id, from_type_id) and platform_type_shared(tenant_id, to_type_id)`,
    }),
  ],
).enableRLS();

export const relationships = pgTable(
  "relationships",
  {
    id: id(),
    tenantId: tenantId(),
    ruleId: uuid("rule_id")
      .notNull()
      .references(() => relationshipRules.id),
    fromEntityId: uuid("from_entity_id")
      .notNull()
      .references(() => entities.id),
    toEntityId: uuid("to_entity_id")
      .notNull()
      .references(() => entities.id),
    createdAt: createdAt(),
    deletedAt: ts("deleted_at"),
  },
  (t) => [
    uniqueIndex("relationships_live_key").on(t.tenantId, t.ruleId, t.fromEntityId, t.toEntityId).where(sql`${t.deletedAt} is null`),
    index("relationships_live_from_idx").on(t.tenantId, t.fromEntityId, t.ruleId).where(sql`${t.deletedAt} is null`),
    index("relationships_live_to_idx").on(t.tenantId, t.toEntityId, t.ruleId).where(sql`${t.deletedAt} is null`),
    tenantPolicy("relationships"),
    pgPolicy("relationships_shared_read", {
      as: "permissive",
      for: "select",
      to: appTenant,
      using: sql`tenant_id = any((select platform_visible_tenants())::uuid[]) and exists (select 1 from entities f where f.id = from_entity_id) and exists (select 1 from entities t where t.id = to_entity_id)`,
    }),
  ],
).enableRLS();

/**
 * Entity events (docs/api.md, Events), append-only: written in the entity
 * change's transaction and never updated. Delivery state lives in the two narrow
 * tables below, so delivering an event rewrites neither the row nor its indexes.
 */
export const events = pgTable(
  "events",
  {
    id: id(),
    tenantId: tenantId(),
    entityId: uuid("entity_id").notNull(),
    entityTypeId: uuid("entity_type_id").notNull(),
    action: text("action", { enum: ["created", "updated", "deleted", "merged"] }).notNull(),
    /** Suppressed events are audit records only: never queued, never dispatched. */
    suppressed: boolean("suppressed").notNull().default(false),
    payload: jsonb("payload").notNull(),
    // clock_timestamp, not now(): events of one transaction keep the order they were written in.
    createdAt: timestamptz("created_at").notNull().default(sql`clock_timestamp()`),
  },
  (t) => [
    index("events_tenant_created_idx").on(t.tenantId, t.createdAt, t.id),
    index("events_tenant_entity_idx").on(t.tenantId, t.entityId, t.createdAt),
    check("events_action", sql`${t.action} in ('created', 'updated', 'deleted', 'merged')`),
    tenantPolicy("events"),
  ],
).enableRLS();

/**
 * The transactional outbox: one row per non-suppressed event not yet
 * delivered, written in the event's own statement. After commit the ids go to
 * the Queue as pointer messages; the consumer deletes the rows it delivers,
 * and the cron tick re-queues rows older than a grace period, so a crash
 * between commit and send loses nothing.
 */
export const eventOutbox = pgTable(
  "event_outbox",
  {
    eventId: uuid("event_id").primaryKey(),
    // No foreign keys here or in event_deliveries: a referential check costs
    // about as much as the narrow row itself, on the path of every entity
    // write, and both rows are only ever written next to their event.
    tenantId: uuid("tenant_id").notNull(),
    /** The event's `created_at`: the re-queue grace period runs from it. */
    createdAt: timestamptz("created_at").notNull(),
  },
  (t) => [index("event_outbox_created_idx").on(t.createdAt), tenantPolicy("event_outbox")],
).enableRLS();

/** When the queue consumer claimed each delivered event (`delivered_at` of GET /event/events). */
export const eventDeliveries = pgTable(
  "event_deliveries",
  {
    eventId: uuid("event_id").primaryKey(),
    tenantId: uuid("tenant_id").notNull(),
    deliveredAt: timestamptz("delivered_at").notNull().default(sql`now()`),
  },
  (t) => [tenantPolicy("event_deliveries")],
).enableRLS();

/**
 * A file attached to an entity (docs/api.md, Artifacts): one row per
 * (artifact_type, filename) upload series; the bytes live in `artifact_versions`. Artifacts
 * follow their entity: hidden with it when it is soft-deleted, moved to the
 * survivor when it is merged (entity/entities/merge.ts).
 */
export const artifacts = pgTable(
  "artifacts",
  {
    id: id(),
    tenantId: tenantId(),
    entityId: uuid("entity_id")
      .notNull()
      .references(() => entities.id),
    artifactType: text("artifact_type").notNull(),
    filename: text("filename").notNull(),
    createdAt: createdAt(),
  },
  (t) => [index("artifacts_entity_idx").on(t.tenantId, t.entityId, t.artifactType, t.filename), tenantPolicy("artifacts")],
).enableRLS();

/**
 * One upload of an artifact. At most one version per artifact is pending (a
 * new upload URL replaces it); confirmed versions are numbered 1, 2, … and the
 * pending one takes the next number.
 */
export const artifactVersions = pgTable(
  "artifact_versions",
  {
    id: id(),
    tenantId: tenantId(),
    artifactId: uuid("artifact_id")
      .notNull()
      .references(() => artifacts.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    status: text("status", { enum: ["pending", "confirmed"] })
      .notNull()
      .default("pending"),
    contentType: text("content_type").notNull(),
    /** The size announced with the upload URL; the bytes must match it when set. */
    declaredSize: integer("declared_size"),
    /** Plaintext size and lowercase hex SHA-256, both null until the bytes arrive. */
    size: integer("size"),
    sha256: text("sha256"),
    /**
     * The R2 object holding the bytes (null until they arrive). Each upload
     * writes a fresh object and swaps it in here, so a confirmed version's
     * object is never overwritten. The key is bound into the object's
     * encryption (files/crypto-stream.ts).
     */
    storageKey: text("storage_key"),
    createdAt: createdAt(),
    confirmedAt: ts("confirmed_at"),
  },
  (t) => [
    uniqueIndex("artifact_versions_number_key").on(t.tenantId, t.artifactId, t.version),
    uniqueIndex("artifact_versions_one_pending_key").on(t.tenantId, t.artifactId).where(sql`${t.status} = 'pending'`),
    index("artifact_versions_pending_idx").on(t.createdAt).where(sql`${t.status} = 'pending'`),
    check("artifact_versions_status", sql`${t.status} in ('pending', 'confirmed')`),
    tenantPolicy("artifact_versions"),
  ],
).enableRLS();

/** Short-lived files with no owning entity (docs/api.md, Temp files); the cron tick removes them once expired. */
export const tempFiles = pgTable(
  "temp_files",
  {
    id: id(),
    tenantId: tenantId(),
    name: text("name").notNull(),
    contentType: text("content_type").notNull(),
    size: integer("size").notNull(),
    storageKey: text("storage_key").notNull(),
    createdAt: createdAt(),
    expiresAt: ts("expires_at").notNull(),
  },
  (t) => [index("temp_files_expires_idx").on(t.expiresAt), tenantPolicy("temp_files")],
).enableRLS();

/**
 * Bumped (by triggers, migrations/0006) on every change to a tenant's
 * access rows: roles, bindings, policies, grants, assignments, users and the
 * shares it receives. The per-isolate permission cache compares it on every
 * authentication, so a change is seen by the next request.
 */
export const accessVersions = pgTable(
  "access_versions",
  {
    tenantId: uuid("tenant_id")
      .primaryKey()
      .references(() => tenants.id, { onDelete: "cascade" }),
    version: integer("version").notNull().default(0),
  },
  () => [tenantPolicy("access_versions")],
).enableRLS();

export const policies = pgTable(
  "policies",
  {
    id: id(),
    tenantId: tenantId(),
    name: text("name").notNull(),
    description: text("description"),
    /** The workflow whose activation provisioned this policy (and reconciles its grants); null for a policy written through /access/policies. */
    workflowId: uuid("workflow_id").references((): AnyPgColumn => workflowDefinitions.id, { onDelete: "set null" }),
    /** The app activation that provisioned this policy, with `app_policy_key` (a key of the spec's `policies`, or `$inline` for the config write's own `policy`). */
    appActivationId: uuid("app_activation_id").references((): AnyPgColumn => appActivations.id, { onDelete: "set null" }),
    appPolicyKey: text("app_policy_key"),
    createdAt: createdAt(),
    updatedAt: ts("updated_at").notNull().default(sql`now()`),
  },
  (t) => [
    uniqueIndex("policies_tenant_name_key").on(t.tenantId, t.name),
    uniqueIndex("policies_workflow_key").on(t.tenantId, t.workflowId).where(sql`${t.workflowId} IS NOT NULL`),
    uniqueIndex("policies_app_activation_key").on(t.tenantId, t.appActivationId, t.appPolicyKey).where(sql`${t.appActivationId} IS NOT NULL`),
    tenantPolicy("policies"),
  ],
).enableRLS();

/**
 * One grant of a policy: `actions` on `resource`, optionally narrowed to the
 * entities of one type (`resource_name`) or to one entity (`resource_id`).
 */
export const grants = pgTable(
  "grants",
  {
    id: id(),
    tenantId: tenantId(),
    policyId: uuid("policy_id")
      .notNull()
      .references(() => policies.id, { onDelete: "cascade" }),
    resource: text("resource").notNull(),
    actions: text("actions").array().notNull(),
    resourceName: text("resource_name"),
    resourceId: uuid("resource_id"),
    createdAt: createdAt(),
  },
  (t) => [index("grants_policy_idx").on(t.tenantId, t.policyId), tenantPolicy("grants")],
).enableRLS();

/** A policy assigned to a role or to a user (exactly one); removed with either. */
export const policyAssignments = pgTable(
  "policy_assignments",
  {
    id: id(),
    tenantId: tenantId(),
    policyId: uuid("policy_id")
      .notNull()
      .references(() => policies.id, { onDelete: "cascade" }),
    roleId: uuid("role_id").references(() => roles.id, { onDelete: "cascade" }),
    userId: uuid("user_id").references(() => users.id, { onDelete: "cascade" }),
    createdAt: createdAt(),
  },
  (t) => [
    unique("policy_assignments_key").on(t.tenantId, t.policyId, t.roleId, t.userId).nullsNotDistinct(),
    check("policy_assignments_one_principal", sql`num_nonnulls(${t.roleId}, ${t.userId}) = 1`),
    tenantPolicy("policy_assignments"),
  ],
).enableRLS();

/**
 * A resource of the owning tenant (`tenant_id`) made readable to another
 * (`target_tenant_id`). The target sees the row (and, through the policies
 * below, the shared rows themselves); only the owner changes it.
 */
export const shares = pgTable(
  "shares",
  {
    id: id(),
    tenantId: tenantId(),
    resourceType: text("resource_type", { enum: ["entity_type", "entity", "spec", "workflow", "schema"] }).notNull(),
    resourceId: uuid("resource_id").notNull(),
    targetTenantId: uuid("target_tenant_id")
      .notNull()
      .references(() => tenants.id, { onDelete: "cascade" }),
    actions: text("actions").array().notNull(),
    source: text("source", { enum: ["api", "manifest"] })
      .notNull()
      .default("api"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("shares_key").on(t.tenantId, t.resourceType, t.resourceId, t.targetTenantId, t.source),
    index("shares_target_idx").on(t.targetTenantId, t.resourceType, t.resourceId),
    check("shares_resource_type", sql`${t.resourceType} in ('entity_type', 'entity', 'spec', 'workflow', 'schema')`),
    check("shares_source", sql`${t.source} in ('api', 'manifest')`),
    check("shares_other_tenant", sql`${t.targetTenantId} <> ${t.tenantId}`),
    tenantPolicy("shares"),
    pgPolicy("shares_target_read", { as: "permissive", for: "select", to: appTenant, using: sql`target_tenant_id = ${currentTenant}` }),
  ],
).enableRLS();

/** Secret values, encrypted with the tenant's key (lib/secret-box.ts); never returned. */
export const secrets = pgTable(
  "secrets",
  {
    id: id(),
    tenantId: tenantId(),
    scope: text("scope", { enum: ["tenant", "user", "company", "team"] }).notNull(),
    /** Null for tenant scope; the user, company or team id otherwise. */
    principalId: text("principal_id"),
    name: text("name").notNull(),
    ciphertext: bytea("ciphertext").notNull(),
    createdAt: createdAt(),
    updatedAt: ts("updated_at").notNull().default(sql`now()`),
  },
  (t) => [
    unique("secrets_key").on(t.tenantId, t.scope, t.principalId, t.name).nullsNotDistinct(),
    check("secrets_scope", sql`${t.scope} in ('tenant', 'user', 'company', 'team')`),
    check("secrets_principal", sql`(${t.scope} = 'tenant') = (${t.principalId} is null)`),
    tenantPolicy("secrets"),
  ],
).enableRLS();

export const externalCompanies = pgTable(
  "external_companies",
  {
    id: id(),
    tenantId: tenantId(),
    provider: text("provider").notNull(),
    externalId: text("external_id").notNull(),
    name: text("name"),
    metadata: jsonb("metadata"),
    isActive: boolean("is_active").notNull().default(true),
    createdAt: createdAt(),
    updatedAt: ts("updated_at").notNull().default(sql`now()`),
  },
  (t) => [uniqueIndex("external_companies_key").on(t.tenantId, t.provider, t.externalId), tenantPolicy("external_companies")],
).enableRLS();

/**
 * A person as a provider's company names them (SPEC.md 4.8: the key is
 * provider, company, user id). The company is its `external_id` as the host
 * sends it, the text a render compares and POST /access/external-users
 * takes, not a reference to the registered row: external companies are
 * never deleted, and a render already holds the id it resolved. NULL is a
 * mapping not bound to a company yet (made before mappings named one, or
 * posted without one): the first render naming it binds it. The key treats
 * NULLs as equal, so a person has at most one unbound mapping per provider.
 */
export const externalUsers = pgTable(
  "external_users",
  {
    id: id(),
    tenantId: tenantId(),
    provider: text("provider").notNull(),
    externalId: text("external_id").notNull(),
    companyExternalId: text("company_external_id"),
    email: text("email"),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    isActive: boolean("is_active").notNull().default(true),
    createdAt: createdAt(),
    updatedAt: ts("updated_at").notNull().default(sql`now()`),
  },
  (t) => [
    // The company last: lookups by (provider, external_id) alone, and the binding of an unbound mapping, use the same index.
    unique("external_users_key").on(t.tenantId, t.provider, t.externalId, t.companyExternalId).nullsNotDistinct(),
    index("external_users_user_idx").on(t.tenantId, t.userId),
    tenantPolicy("external_users"),
  ],
).enableRLS();

/**
 * Rows of a workflow definition are readable by its owner and by every tenant
 * it is shared with (`resource_type: workflow`), in every transaction, not
 * only in shared reads: the target's activations, dispatches, triggers and
 * runs read the definition in their own read-write transactions.
 */
const workflowShared = (table: string, workflowIdColumn: string) =>
  sql.raw(
    `tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid) or exists (select 1 from shares s where s.target_tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid) and s.tenant_id = ${table}.tenant_id and s.resource_type = 'workflow' and s.resource_id = ${table}.${workflowIdColumn} and 'read' = any (s.actions))`,
  );

/**
 * A workflow definition (docs/workflows.md): the current version of its
 * document. Every save writes the version to `workflow_versions` too, so a
 * run keeps the version it started with while the definition moves on.
 */
export const workflowDefinitions = pgTable(
  "workflow_definitions",
  {
    id: id(),
    tenantId: tenantId(),
    name: text("name").notNull(),
    description: text("description"),
    status: text("status", { enum: ["draft", "active"] })
      .notNull()
      .default("draft"),
    version: integer("version").notNull().default(1),
    definitionJson: jsonb("definition_json").notNull(),
    /** The YAML as written, when the definition was saved from YAML. */
    sourceYaml: text("source_yaml"),
    createdAt: createdAt(),
    updatedAt: ts("updated_at").notNull().default(sql`now()`),
  },
  (t) => [
    uniqueIndex("workflow_definitions_tenant_name_key").on(t.tenantId, t.name),
    check("workflow_definitions_status", sql`${t.status} in ('draft', 'active')`),
    ...sharedReadPolicies("workflow_definitions", workflowShared("workflow_definitions", "id")),
  ],
).enableRLS();

/** Every saved version of a definition, with the jobs its reference steps were bound to at that save. */
export const workflowVersions = pgTable(
  "workflow_versions",
  {
    tenantId: tenantId(),
    workflowId: uuid("workflow_id")
      .notNull()
      .references(() => workflowDefinitions.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    definitionJson: jsonb("definition_json").notNull(),
    /** Reference step id → job definition id, bound at save (the latest active version of the named job). */
    jobRefs: jsonb("job_refs").notNull().default(sql`'{}'::jsonb`),
    createdAt: createdAt(),
  },
  (t) => [primaryKey({ columns: [t.workflowId, t.version] }), ...sharedReadPolicies("workflow_versions", workflowShared("workflow_versions", "workflow_id"))],
).enableRLS();

/** A published reusable job: each publish of a name is the next version, with its own id. */
export const jobDefinitions = pgTable(
  "job_definitions",
  {
    id: id(),
    tenantId: tenantId(),
    name: text("name").notNull(),
    version: integer("version").notNull(),
    status: text("status", { enum: ["active"] })
      .notNull()
      .default("active"),
    definitionJson: jsonb("definition_json").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("job_definitions_name_version_key").on(t.tenantId, t.name, t.version),
    check("job_definitions_status", sql`${t.status} in ('active')`),
    // Shared reads only (a tenant's own job names and versions stay its own): the jobs a version of a workflow shared with the tenant is bound to.
    ...sharedReadPolicies(
      "job_definitions",
      sql`tenant_id = ${currentTenant} or (tenant_id = any((select platform_visible_tenants())::uuid[]) and exists (select 1 from shares s join workflow_versions v on v.workflow_id = s.resource_id and v.tenant_id = s.tenant_id where s.target_tenant_id = ${currentTenant} and s.tenant_id = job_definitions.tenant_id and s.resource_type = 'workflow' and 'read' = any (s.actions) and exists (select 1 from jsonb_each_text(v.job_refs) b where b.value = job_definitions.id::text)))`,
    ),
  ],
).enableRLS();

/**
 * A tenant's activation of a definition, its own or one shared with it (one
 * per workflow and tenant): the version it pins (triggers, env and runs
 * follow it until the next activation), the stored env values, the job
 * bindings and the access policy every run acts with.
 */
export const workflowActivations = pgTable(
  "workflow_activations",
  {
    workflowId: uuid("workflow_id")
      .notNull()
      .references(() => workflowDefinitions.id, { onDelete: "cascade" }),
    tenantId: tenantId(),
    version: integer("version").notNull(),
    /** Stored env values only; the definition's defaults are merged under them when read. */
    env: jsonb("env").notNull().default(sql`'{}'::jsonb`),
    /** Job step id → job definition id, overriding the bindings made at save. */
    jobBindings: jsonb("job_bindings").notNull().default(sql`'{}'::jsonb`),
    /** A bound policy cannot be deleted (409) while an activation uses it. */
    policyId: uuid("policy_id").references(() => policies.id, { onDelete: "restrict" }),
    activatedAt: ts("activated_at").notNull().default(sql`now()`),
    updatedAt: ts("updated_at").notNull().default(sql`now()`),
  },
  (t) => [
    primaryKey({ columns: [t.tenantId, t.workflowId] }),
    // The owner counts the other tenants' activations before deleting (platform_workflow_activations_elsewhere).
    index("workflow_activations_workflow_idx").on(t.workflowId),
    index("workflow_activations_policy_idx").on(t.tenantId, t.policyId),
    tenantPolicy("workflow_activations"),
  ],
).enableRLS();

/**
 * A trigger of an activated definition. The row's uuid stays the same
 * across re-activations while the definition keeps the trigger id (`key`).
 * Event triggers carry their match columns, so the queue consumer finds the
 * triggers of an event through the partial index instead of reading them all.
 */
export const workflowTriggers = pgTable(
  "workflow_triggers",
  {
    id: id(),
    tenantId: tenantId(),
    workflowId: uuid("workflow_id")
      .notNull()
      .references(() => workflowDefinitions.id, { onDelete: "cascade" }),
    key: text("key").notNull(),
    type: text("type", { enum: ["event", "cron", "webhook"] }).notNull(),
    /**
     * The trigger block of the activated version, as written; in a tenant
     * activating a workflow shared with it, `source` names that tenant's
     * entity type and relationship rule of the owner's names.
     */
    definition: jsonb("definition").notNull(),
    enabled: boolean("enabled").notNull().default(true),
    entityTypeId: uuid("entity_type_id"),
    eventAction: text("event_action"),
    /** The webhook secret, encrypted with the tenant's key; null until minted. */
    secretCiphertext: bytea("secret_ciphertext"),
    createdAt: createdAt(),
    updatedAt: ts("updated_at").notNull().default(sql`now()`),
  },
  (t) => [
    uniqueIndex("workflow_triggers_key").on(t.tenantId, t.workflowId, t.key),
    index("workflow_triggers_event_idx").on(t.tenantId, t.entityTypeId, t.eventAction).where(sql`${t.type} = 'event' and ${t.enabled}`),
    check("workflow_triggers_type", sql`${t.type} in ('event', 'cron', 'webhook')`),
    check("workflow_triggers_event_match", sql`(${t.type} = 'event') = (${t.entityTypeId} is not null and ${t.eventAction} is not null)`),
    tenantPolicy("workflow_triggers"),
  ],
).enableRLS();

/** The schedule of a cron trigger; the minute tick dispatches what is due. */
export const cronSchedules = pgTable(
  "cron_schedules",
  {
    id: id(),
    tenantId: tenantId(),
    workflowId: uuid("workflow_id")
      .notNull()
      .references(() => workflowDefinitions.id, { onDelete: "cascade" }),
    triggerId: uuid("trigger_id")
      .notNull()
      .references(() => workflowTriggers.id, { onDelete: "cascade" }),
    cron: text("cron").notNull(),
    /** Seconds (0-9) after its tick a dispatched run may start, spreading load off the minute. */
    offsetSeconds: integer("offset_seconds").notNull(),
    /** True for hourly and rarer expressions: a tick missed is made up by the next one. */
    catchUp: boolean("catch_up").notNull(),
    /** The next tick the schedule fires at, before the offset. */
    nextRunAt: ts("next_run_at").notNull(),
    lastRunAt: ts("last_run_at"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("cron_schedules_trigger_key").on(t.triggerId),
    index("cron_schedules_due_idx").on(t.nextRunAt),
    index("cron_schedules_tenant_idx").on(t.tenantId, t.workflowId, t.createdAt, t.id),
    check("cron_schedules_offset", sql`${t.offsetSeconds} between 0 and 9`),
    tenantPolicy("cron_schedules"),
  ],
).enableRLS();

export const RUN_STATUSES = ["pending", "running", "success", "error", "cancelled", "skipped", "timeout"] as const;
export const STEP_STATUSES = ["pending", "running", "waiting", "success", "error", "skipped", "cancelled", "timeout"] as const;

/**
 * A workflow run. Created `pending` by a trigger or a dispatch; the run's
 * orchestrator moves it on. Unique keys make a repeated start impossible:
 * one run per (trigger, event) and per (trigger, idempotency key).
 */
export const workflowRuns = pgTable(
  "workflow_runs",
  {
    id: id(),
    tenantId: tenantId(),
    workflowId: uuid("workflow_id")
      .notNull()
      .references(() => workflowDefinitions.id, { onDelete: "cascade" }),
    workflowVersion: integer("workflow_version").notNull(),
    triggerId: uuid("trigger_id").references(() => workflowTriggers.id, { onDelete: "set null" }),
    /** The definition's trigger id; null for a test run started without one. */
    triggerKey: text("trigger_key"),
    triggerType: text("trigger_type", { enum: ["event", "cron", "webhook", "test"] }).notNull(),
    status: text("status", { enum: RUN_STATUSES }).notNull().default("pending"),
    context: jsonb("context").notNull(),
    /** A test run (POST /definition/workflows/{id}/test-runs): it acts as `callerTokenId`'s caller with `testEnv`, not with the activation. */
    test: boolean("test").notNull().default(false),
    /** A test run's env values, merged over the definition's defaults. */
    testEnv: jsonb("test_env"),
    /** The API token a test run acts as: its permissions are read when the run acts. */
    callerTokenId: uuid("caller_token_id"),
    /** How many invokeWorkflow calls separate the run from the run that started its chain (0 for a run started otherwise). */
    depth: integer("depth").notNull().default(0),
    /** What the latest retry asked for (`{ config, from_step }`); null for a retry without a body. */
    retryRequest: jsonb("retry_request"),
    outputs: jsonb("outputs"),
    error: jsonb("error"),
    /** The entity of an event-started run (the `entity_id` filter). */
    entityId: uuid("entity_id"),
    eventId: uuid("event_id"),
    idempotencyKey: text("idempotency_key"),
    parentRunId: uuid("parent_run_id"),
    /** The earliest the orchestrator starts the run (a cron run's offset). */
    notBefore: ts("not_before").notNull().default(sql`now()`),
    /** Times the run was retried in place. */
    attempt: integer("attempt").notNull().default(0),
    /** The failures `errorPolicy: continue` consumed, written as the run ends. */
    errorsContinued: integer("errors_continued").notNull().default(0),
    createdAt: createdAt(),
    startedAt: ts("started_at"),
    finishedAt: ts("finished_at"),
    updatedAt: ts("updated_at").notNull().default(sql`now()`),
  },
  (t) => [
    uniqueIndex("workflow_runs_event_key").on(t.triggerId, t.eventId).where(sql`${t.eventId} is not null`),
    uniqueIndex("workflow_runs_idempotency_key").on(t.triggerId, t.idempotencyKey).where(sql`${t.idempotencyKey} is not null`),
    index("workflow_runs_tenant_created_idx").on(t.tenantId, t.createdAt, t.id),
    index("workflow_runs_workflow_created_idx").on(t.tenantId, t.workflowId, t.createdAt, t.id),
    index("workflow_runs_entity_idx").on(t.tenantId, t.entityId).where(sql`${t.entityId} is not null`),
    index("workflow_runs_open_idx").on(t.status, t.notBefore).where(sql`${t.status} in ('pending', 'running')`),
    check("workflow_runs_status", sql`${t.status} in ('pending', 'running', 'success', 'error', 'cancelled', 'skipped', 'timeout')`),
    check("workflow_runs_trigger_type", sql`${t.triggerType} in ('event', 'cron', 'webhook', 'test')`),
    tenantPolicy("workflow_runs"),
  ],
).enableRLS();

/** One step (job) of a run. */
export const workflowJobRuns = pgTable(
  "workflow_job_runs",
  {
    id: id(),
    tenantId: tenantId(),
    runId: uuid("run_id")
      .notNull()
      .references(() => workflowRuns.id, { onDelete: "cascade" }),
    jobId: text("job_id").notNull(),
    status: text("status", { enum: STEP_STATUSES }).notNull().default("pending"),
    error: jsonb("error"),
    /** The step's resolved input (secrets masked). */
    input: jsonb("input"),
    output: jsonb("output"),
    skippedReason: text("skipped_reason", { enum: ["condition_false", "run_ended"] }),
    startedAt: ts("started_at"),
    finishedAt: ts("finished_at"),
    createdAt: createdAt(),
  },
  (t) => [
    uniqueIndex("workflow_job_runs_key").on(t.runId, t.jobId),
    check("workflow_job_runs_status", sql`${t.status} in ('pending', 'running', 'waiting', 'success', 'error', 'skipped', 'cancelled', 'timeout')`),
    check("workflow_job_runs_skipped_reason", sql`${t.skippedReason} in ('condition_false', 'run_ended')`),
    tenantPolicy("workflow_job_runs"),
  ],
).enableRLS();

/** One action of a job run, in the order the job runs them. */
export const workflowActionRuns = pgTable(
  "workflow_action_runs",
  {
    id: id(),
    tenantId: tenantId(),
    jobRunId: uuid("job_run_id")
      .notNull()
      .references(() => workflowJobRuns.id, { onDelete: "cascade" }),
    position: integer("position").notNull(),
    stepId: text("step_id"),
    name: text("name").notNull(),
    status: text("status", { enum: STEP_STATUSES }).notNull().default("pending"),
    error: jsonb("error"),
    attempts: integer("attempts").notNull().default(0),
    /** What the action recorded for itself (a child run's id, a callback's state). */
    detail: jsonb("detail"),
    /** The config as resolved and sent (secrets masked). */
    config: jsonb("config"),
    /** The result (secrets masked); past 64 KiB of JSON text, that text's first 64 KiB as a string. */
    result: jsonb("result"),
    resultTruncated: boolean("result_truncated").notNull().default(false),
    skippedReason: text("skipped_reason", { enum: ["if_false", "run_ended"] }),
    startedAt: ts("started_at"),
    finishedAt: ts("finished_at"),
  },
  (t) => [
    uniqueIndex("workflow_action_runs_key").on(t.jobRunId, t.position),
    check("workflow_action_runs_status", sql`${t.status} in ('pending', 'running', 'waiting', 'success', 'error', 'skipped', 'cancelled', 'timeout')`),
    check("workflow_action_runs_skipped_reason", sql`${t.skippedReason} in ('if_false', 'run_ended')`),
    tenantPolicy("workflow_action_runs"),
  ],
).enableRLS();

/** Every status an action of a job run reached, in order. */
export const workflowActionLog = pgTable(
  "workflow_action_log",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    tenantId: tenantId(),
    jobRunId: uuid("job_run_id")
      .notNull()
      .references(() => workflowJobRuns.id, { onDelete: "cascade" }),
    stepId: text("step_id"),
    name: text("name").notNull(),
    status: text("status").notNull(),
    error: jsonb("error"),
    at: timestamptz("at").notNull().default(sql`clock_timestamp()`),
  },
  (t) => [index("workflow_action_log_job_idx").on(t.jobRunId, t.id), tenantPolicy("workflow_action_log")],
).enableRLS();

/** A spec row is readable by its owner and by every tenant it is shared with (`resource_type: spec`). */
const specShared = (specIdColumn: string) =>
  sql.raw(
    `tenant_id = any((select platform_visible_tenants())::uuid[]) and exists (select 1 from shares s where s.target_tenant_id = (select nullif(current_setting('app.tenant_id', true), '')::uuid) and s.tenant_id = ${specIdColumn.split(".")[0]}.tenant_id and s.resource_type = 'spec' and s.resource_id = ${specIdColumn} and 'read' = any (s.actions))`,
  );

/**
 * An app spec (docs/apps.md): the current version of its document, kept as
 * written (`json`, not `jsonb`, so key order survives: the first dashboard
 * is the fallback). Every accepted save also lands in `app_spec_versions`.
 */
export const appSpecs = pgTable(
  "app_specs",
  {
    id: id(),
    tenantId: tenantId(),
    name: text("name").notNull(),
    description: text("description"),
    version: integer("version").notNull().default(1),
    specDocument: json("spec_document").notNull(),
    createdAt: createdAt(),
    updatedAt: ts("updated_at").notNull().default(sql`now()`),
  },
  (t) => [
    uniqueIndex("app_specs_tenant_name_key").on(t.tenantId, t.name),
    ...sharedReadPolicies("app_specs", sql`tenant_id = ${currentTenant} or (${specShared("app_specs.id")})`),
  ],
).enableRLS();

/** Every accepted document of a spec, immutable; an activation may pin one. */
export const appSpecVersions = pgTable(
  "app_spec_versions",
  {
    tenantId: tenantId(),
    specId: uuid("spec_id")
      .notNull()
      .references(() => appSpecs.id, { onDelete: "cascade" }),
    version: integer("version").notNull(),
    specDocument: json("spec_document").notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    primaryKey({ columns: [t.specId, t.version] }),
    ...sharedReadPolicies("app_spec_versions", sql`tenant_id = ${currentTenant} or (${specShared("app_spec_versions.spec_id")})`),
  ],
).enableRLS();

/**
 * A tenant's one activation of a spec (its own or shared to it): the `app`
 * config scope as stored (operator values and schema defaults, never the
 * definition's values), the pinned version (null follows the latest), the
 * version its last write accepted, the job bindings and the policy its users
 * act with. `revision` moves on every write (optimistic locking).
 */
export const appActivations = pgTable(
  "app_activations",
  {
    id: id(),
    tenantId: tenantId(),
    specId: uuid("spec_id")
      .notNull()
      .references(() => appSpecs.id, { onDelete: "cascade" }),
    specVersion: integer("spec_version"),
    /**
     * The version whose policies the last write provisioned: the consent of a
     * tenant a spec is shared to. Its activation follows later versions only
     * while they widen nothing past this one (docs/apps.md, Consent).
     */
    acceptedVersion: integer("accepted_version").notNull(),
    config: jsonb("config").notNull().default(sql`'{}'::jsonb`),
    jobBindings: jsonb("job_bindings").notNull().default(sql`'{}'::jsonb`),
    policyId: uuid("policy_id").references((): AnyPgColumn => policies.id, { onDelete: "restrict" }),
    /** True when the operator chose the policy (`policy_id` or an inline `policy`); false: the spec's `defaultPolicy` (or none). */
    policyBound: boolean("policy_bound").notNull().default(false),
    revision: integer("revision").notNull().default(1),
    createdAt: createdAt(),
    updatedAt: ts("updated_at").notNull().default(sql`now()`),
  },
  (t) => [
    uniqueIndex("app_activations_tenant_spec_key").on(t.tenantId, t.specId),
    index("app_activations_spec_idx").on(t.specId),
    tenantPolicy("app_activations"),
  ],
).enableRLS();

/**
 * A registered provider organisation (an external company of the tenant)
 * tied to an activation: where renders come from (`allowed_origins`), the
 * `integration` config scope as stored, and job bindings that win over the
 * activation's.
 */
export const appIntegrations = pgTable(
  "app_integrations",
  {
    id: id(),
    tenantId: tenantId(),
    activationId: uuid("activation_id")
      .notNull()
      .references(() => appActivations.id, { onDelete: "cascade" }),
    externalCompanyId: uuid("external_company_id")
      .notNull()
      .references(() => externalCompanies.id, { onDelete: "restrict" }),
    name: text("name"),
    allowedOrigins: text("allowed_origins").array().notNull().default(sql`'{}'::text[]`),
    config: jsonb("config").notNull().default(sql`'{}'::jsonb`),
    jobBindings: jsonb("job_bindings").notNull().default(sql`'{}'::jsonb`),
    isEnabled: boolean("is_enabled").notNull().default(true),
    revision: integer("revision").notNull().default(1),
    createdAt: createdAt(),
    updatedAt: ts("updated_at").notNull().default(sql`now()`),
  },
  (t) => [index("app_integrations_activation_idx").on(t.tenantId, t.activationId), tenantPolicy("app_integrations")],
).enableRLS();

/**
 * Per-principal config of an activation (the `company`, `team` and `user`
 * scopes as stored). `principal_id` is the external company's `external_id`
 * (with its `provider`), an opaque team id, or a user id; `provider` is ''
 * for team and user. `revision` moves on every write (optimistic locking).
 */
export const appPrincipalConfigs = pgTable(
  "app_principal_configs",
  {
    id: id(),
    tenantId: tenantId(),
    activationId: uuid("activation_id")
      .notNull()
      .references(() => appActivations.id, { onDelete: "cascade" }),
    principalType: text("principal_type", { enum: ["company", "team", "user"] }).notNull(),
    provider: text("provider").notNull().default(""),
    principalId: text("principal_id").notNull(),
    config: jsonb("config").notNull().default(sql`'{}'::jsonb`),
    revision: integer("revision").notNull().default(1),
    createdAt: createdAt(),
    updatedAt: ts("updated_at").notNull().default(sql`now()`),
  },
  (t) => [
    uniqueIndex("app_principal_configs_key").on(t.tenantId, t.activationId, t.principalType, t.provider, t.principalId),
    check("app_principal_configs_type", sql`${t.principalType} in ('company', 'team', 'user')`),
    tenantPolicy("app_principal_configs"),
  ],
).enableRLS();

/**
 * An app upload slot (docs/apps.md, Uploads): minted by a render's
 * `createTempFileUploadUrl` step for one app user of one integration, its
 * id the temp file's id once a file arrives. `claimed_at` is set (once, by
 * a conditional UPDATE) before any byte is stored, so one slot takes one
 * file; a failed upload sets it back. `identity` is what the provider's
 * extractors gave the render, read by the provider's upload body overrides.
 * Rows outlive their expiry by a week, so a form preview can tell an
 * expired upload from none (cron/tick.ts sweeps them).
 */
export const appUploadSlots = pgTable(
  "app_upload_slots",
  {
    id: uuid("id").primaryKey(),
    tenantId: tenantId(),
    integrationId: uuid("integration_id")
      .notNull()
      .references(() => appIntegrations.id, { onDelete: "cascade" }),
    activationId: uuid("activation_id")
      .notNull()
      .references(() => appActivations.id, { onDelete: "cascade" }),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id, { onDelete: "cascade" }),
    provider: text("provider").notNull(),
    type: text("type").notNull(),
    name: text("name").notNull(),
    maxFileSize: integer("max_file_size").notNull(),
    accept: jsonb("accept").notNull().default(sql`'[]'::jsonb`),
    identity: jsonb("identity").notNull().default(sql`'{}'::jsonb`),
    expiresAt: ts("expires_at").notNull(),
    claimedAt: ts("claimed_at"),
    createdAt: createdAt(),
  },
  (t) => [index("app_upload_slots_expires_idx").on(t.expiresAt), tenantPolicy("app_upload_slots")],
).enableRLS();

/**
 * The render credential of one integration: only the SHA-256 of the raw
 * token (`svc_at_<64 hex>`, 256 random bits, so a fast hash is enough) is
 * kept; it is globally unique so a render finds the tenant from it. At most
 * one live token per integration: rotation revokes the old one in the same
 * statement that stores the new.
 */
export const appTokens = pgTable(
  "app_tokens",
  {
    id: id(),
    tenantId: tenantId(),
    integrationId: uuid("integration_id")
      .notNull()
      .references(() => appIntegrations.id, { onDelete: "cascade" }),
    tokenHash: bytea("token_hash").notNull(),
    createdAt: createdAt(),
    revokedAt: ts("revoked_at"),
  },
  (t) => [
    uniqueIndex("app_tokens_hash_key").on(t.tokenHash),
    uniqueIndex("app_tokens_live_key").on(t.integrationId).where(sql`${t.revokedAt} is null`),
    tenantPolicy("app_tokens"),
  ],
).enableRLS();
