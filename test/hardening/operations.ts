// A valid request for every operation of the OpenAPI document, taken from how
// the tests under test/ call each endpoint. The fuzzer mutates these, so most
// of its requests pass validation up to the one value it made hostile.
import { eventsDoc, HOOKS_DOC, JOB_DOC, PRODUCT_CONFIG, PRODUCT_SCHEMA, specDoc, type Side, type World } from "./world";

/** One request before mutation. Path and query values are percent-encoded text unless given as JSON. */
export interface Example {
  params?: Record<string, string>;
  query?: Record<string, string | { json: unknown }>;
  body?: unknown;
  /** CSV import: the X-Import-Config JSON and the records (header first). */
  csv?: { config: unknown; rows: string[][] };
  /** Raw bytes with their headers (temp files, uploads). */
  bytes?: { text: string; headers: Record<string, string> };
  /** Sent without credentials (signed links, /auth/token). */
  anonymous?: boolean;
  /** The Authorization header instead of the tenant's PAT (an app render's token). */
  authorization?: string;
}

const signed = (u: URL): Record<string, string> => Object.fromEntries(u.searchParams);

const productFilter = (s: Side) => ({
  operator: "and",
  filters: [
    { operator: "ilike", path: ["attributes", "title"], value: "%re%" },
    { operator: "lt", path: ["attributes", "price"], value: 100 },
    { operator: "rel_exists", path: ["relationships", "made_by"], value: { operator: "eq", path: ["name"], value: "Acme" } },
    { operator: "in", path: ["id"], value: s.products },
  ],
});

const gql = (query: string, variables: unknown) => ({ query, variables });

