// The data the hostile requests aim at: a tenant with something of every
// kind (so valid-looking requests reach the deep code paths), and a second
// tenant whose ids the first must never reach.
import { expect } from "vitest";
import { call, createTenant, type TenantCreds } from "../support/api";

export const PRODUCT_SCHEMA = {
  type: "object",
  required: ["sku"],
  properties: {
    sku: { type: "string", maxLength: 400_000 },
    title: { type: "string" },
    price: { type: "number" },
    tags: { type: "array", items: { type: "string" } },
    meta: { type: "object" },
  },
};

export const PRODUCT_CONFIG = {
  identifier_key: ["sku"],
  indexed_attributes: [
    { path: ["title"], type: "text", searchable: true },
    { path: ["price"], type: "numeric", sortable: true },
    { path: ["tags"], type: "text_array" },
  ],
  name_search: true,
};

/** Every id and link of one tenant the operations can name. */
export interface Side extends TenantCreds {
  typeId: string;
  makerTypeId: string;
  draftTypeId: string;
  schemaId: string;
  products: string[];
  makers: string[];
  ruleId: string;
  linkId: string;
  roleId: string;
  /** A user besides the one the requests authenticate as (which may never be deactivated or deleted). */
  userId2: string;
  /** A policy with two grants, assigned to the role fz_reader. */
  policyId: string;
  grantId: string;
  secretId: string;
  companyId: string;
  externalUserId: string;
  /** The share of this tenant's Product type with the other tenant. */
  shareId: string;
  /** A token the requests may revoke; never the one they authenticate with. */
  victimTokenId: string;
  artifactId: string;
  versionId: string;
  /** A pending version's signed upload link and a confirmed version's download link. */
  uploadUrl: URL;
  downloadUrl: URL;
  tempFileId: string;
  tempDownloadUrl: URL;
}

export interface World {
  a: Side;
  b: Side;
}

async function ok(method: string, path: string, auth: string, body?: unknown, rawBody?: BodyInit, headers?: Record<string, string>) {
  const res = await call(method, path, { auth, body, rawBody, headers });
  expect(res.status, `${method} ${path}: ${res.text}`).toBeLessThan(300);
  return res.json?.data;
}