/** Examples by `METHOD /path/{param}`, as the OpenAPI document names operations. */
export function examples(w: World): Record<string, Example[]> {
  const a = w.a;
  const [p1, p2] = a.products;
  const entity = { params: { id: p1 } };
  const artifact = { params: { id: p1, artifactId: a.artifactId } };
  const role = { params: { id: a.roleId } };
  const user = { params: { id: a.userId2 } };
  const policy = { params: { id: a.policyId } };
  const company = { params: { id: a.companyId } };
  const externalUser = { params: { id: a.externalUserId } };
  const share = { params: { id: a.shareId } };
  return {
    "GET /openapi.json": [{ anonymous: true }],
    "GET /healthz": [{ anonymous: true }],
    "GET /apps/components": [{ anonymous: true }],
    "GET /apps/host/v1.js": [{ anonymous: true }],
    "POST /auth/token": [{ anonymous: true, body: { grant_type: "client_credentials", client_id: a.clientId, client_secret: a.clientSecret } }],
    "POST /auth/tokens/api": [{ body: { name: "fz-minted", role_names: ["fz_reader"] } }],
    "POST /access/api-tokens": [
      { body: { name: "fz-minted", role_names: ["fz_reader"], expires_at: "2999-01-01T00:00:00Z" } },
      { body: { name: "fz-for-user", user_id: a.userId2 } },
    ],
    "GET /access/api-tokens": [{ query: { page: "1", limit: "10" } }],
    "DELETE /access/api-tokens/{id}": [{ params: { id: a.victimTokenId } }],
    "POST /access/roles": [{ body: { name: "fz_writer", permissions: ["entity:read", "entity:create"] } }],
    "GET /access/roles": [{ query: { page: "1", limit: "10" } }],
    "GET /access/roles/{id}": [role],
    "PUT /access/roles/{id}": [{ ...role, body: { name: "fz_reader2", permissions: ["entity:read", "schema:*"] } }],
    "DELETE /access/roles/{id}": [role],
    "GET /access/me": [{}],
    "GET /access/me/permissions": [{}],
    "POST /access/users": [{ body: { email: "fz@example.com", name: "Fz", role_names: ["fz_reader"] } }],
    "GET /access/users": [{ query: { email: "FZ-two@example.com", page: "1", limit: "10" } }],
    "GET /access/users/{id}": [user],
    "PUT /access/users/{id}": [
      { ...user, body: { name: "Fz Renamed", is_active: false } },
      { ...user, body: { name: null, is_active: true } },
    ],
    "PUT /access/users/{id}/roles": [
      { ...user, body: { role_names: ["fz_reader"] } },
      { ...user, body: { role_names: [] } },
    ],
    "DELETE /access/users/{id}": [user],
    "POST /access/policies": [
      {
        body: {
          name: "fz_policy",
          description: "Fuzzed",
          grants: [
            { resource: "entity", actions: ["read", "update"], resource_name: "Product" },
            { resource: "entity", actions: ["read"], resource_id: p1 },
            { resource: "event", actions: ["*"] },
          ],
        },
      },
    ],
    "GET /access/policies": [{ query: { page: "1", limit: "10" } }],
    "GET /access/policies/{id}": [policy],
    "PUT /access/policies/{id}": [{ ...policy, body: { name: "fz_seed2", description: null, grants: [{ resource: "schema", actions: ["read"] }] } }],
    "DELETE /access/policies/{id}": [policy],
    "POST /access/policies/{id}/assignments": [{ ...policy, body: { user_id: a.userId2 } }],
    "GET /access/policies/{id}/assignments": [{ ...policy, query: { page: "1", limit: "10" } }],
    "DELETE /access/policies/{id}/assignments": [{ ...policy, query: { role_name: "fz_reader" } }],
    "POST /access/grants": [{ body: { policy_id: a.policyId, resource: "entity", actions: ["read"], resource_id: p1 } }],
    "GET /access/grants": [{ query: { policy_id: a.policyId, page: "1", limit: "10" } }],
    "DELETE /access/grants/{id}": [{ params: { id: a.grantId } }],
    "POST /access/secrets": [
      { body: { scope: "tenant", name: "FZ_KEY", value: "fz-secret-value" } },
      { body: { scope: "user", principal_id: a.userId2, name: "FZ_USER_KEY", value: "fz-secret-value" } },
    ],
    "GET /access/secrets": [{ query: { scope: "tenant", page: "1", limit: "10" } }],
    "DELETE /access/secrets/{id}": [{ params: { id: a.secretId } }],
    "POST /access/external-companies": [{ body: { provider: "fzidp", external_id: "company-2", name: "Fz Two", metadata: { k: ["v", 1] } } }],
    "GET /access/external-companies": [{ query: { provider: "fzidp", external_id: "company-1", page: "1", limit: "10" } }],
    "GET /access/external-companies/{id}": [company],
    "PUT /access/external-companies/{id}": [{ ...company, body: { name: "Fz Co v2", metadata: { tier: "silver" }, is_active: false } }],
    "POST /access/external-users": [
      { body: { provider: "fzidp", external_id: "user-2", email: "fz-ext2@example.com", first_name: "Ext", last_name: "Two" } },
      { body: { provider: "fzidp", external_id: "user-3", email: "fz-two@example.com", link_existing_email: true } },
    ],
    "GET /access/external-users": [{ query: { provider: "fzidp", email: "fz-ext@example.com", page: "1", limit: "10" } }],
    "GET /access/external-users/{id}": [externalUser],
    "PUT /access/external-users/{id}": [{ ...externalUser, body: { email: "fz-ext-new@example.com", is_active: true } }],
    "POST /access/shares": [{ body: { resource_type: "entity", resource_id: p1, target_tenant_id: w.b.tenantId, actions: ["read"] } }],
    "GET /access/shares": [{ query: { resource_type: "entity_type", target_tenant_id: w.b.tenantId, page: "1", limit: "10" } }],
    "GET /access/shares/received": [{ query: { resource_type: "entity_type", owner_tenant_id: w.b.tenantId, page: "1", limit: "10" } }],
    "GET /access/shares/{id}": [share],
    "DELETE /access/shares/{id}": [share],
    "POST /schema/schemas": [
      { body: { name: "fz_schema", schema: PRODUCT_SCHEMA } },
      {
        body: {
          name: "fz.other",
          schema: { type: "object", properties: { n: { type: "integer", minimum: 0 } }, patternProperties: { "^x_": { type: "string" } } },
        },
      },
    ],
    "GET /schema/schemas": [{ query: { page: "1", limit: "10" } }],
    "GET /schema/schemas/{idOrName}": [{ params: { idOrName: a.schemaId } }, { params: { idOrName: "fz_schema" } }],
    "POST /schema/validate": [
      { body: { schema_name: "fz_schema", data: { sku: "a", price: 1, tags: ["x"] } } },
      { body: { schema: { type: "object", properties: { s: { type: "string", pattern: "^[a-z]+$", format: "email" } } }, data: { s: "abc" } } },
    ],
    "POST /entity/entity-types": [
      { body: { name: "Fuzzed", status: "active", schema: PRODUCT_SCHEMA, config: PRODUCT_CONFIG } },
      { body: { name: "FuzzedByName", schema_name: "fz_schema", config: { identifier_key: ["sku", "title"], sort_by_updated_at: true } } },
    ],
    "GET /entity/entity-types": [{ query: { name: "Product", status: "active", page: "1", limit: "5" } }],
    "GET /entity/entity-types/{id}": [{ params: { id: a.typeId } }],
    "PATCH /entity/entity-types/{id}": [
      { params: { id: a.typeId }, body: { config: { ...PRODUCT_CONFIG, sort_by_updated_at: true } } },
      { params: { id: a.makerTypeId }, body: { schema: { ...PRODUCT_SCHEMA, properties: { ...PRODUCT_SCHEMA.properties, color: { type: "string" } } } } },
    ],
    "POST /entity/entity-types/{id}/activate": [{ params: { id: a.draftTypeId } }],
    "GET /entity/entities": [
      { query: { type_name: "Product", page: "1", limit: "10", include: "Maker", max_relationships: "5" } },
      { query: { type_name: "Product", include_specs: { json: [{ type_name: "Maker", rule_name: "made_by", limit: 3 }] } } },
    ],
    "POST /entity/entities": [
      {
        body: {
          type_name: "Product",
          name: "Green stool",
          attributes: { sku: "N1", title: "Green stool", price: 12.5, tags: ["a", "b"], meta: { x: [1, { y: "z" }] } },
        },
      },
    ],
    "GET /entity/entities/{id}": [{ ...entity, query: { include: "Maker", include_rule_ids: a.ruleId, max_relationships: "10" } }],
    "PUT /entity/entities/{id}": [
      {
        params: { id: p2 },
        body: {
          name: "Blue desk",
          attributes: { sku: "P2", title: "Blue desk v2", price: 251, tags: ["office"] },
          merge_on_conflict: false,
          merge_cardinality: "raise",
        },
      },
    ],
    "PATCH /entity/entities/{id}/attributes": [{ params: { id: p2 }, body: { attributes: { title: "Blue desk v3", price: null, meta: { k: "v" } } } }],
    "DELETE /entity/entities/{id}": [{ params: { id: a.products[2] } }],
    "POST /entity/entities/bulk-delete": [{ body: { ids: [a.products[2], a.makers[1]] } }],
    "POST /entity/entities/upsert": [
      {
        body: {
          type_name: "Product",
          on_conflict: "merge",
          data: [
            {
              name: "Red chair",
              attributes: { sku: "P1", title: "Red chair", price: 41 },
              relationships: [{ rule_name: "made_by", target_identifier: { sku: "M2" }, target_type_name: "Maker" }],
            },
            { id: p2, name: "Blue desk", attributes: { sku: "P2", title: "Blue desk", price: 250 } },
            { name: "New one", attributes: { sku: "U1", tags: ["t"] }, relationships: [{ rule_id: a.ruleId, target_entity_id: a.makers[0], direction: "to" }] },
          ],
        },
      },
    ],
    "POST /entity/entities/import": [
      {
        csv: {
          config: { entity_type_name: "Product", on_conflict: "replace", column_mapping: { Label: "name", Code: "sku", Cost: "price", Tags: "tags" } },
          rows: [
            ["Label", "Code", "Cost", "Tags"],
            ["Imported", "I1", "3.5", '"[""x""]"'],
            ["Red chair", "P1", "40", "[]"],
          ],
        },
      },
    ],
    "POST /entity/entities/export": [
      {
        body: {
          type_name: "Product",
          filter: productFilter(a),
          sort: [{ path: ["attributes", "price"], direction: "desc" }],
          columns: ["id", "name", "sku", "price"],
        },
      },
    ],
    "POST /entity/relationship-rules": [
      { body: { name: "fz_rule", from_entity_type_name: "Maker", to_entity_type_id: a.typeId, max_from_cardinality: 3, max_to_cardinality: null } },
    ],
    "GET /entity/relationship-rules": [{ query: { entity_type_name: "Product", name: "made_by", page: "1", limit: "10" } }],
    "GET /entity/relationship-rules/{id}": [{ params: { id: a.ruleId } }],
    "POST /entity/relationships": [{ body: { rule_name: "made_by", from_entity_id: p2, to_entity_id: a.makers[1], on_cardinality_violation: "replace" } }],
    "GET /entity/relationships/{id}": [{ params: { id: a.linkId } }],
    "DELETE /entity/relationships/{id}": [{ params: { id: a.linkId } }],
    "POST /entity/query": [
      {
        body: {
          type_name: "Product",
          filter: productFilter(a),
          sort: [{ path: ["attributes", "price"], direction: "asc" }, { path: ["name"] }],
          limit: 10,
          include_specs: [{ type_name: "Maker", rule_name: "made_by", filter: { operator: "eq", path: ["type", "name"], value: "Maker" }, limit: 5 }],
          include_count: true,
          count_strategy: "exact",
        },
      },
      {
        body: {
          type_name: "Product",
          page: 1,
          limit: 5,
          distinct_on: { paths: [["attributes", "title"]], sort: [{ path: ["attributes", "title"] }] },
          filter: { operator: "fuzzy", path: ["attributes", "title"], value: "chiar", threshold: 0.3 },
        },
      },
    ],
    "POST /entity/query/aggregate": [
      {
        body: {
          type_name: "Product",
          filter: productFilter(a),
          group_by: [["attributes", "title"], { path: ["created_at"], bucket: "month", as: "month" }],
          aggregates: [
            { fn: "count", as: "n" },
            { fn: "sum", path: ["attributes", "price"], as: "total" },
            { fn: "count_distinct", path: ["attributes", "tags"], as: "tag_sets" },
          ],
          sort: [{ key: "total", direction: "desc" }],
          limit: 10,
        },
      },
    ],
    "POST /entity/query/distinct": [
      { body: { type_name: "Product", attribute_name: "tags", filter: { operator: "cs", path: ["attributes", "tags"], value: ["home"] }, limit: 10 } },
    ],
    "POST /entity/query-graph": [
      {
        body: {
          type_name: "Product",
          filter: { operator: "segment", path: ["attributes", "title"], value: "chair" },
          limit: 5,
          include: [{ type_name: "Maker", rule_name: "made_by", limit: 3, include: [{ type_name: "Product", limit: 2 }] }],
          node_budget: 100,
        },
      },
    ],
    "GET /entity/graphql/schema": [{}],
    "POST /entity/graphql": [
      {
        body: gql(
          "query($x: String, $n: Float) { Product(where: { title: { eq: $x }, price: { lt: $n } }, limit: 5) { nodes { id name sku made_by(limit: 2) { name } } count } }",
          { x: "Red chair", n: 100 },
        ),
      },
      {
        body: gql("query($f: JSON, $s: [ProductOrder!]) { Product(filter: $f, sort: $s) { nodes { id tags meta } next_cursor } }", {
          f: productFilter(a),
          s: [{ path: ["attributes", "price"], direction: "desc" }],
        }),
      },
    ],
    "GET /event/events": [{ query: { entity_id: p1, type_name: "Product", action: "created", limit: "5" } }],
    "POST /entity/temp-files": [{ bytes: { text: "temp bytes", headers: { "X-Temp-File-Name": "report%20%C3%A9.txt", "Content-Type": "text/plain" } } }],
    "GET /entity/temp-files/{id}": [{ params: { id: a.tempFileId } }],
    "POST /entity/temp-files/{id}/download-url": [{ params: { id: a.tempFileId }, body: { ttl: 60 } }],
    "GET /entity/temp-files/{id}/download": [{ anonymous: true, params: { id: a.tempFileId }, query: signed(a.tempDownloadUrl) }],
    "POST /entity/entities/{id}/artifacts/upload-url": [
      { ...entity, body: { artifact_type: "invoice", filename: "a.txt", content_type: "text/plain; charset=utf-8", size: 5, ttl: 60 } },
    ],
    "PUT /entity/uploads/{versionId}": [
      { anonymous: true, params: { versionId: a.uploadUrl.pathname.split("/").pop()! }, query: signed(a.uploadUrl), bytes: { text: "bytes", headers: {} } },
    ],
    "POST /entity/entities/{id}/artifacts/{artifactId}/confirm": [
      { ...artifact, body: { checksum: "sha256:2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824" } },
    ],
    "GET /entity/entities/{id}/artifacts": [
      { ...entity, query: { artifact_type: "invoice", artifact_type_in: "invoice,photo", include_versions: "true", page: "1", limit: "10" } },
    ],
    "GET /entity/entities/{id}/artifacts/{artifactId}": [{ ...artifact, query: { version: "1" } }],
    "DELETE /entity/entities/{id}/artifacts/{artifactId}": [artifact],
    "GET /entity/entities/{id}/artifacts/{artifactId}/download-url": [{ ...artifact, query: { ttl: "60", version: "1" } }],
    "POST /entity/entities/{id}/artifacts/{artifactId}/download-url": [{ ...artifact, body: { ttl: 60, version: 1 } }],
    "GET /entity/downloads/{versionId}": [{ anonymous: true, params: { versionId: a.versionId }, query: signed(a.downloadUrl) }],
    ...workflowExamples(w),
    ...specExamples(w),
    ...appExamples(w),
  };
}