async function side(): Promise<Omit<Side, "shareId">> {
  const t = await createTenant();
  const schema = await ok("POST", "/schema/schemas", t.auth, { name: "fz_schema", schema: PRODUCT_SCHEMA });
  const type = await ok("POST", "/entity/entity-types", t.auth, { name: "Product", status: "active", schema: PRODUCT_SCHEMA, config: PRODUCT_CONFIG });
  const maker = await ok("POST", "/entity/entity-types", t.auth, { name: "Maker", status: "active", schema_name: "fz_schema", config: { identifier_key: ["sku"] } });
  const draft = await ok("POST", "/entity/entity-types", t.auth, { name: "Draft", schema: { type: "object" }, config: { identifier_key: ["sku"] } });
  const upserted = await ok("POST", "/entity/entities/upsert", t.auth, {
    type_name: "Product",
    data: [
      { name: "Red chair", attributes: { sku: "P1", title: "Red chair", price: 40, tags: ["home"], meta: { w: 1 } } },
      { name: "Blue desk", attributes: { sku: "P2", title: "Blue desk", price: 250, tags: [] } },
      { name: "Crème lamp", attributes: { sku: "P3", title: "Crème lamp" } },
    ],
  });
  const makers = await ok("POST", "/entity/entities/upsert", t.auth, {
    type_name: "Maker",
    data: [
      { name: "Acme", attributes: { sku: "M1" } },
      { name: "Bolt", attributes: { sku: "M2" } },
    ],
  });
  const rule = await ok("POST", "/entity/relationship-rules", t.auth, { name: "made_by", from_entity_type_name: "Product", to_entity_type_name: "Maker", max_to_cardinality: 2 });
  const link = await ok("POST", "/entity/relationships", t.auth, { rule_name: "made_by", from_entity_id: upserted.ids[0], to_entity_id: makers.ids[0] });
  const role = await ok("POST", "/access/roles", t.auth, { name: "fz_reader", permissions: ["entity:read", "schema:read"] });
  const victim = await ok("POST", "/access/api-tokens", t.auth, { name: "fz_victim", role_names: ["fz_reader"] });
  const user2 = await ok("POST", "/access/users", t.auth, { email: "fz-two@example.com", name: "Fz Two", role_names: ["fz_reader"] });
  const policy = await ok("POST", "/access/policies", t.auth, {
    name: "fz_seed",
    description: "Seeded",
    grants: [
      { resource: "entity", actions: ["read"], resource_name: "Product" },
      { resource: "schema", actions: ["read"] },
    ],
  });
  await ok("POST", `/access/policies/${policy.id}/assignments`, t.auth, { role_name: "fz_reader" });
  const secret = await ok("POST", "/access/secrets", t.auth, { scope: "tenant", name: "FZ_SEED", value: "seeded-secret" });
  const company = await ok("POST", "/access/external-companies", t.auth, { provider: "fzidp", external_id: "company-1", name: "Fz Co", metadata: { tier: "gold" } });
  const externalUser = await ok("POST", "/access/external-users", t.auth, { provider: "fzidp", external_id: "user-1", email: "fz-ext@example.com", first_name: "Ext", last_name: "User" });

  const bytes = new TextEncoder().encode("hello");
  const opened = await ok("POST", `/entity/entities/${upserted.ids[0]}/artifacts/upload-url`, t.auth, { artifact_type: "invoice", filename: "a.txt", content_type: "text/plain" });
  const upload = new URL(opened.upload_url);
  expect((await call("PUT", upload.pathname + upload.search, { rawBody: bytes })).status).toBe(200);
  await ok("POST", `/entity/entities/${upserted.ids[0]}/artifacts/${opened.artifact.id}/confirm`, t.auth, {});
  const link2 = await ok("POST", `/entity/entities/${upserted.ids[0]}/artifacts/${opened.artifact.id}/download-url`, t.auth, {});
  const versionId = new URL(link2.url).pathname.split("/").pop()!;
  const pending = await ok("POST", `/entity/entities/${upserted.ids[1]}/artifacts/upload-url`, t.auth, { artifact_type: "photo", filename: "b.bin", content_type: "application/octet-stream", size: 5 });

  const temp = await ok("POST", "/entity/temp-files", t.auth, undefined, bytes, { "X-Temp-File-Name": "t.txt", "Content-Type": "text/plain" });
  const tempLink = await ok("POST", `/entity/temp-files/${temp.id}/download-url`, t.auth, {});

  return {
    ...t,
    typeId: type.id,
    makerTypeId: maker.id,
    draftTypeId: draft.id,
    schemaId: schema.id,
    products: upserted.ids,
    makers: makers.ids,
    ruleId: rule.id,
    linkId: link.id,
    roleId: role.id,
    userId2: user2.id,
    policyId: policy.id,
    grantId: policy.grants[0].id,
    secretId: secret.id,
    companyId: company.id,
    externalUserId: externalUser.id,
    victimTokenId: victim.id,
    artifactId: opened.artifact.id,
    versionId,
    uploadUrl: new URL(pending.upload_url),
    downloadUrl: new URL(link2.url),
    tempFileId: temp.id,
    tempDownloadUrl: new URL(tempLink.url),
  };
}

/** Each tenant shares its Product type with the other, so both have a share made and one received. */
export async function buildWorld(): Promise<World> {
  const [a, b] = [await side(), await side()];
  const share = (from: typeof a, to: typeof b) => ok("POST", "/access/shares", from.auth, { resource_type: "entity_type", resource_id: from.typeId, target_tenant_id: to.tenantId });
  return { a: { ...a, shareId: (await share(a, b)).id }, b: { ...b, shareId: (await share(b, a)).id } };
}

/** Ids a path parameter may take: this tenant's of every kind (never its own login token), the other tenant's. */
export function idsOf(s: Side): string[] {
  return [s.typeId, s.makerTypeId, s.draftTypeId, s.schemaId, ...s.products, ...s.makers, s.ruleId, s.linkId, s.roleId, s.victimTokenId, s.artifactId, s.versionId, s.tempFileId, s.userId2, s.policyId, s.grantId, s.secretId, s.companyId, s.externalUserId, s.shareId];
}