/** App specs, their versions and manifests. */
function specExamples(w: World): Record<string, Example[]> {
  const spec = { params: { id: w.a.specId } };
  return {
    "GET /definition/specs/schema": [{}],
    "POST /definition/specs/validate": [{ body: { spec_document: specDoc(w.b.tenantId) } }],
    "POST /definition/specs": [{ body: { name: "fz_spec2", description: "Fuzzed", spec_document: specDoc(w.b.tenantId) } }],
    "GET /definition/specs": [{ query: { name: "fz_spec", page: "1", limit: "10" } }],
    "GET /definition/specs/{id}": [spec, { params: { id: w.b.specId } }],
    "PUT /definition/specs/{id}": [{ ...spec, body: { name: "fz_spec", description: "v2", spec_document: specDoc() } }],
    "DELETE /definition/specs/{id}": [spec],
    "GET /definition/specs/{id}/versions": [{ ...spec, query: { page: "1", limit: "10" } }],
    "GET /definition/specs/{id}/versions/{version}": [{ params: { id: w.a.specId, version: "1" } }],
    "GET /access/manifests": [{ query: { spec_id: w.a.specId, page: "1", limit: "10" } }],
  };
}

/** Activation and config, integrations and principals of the tenant's activated spec. */
function appExamples(w: World): Record<string, Example[]> {
  const { apps, wf } = w.a;
  const spec = { params: { specId: apps.specId } };
  const integration = { params: { specId: apps.specId, integrationId: apps.integrationId } };
  const team = { params: { specId: apps.specId, type: "team", principalId: "fz-team" } };
  return {
    "GET /apps/{specId}/config": [spec],
    "PUT /apps/{specId}/config": [
      { ...spec, body: { config: { sku: "B-2", nested: { a: [1, 2] } }, job_bindings: { enrich: wf.jobId } } },
      { ...spec, body: { spec_version: 1, policy_id: null } },
      { ...spec, body: { policy: { name: "fz_app_inline", grants: [{ resource: "entity", actions: ["read"], resource_name: "Product" }] } } },
    ],
    "POST /apps/{specId}/integrations": [
      {
        ...spec,
        body: { external_company_id: w.a.companyId, name: "Fz host", allowed_origins: ["http://localhost:8080"], config: { region: "eu" }, is_enabled: true },
      },
    ],
    "GET /apps/{specId}/integrations": [{ ...spec, query: { page: "1", limit: "10" } }],
    "GET /apps/{specId}/integrations/{integrationId}": [integration],
    "PUT /apps/{specId}/integrations/{integrationId}/token": [{ ...integration, query: { rotate: "true" } }],
    "GET /apps/{specId}/preview": [spec],
    "POST /apps/{specId}/preview": [
      spec,
      { ...spec, body: { identity: { user_external_id: "fz-author" }, config: { app: { title: "Draft" } }, context: { locale: "en" } } },
    ],
    "POST /apps/upload/{integrationId}/{uploadId}": [
      {
        anonymous: true,
        params: { integrationId: apps.integrationId, uploadId: apps.uploadUrl.pathname.split("/").pop()! },
        query: signed(apps.uploadUrl),
        bytes: {
          text: '--fz\r\nContent-Disposition: form-data; name="file"; filename="fz.txt"\r\nContent-Type: text/plain\r\n\r\nfuzz bytes\r\n--fz--\r\n',
          headers: { "Content-Type": "multipart/form-data; boundary=fz" },
        },
      },
    ],
    "POST /apps/run/{integrationId}": [
      {
        params: { integrationId: apps.integrationId },
        authorization: `Bearer ${apps.appToken}`,
        body: { user: "fz-user", company: "company-1", context: { locale: "en" } },
      },
      {
        params: { integrationId: apps.integrationId },
        authorization: `Bearer ${apps.appToken}`,
        body: {
          user: "fz-user",
          company: "company-1",
          state: { page: "home", data: { a: 1 } },
          action: { widgetId: "btn", handler: "click", payload: { value: "v" } },
        },
      },
    ],
    "PUT /apps/{specId}/integrations/{integrationId}": [
      { ...integration, body: { config: { lang: "en", extra: { x: 1 } }, allowed_origins: ["https://other.example:8443"], is_enabled: false } },
    ],
    "GET /apps/{specId}/principals/{type}/{principalId}": [team, { params: { specId: apps.specId, type: "user", principalId: "self" } }],
    "PUT /apps/{specId}/principals/{type}/{principalId}": [
      { ...team, body: { config: { seats: 3, tags: ["a"] } } },
      { params: { specId: apps.specId, type: "user", principalId: "self" }, body: { config: { theme: "dark" } } },
      { params: { specId: apps.specId, type: "company", principalId: "company-1" }, query: { provider: "fzidp" }, body: { config: { tier: "gold" } } },
    ],
  };
}

const HOOKS_YAML = `jobs:
  - id: a
    actions:
      - name: pipe
        config: {}
  - id: ref
    name: fz-job
    dependencies: [a]
triggers:
  - id: manual
    webhook:
      methods: [POST, PUT]
  - id: nightly
    cron: '*/15 6-18 * * 1-5'
config:
  env:
    REGION: us
    TOKEN: null
`;

/** Definitions, jobs, activation, dispatch, runs, schedules and webhook calls. */
function workflowExamples(w: World): Record<string, Example[]> {
  const { wf, typeId } = w.a;
  const hooks = { params: { id: wf.hooksId } };
  const trigger = (triggerId: string) => ({ params: { id: wf.hooksId, triggerId } });
  const hook = (triggerId: string) => ({ anonymous: true, params: { triggerId } });
  const runs = { query: { workflow_id: wf.hooksId, status_in: "pending,cancelled", page: "1", limit: "10" } };
  const withJobs = { ...HOOKS_DOC, triggers: [...HOOKS_DOC.triggers, { id: "later", cron: "0 0 1 1 *" }] };
  return {
    "GET /definition/workflows/schema": [{}],
    "POST /definition/workflows/validate": [{ body: { definition_json: withJobs } }, { body: { name: "fz_yaml", source_yaml: HOOKS_YAML } }],
    "POST /definition/workflows": [
      { body: { name: "fz_new", description: "Fuzzed", definition_json: eventsDoc(typeId) } },
      { body: { name: "fz_new_yaml", source_yaml: HOOKS_YAML } },
    ],
    "GET /definition/workflows": [{ query: { name: "fz_hooks", page: "1", limit: "10" } }],
    "GET /definition/workflows/{id}": [hooks],
    "PUT /definition/workflows/{id}": [
      { ...hooks, body: { name: "fz_hooks", description: "v2", definition_json: withJobs } },
      { params: { id: wf.draftId }, body: { name: "fz_draft2", source_yaml: HOOKS_YAML } },
    ],
    "DELETE /definition/workflows/{id}": [hooks],
    "POST /definition/workflows/{id}/test-runs": [
      { ...hooks, body: { trigger_id: "manual", input: { method: "POST" }, env: { TOKEN: "t", REGION: null } } },
      { params: { id: wf.draftId }, body: { trigger_id: "hourly" } },
    ],
    "POST /definition/jobs": [
      { body: { name: "fz-job", definition_json: { ...JOB_DOC, inputSchema: { type: "object", properties: { n: { type: "integer" } } } } } },
    ],
    "GET /definition/jobs": [{ query: { name: "fz-job", page: "1", limit: "10" } }],
    "GET /definition/jobs/{id}": [{ params: { id: wf.jobId } }],
    "POST /workflows/wr": [
      { body: { workflow_id: wf.hooksId, trigger_id: "manual", input: { order: { id: 7, tags: ["a"] } } } },
      { body: { workflow_id: wf.hooksId, trigger_id: "nightly" } },
    ],
    "POST /workflows/{id}/activate": [
      { ...hooks, body: { env: { REGION: "us", TOKEN: "{{ secrets.tenant.FZ_SEED }}" }, job_bindings: { ref: wf.jobId }, policy_id: wf.runPolicyId } },
      { params: { id: wf.draftId }, body: { env: { EXTRA: 1 }, policy_id: null } },
    ],
    "PUT /workflows/{id}/config": [{ ...hooks, body: { env: { REGION: "ap", EXTRA: { deep: [1] } }, job_bindings: { ref: wf.jobId } } }],
    "PUT /workflows/{id}/triggers/{triggerId}/enable": [trigger("manual"), trigger(wf.triggers.nightly)],
    "PUT /workflows/{id}/triggers/{triggerId}/disable": [trigger("signed"), trigger(wf.triggers.manual)],
    "POST /workflows/{id}/triggers/{triggerId}/secret": [trigger("signed"), trigger(wf.triggers.signed)],
    "GET /workflows/runs/workflows": [runs],
    "GET /workflows/runs": [
      { query: { workflow_id: wf.hooksId, limit: "1", cursor: wf.runsCursor } },
      { query: { entity_id: w.a.products[0], status_in: "pending", page: "1", limit: "5" } },
    ],
    "GET /workflows/runs/workflows/{id}": [{ params: { id: wf.cancelledRunId } }],
    // A finished run: its stream answers the history and closes at once.
    "GET /workflows/runs/workflows/{id}/events": [{ params: { id: wf.cancelledRunId } }],
    "POST /workflows/runs/workflows/{id}/cancel": [{ params: { id: wf.pendingRunId } }],
    "POST /workflows/runs/workflows/{id}/retry": [
      { params: { id: wf.cancelledRunId } },
      { params: { id: wf.cancelledRunId }, body: { config: "current", from_step: "a" } },
    ],
    "POST /workflows/runs/workflows/{id}/input": [{ params: { id: wf.waitingRunId }, body: { step_id: "ask", data: { ok: true } } }],
    "GET /workflows/schedules": [{ query: { workflow_id: wf.hooksId, page: "1", limit: "10" } }],
    "POST /workflows/hooks/{triggerId}": [
      { ...hook(wf.triggers.manual), query: { x: "1" }, body: { order: { id: 7, tags: ["a"], note: "Crème" } } },
      { ...hook(wf.triggers.signed), bytes: { text: wf.signedBody, headers: { "Content-Type": "application/json", "X-Sig": `sha256=${wf.signature}` } } },
      { ...hook(wf.triggers.signed), query: { "hub.challenge": "fz-challenge" } },
    ],
    "GET /workflows/hooks/{triggerId}": [
      { ...hook(wf.triggers.manual), query: { q: "a", r: "b" } },
      { ...hook(wf.triggers.signed), query: { "hub.challenge": "fz-challenge" } },
    ],
    "PUT /workflows/hooks/{triggerId}": [{ ...hook(wf.triggers.manual), body: { replace: true } }],
    "PATCH /workflows/hooks/{triggerId}": [
      { ...hook(wf.triggers.manual), bytes: { text: "plain text body", headers: { "Content-Type": "text/plain", "X-Custom": "v" } } },
    ],
    "DELETE /workflows/hooks/{triggerId}": [hook(wf.triggers.manual)],
    "POST /workflows/callbacks/{token}": [{ anonymous: true, params: { token: wf.callbackToken }, body: { done: true, pages: [1, 2] } }],
  };
}
