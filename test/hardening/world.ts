// The data the hostile requests aim at: a tenant with something of every
// kind (so valid-looking requests reach the deep code paths), and a second
// tenant whose ids the first must never reach.
import { env } from "cloudflare:test";
import { expect } from "vitest";
import { tenantDb } from "../../src/db/client";
import type { RenderIdentity } from "../../src/apps/render/contracts";
import type { SpecDocument } from "../../src/apps/spec";
import { mintUploadSlots } from "../../src/apps/uploads/slots";
import { kickRuns } from "../../src/workflows/runs/run-client";
import { startRun } from "../../src/workflows/runs/start";
import { runFor, type FiringTrigger, type TriggerBlock } from "../../src/workflows/triggers/fire";
import { call, createTenant, systemQuery, withSystemDb, type TenantCreds } from "../support/api";
import { scenario } from "../support/outbound";

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
  /** An app spec at version 1 whose manifest shares it and the Product type with the other tenant. */
  specId: string;
  /** A token the requests may revoke; never the one they authenticate with. */
  victimTokenId: string;
  artifactId: string;
  versionId: string;
  /** A pending version's signed upload link and a confirmed version's download link. */
  uploadUrl: URL;
  downloadUrl: URL;
  tempFileId: string;
  tempDownloadUrl: URL;
  wf: Workflows;
  apps: Apps;
}

/** An app spec of the tenant, activated, with an integration (company fzidp/company-1), a team principal and the caller's user principal. */
export interface Apps {
  specId: string;
  activationId: string;
  integrationId: string;
  /** The integration's app token, for renders. */
  appToken: string;
  /** An upload slot's signed link, minted for the caller's user as a render's createTempFileUploadUrl step mints it. */
  uploadUrl: URL;
}

export const APP_SPEC = {
  dashboards: {
    main: {
      name: "Main",
      surfaces: { dashboard: "home" },
      pages: {
        home: {
          layout: [["btn"]],
          widgets: {
            btn: {
              widgetComponent: "button",
              actionHandlers: {
                click: [
                  { kind: "setPageData", data: { seen: "{{ payload.value }}" } },
                  { kind: "notify", level: "INFO", message: "{{ payload.value }}" },
                  { kind: "navigate", page: "home", params: { p: "{{ payload }}" } },
                ],
              },
            },
          },
        },
      },
    },
  },
  providers: {
    fzidp: {
      auth: { type: "bearer" },
      autoCreateUsers: true,
      identity: { user_external_id: { source: "body", path: "user" }, company_external_id: { source: "body", path: "company" } },
      upload: "canvasFileUpload",
    },
  },
  config: { app: { title: "Fz" }, integration: { lang: "en" } },
  configSchemas: { app: "fz_schema" },
  policies: { viewer: { grants: [{ resource: "app", actions: ["read"], resourceName: "$app_config" }] } },
  defaultPolicy: "viewer",
  jobs: { enrich: null },
};

/** The spec row as the spec API stores it (its current document and version 1). */
async function apps(t: TenantCreds, companyId: string): Promise<Apps> {
  const [spec] = await systemQuery<{ id: string }>(`INSERT INTO app_specs (tenant_id, name, spec_document) VALUES ($1, 'fz_app', $2) RETURNING id`, [
    t.tenantId,
    JSON.stringify(APP_SPEC),
  ]);
  await systemQuery(`INSERT INTO app_spec_versions (tenant_id, spec_id, version, spec_document) VALUES ($1, $2, 1, $3)`, [
    t.tenantId,
    spec.id,
    JSON.stringify(APP_SPEC),
  ]);
  const activation = await ok("PUT", `/apps/${spec.id}/config`, t.auth, { config: { sku: "A-1" } });
  const integration = await ok("POST", `/apps/${spec.id}/integrations`, t.auth, { external_company_id: companyId, allowed_origins: ["https://host.example"] });
  await ok("PUT", `/apps/${spec.id}/principals/team/fz-team`, t.auth, { config: { seats: 2 } });
  await ok("PUT", `/apps/${spec.id}/principals/user/self`, t.auth, { config: { theme: "light" } });
  const token = await call("PUT", `/apps/${spec.id}/integrations/${integration.id}/token`, { auth: t.auth });
  if (token.status !== 201) throw new Error(`minting the app token: ${token.status} ${token.text}`);
  const identity = {
    tenantId: t.tenantId,
    integrationId: integration.id,
    activationId: activation.id,
    specId: spec.id,
    specVersion: 1,
    provider: "fzidp",
    externalCompanyId: companyId,
    companyExternalId: "company-1",
    userId: t.userId,
    identity: { user_external_id: "fz-user" },
    principal: {} as RenderIdentity["principal"],
  };
  const { doc } = await withSystemDb((db) =>
    mintUploadSlots(
      { tenant: tenantDb(db, t.tenantId), secret: env.MASTER_KEY, clock: { now: () => Date.now() } },
      { identity, origin: env.PUBLIC_URL, slots: [{ name: "doc" }], spec: APP_SPEC as unknown as SpecDocument },
    ),
  );
  return { specId: spec.id, activationId: activation.id, integrationId: integration.id, appToken: token.json.raw_token, uploadUrl: new URL(doc.uploadUrl) };
}

/** A tenant's workflows, their triggers, a published job and three runs. */
export interface Workflows {
  /** Activated: triggers `manual`, `signed` and `nightly`, an inline step `a` and a reference step `ref`. */
  hooksId: string;
  /** Activated: one event trigger `on_create` on Product creations. */
  eventsId: string;
  /** Saved, never activated. */
  draftId: string;
  /** Activated: a manual trigger and one job waiting in the awaitInput `ask`. */
  waitsId: string;
  jobId: string;
  /** The policy the hooks workflow's activation binds (so deleting it is refused). */
  runPolicyId: string;
  /** Trigger uuids by the definition's trigger id. */
  triggers: { manual: string; signed: string; nightly: string; on_create: string };
  /** The signed trigger's minted secret, a body and its hmac-sha256. */
  secret: string;
  signedBody: string;
  signature: string;
  /** Never kicked, so it stays pending (no object walks it). */
  pendingRunId: string;
  /** Cancelled before its object walked it, with a job run, an action run and a log line under it. */
  cancelledRunId: string;
  /** Running: its job waits in the awaitInput `ask` for `{ ok: boolean }`. */
  waitingRunId: string;
  /** The token of the callback URL an httpCallback action of a running run waits on. */
  callbackToken: string;
  /** The next_cursor of GET /workflows/runs?workflow_id=<hooksId>&limit=1. */
  runsCursor: string;
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

export const JOB_DOC = { actions: [{ name: "pipe", config: { value: "{{ input }}" } }] };

/** The hooks workflow: every kind of trigger but events, and a step bound to a published job. */
/** An app spec with a config schema, shared (itself and the Product type) with the other tenant when one is named. */
export const specDoc = (target?: string) => ({
  dashboards: {
    main: {
      name: "Main",
      surfaces: { dashboard: "home" },
      pages: { home: { widgets: { hi: { widgetComponent: "text", config: { text: "hi" } } }, layout: [["hi"]] } },
    },
  },
  configSchemas: { app: "fz_schema" },
  ...(target ? { shares: [{ tenantId: target }, { tenantId: target, resourceType: "entity_type", resourceName: "Product" }] } : {}),
});

export const HOOKS_DOC = {
  jobs: [
    { id: "a", actions: [{ name: "pipe", config: {} }] },
    { id: "ref", name: "fz-job", dependencies: ["a"] },
  ],
  triggers: [
    { id: "manual", webhook: { methods: ["GET", "POST", "PUT", "PATCH", "DELETE"] }, contextData: { method: "{{ context.input.method }}" } },
    {
      id: "signed",
      webhook: {
        methods: ["POST"],
        verification: { location: "header", key: "X-Sig", method: "hmac-sha256" },
        challenge: { enabled: true, queryParam: "hub.challenge", responseType: "text/plain" },
      },
      idempotencyKey: "{{ context.input.body.delivery }}",
    },
    { id: "nightly", cron: "30 2 * * *" },
  ],
  config: { env: { REGION: "eu", TOKEN: null } },
};

export const eventsDoc = (typeId: string) => ({
  jobs: [{ id: "a", actions: [{ name: "pipe", config: {} }] }],
  triggers: [
    {
      id: "on_create",
      source: { entityTypeId: typeId, eventAction: "created", attributeFilters: [{ operator: "gte", path: ["price"], value: 0 }] },
      condition: "context.input.entity.attributes.price < 1000",
      contextData: { sku: "{{ context.input.entity.attributes.sku }}" },
    },
  ],
});

/** The waits workflow: one job that stops in an awaitInput until data is posted for it. */
const WAITS_DOC = {
  jobs: [
    {
      id: "a",
      actions: [{ stepId: "ask", name: "awaitInput", config: { schema: { type: "object", required: ["ok"], properties: { ok: { type: "boolean" } } } } }],
    },
  ],
  triggers: [{ id: "manual", webhook: { methods: ["POST"] } }],
};

/** The callbacks workflow: one httpCallback to `url`, waiting for its callback. */
const callbacksDoc = (url: string) => ({
  jobs: [{ id: "a", actions: [{ stepId: "call", name: "httpCallback", config: { url, method: "POST", body: { job: 1 } } }] }],
  triggers: [{ id: "manual", webhook: { methods: ["POST"] } }],
});

/**
 * A run inserted as a dispatch of the hooks trigger `key` inserts it, but
 * without the kick that follows: no object walks it, so it stays as it is
 * until a request moves it.
 */
async function unkickedRun(t: TenantCreds, workflowId: string, version: number, triggerId: string, key: "manual" | "nightly", input: unknown): Promise<string> {
  const definition = HOOKS_DOC.triggers.find((tr) => tr.id === key) as TriggerBlock;
  const trigger: FiringTrigger = { id: triggerId, key, type: definition.cron ? "cron" : "webhook", workflowId, workflowVersion: version, definition };
  const run = (await runFor(trigger, { input }))!;
  return (await withSystemDb((db) => tenantDb(db, t.tenantId).tx((sql) => startRun(sql, t.tenantId, run)))).id;
}

/**
 * Brings the tenant's runs to rest before the fuzz saves the world: the
 * event runs its product writes started are delivered (the outbox drained),
 * then every open run but the one left pending is kicked; a kick waits
 * behind any walk of its run already under way, so each is then finished or
 * waiting and no object writes behind the fuzz's checks.
 */
async function settleRuns(t: TenantCreds, pendingRunId: string): Promise<void> {
  for (let i = 0; ; i++) {
    const [{ n }] = await systemQuery<{ n: number }>("SELECT count(*)::int AS n FROM event_outbox WHERE tenant_id = $1", [t.tenantId]);
    if (n === 0) break;
    if (i === 200) throw new Error(`${n} events of tenant ${t.tenantId} were not delivered`);
    await new Promise((r) => setTimeout(r, 20));
  }
  const open = await systemQuery<{ id: string }>("SELECT id FROM workflow_runs WHERE tenant_id = $1 AND status IN ('pending', 'running') AND id <> $2", [
    t.tenantId,
    pendingRunId,
  ]);
  await kickRuns(
    env,
    open.map((r) => ({ tenantId: t.tenantId, runId: r.id })),
  );
}

async function hexHmacSha256(secret: string, text: string): Promise<string> {
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash: "SHA-256" }, false, ["sign"]);
  return [...new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(text)))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

async function workflows(t: TenantCreds, typeId: string): Promise<Workflows> {
  const job = await ok("POST", "/definition/jobs", t.auth, { name: "fz-job", definition_json: JOB_DOC });
  const policy = await ok("POST", "/access/policies", t.auth, { name: "fz_runs", grants: [{ resource: "entity", actions: ["read"] }] });
  const hooks = await ok("POST", "/definition/workflows", t.auth, { name: "fz_hooks", description: "Seeded", definition_json: HOOKS_DOC });
  const activation = await ok("POST", `/workflows/${hooks.id}/activate`, t.auth, { env: { TOKEN: "{{ secrets.tenant.FZ_SEED }}" }, policy_id: policy.id });
  const events = await ok("POST", "/definition/workflows", t.auth, { name: "fz_events", definition_json: eventsDoc(typeId) });
  const eventActivation = await ok("POST", `/workflows/${events.id}/activate`, t.auth, {});
  const draft = await ok("POST", "/definition/workflows", t.auth, {
    name: "fz_draft",
    source_yaml:
      "jobs:\n  - id: a\n    actions:\n      - name: pipe\n        config: {}\ntriggers:\n  - id: hourly\n    cron: '0 * * * *'\n  - id: manual\n    webhook:\n      methods: [POST]\n",
  });
  const uuid = (list: { id: string; trigger_id: string }[], key: string) => list.find((x) => x.id === key)!.trigger_id;
  const secret = (await ok("POST", `/workflows/${hooks.id}/triggers/signed/secret`, t.auth)).secret;
  const signedBody = JSON.stringify({ delivery: "d-1", order: { id: 7 } });
  const pendingRunId = await unkickedRun(t, hooks.id, activation.version, uuid(activation.triggers, "manual"), "manual", { order: 1 });
  const cancelledRunId = await unkickedRun(t, hooks.id, activation.version, uuid(activation.triggers, "nightly"), "nightly", {});
  await ok("POST", `/workflows/runs/workflows/${cancelledRunId}/cancel`, t.auth);
  // Job rows of a run its object never walked: seeded so run reads and restores cover them.
  const [jobRun] = await systemQuery<{ id: string }>(
    `INSERT INTO workflow_job_runs (tenant_id, run_id, job_id, status, error, output, started_at, finished_at)
     VALUES ($1, $2, 'a', 'cancelled', '{"code":"CANCELLED"}', '{"n":1}', now(), now()) RETURNING id`,
    [t.tenantId, cancelledRunId],
  );
  await systemQuery(
    `INSERT INTO workflow_action_runs (tenant_id, job_run_id, position, step_id, name, status, attempts) VALUES ($1, $2, 0, 's1', 'pipe', 'cancelled', 1)`,
    [t.tenantId, jobRun.id],
  );
  await systemQuery(`INSERT INTO workflow_action_log (tenant_id, job_run_id, step_id, name, status) VALUES ($1, $2, 's1', 'pipe', 'cancelled')`, [
    t.tenantId,
    jobRun.id,
  ]);
  const waits = await ok("POST", "/definition/workflows", t.auth, { name: "fz_waits", definition_json: WAITS_DOC });
  await ok("POST", `/workflows/${waits.id}/activate`, t.auth, {});
  const waiting = await ok("POST", "/workflows/wr", t.auth, { workflow_id: waits.id, trigger_id: "manual", input: { order: 2 } });
  await settleRuns(t, pendingRunId);
  const waitingRun = await call("GET", `/workflows/runs/workflows/${waiting.workflow_run.id}`, { auth: t.auth });
  expect([waitingRun.json?.data?.status, waitingRun.json?.data?.job_runs?.[0]?.status], waitingRun.text).toEqual(["running", "waiting"]);
  const target = await scenario({ "/start": [{ status: 202 }] });
  const callbacks = await ok("POST", "/definition/workflows", t.auth, { name: "fz_callbacks", definition_json: callbacksDoc(target.url("/start")) });
  await ok("POST", `/workflows/${callbacks.id}/activate`, t.auth, {});
  const calling = await ok("POST", "/workflows/wr", t.auth, { workflow_id: callbacks.id, trigger_id: "manual", input: {} });
  await kickRuns(env, [{ tenantId: t.tenantId, runId: calling.workflow_run.id }]);
  const [sent] = await target.requests();
  expect(sent?.headers["x-callback-url"], JSON.stringify(sent)).toMatch(/\/workflows\/callbacks\/[^/]+$/);
  const page = await call("GET", `/workflows/runs?workflow_id=${hooks.id}&limit=1`, { auth: t.auth });
  expect(page.json?.next_cursor, page.text).toEqual(expect.any(String));
  return {
    hooksId: hooks.id,
    eventsId: events.id,
    draftId: draft.id,
    waitsId: waits.id,
    jobId: job.id,
    runPolicyId: policy.id,
    triggers: {
      manual: uuid(activation.triggers, "manual"),
      signed: uuid(activation.triggers, "signed"),
      nightly: uuid(activation.triggers, "nightly"),
      on_create: uuid(eventActivation.triggers, "on_create"),
    },
    secret,
    signedBody,
    signature: await hexHmacSha256(secret, signedBody),
    pendingRunId,
    cancelledRunId,
    waitingRunId: waiting.workflow_run.id,
    callbackToken: sent.headers["x-callback-url"].split("/").at(-1)!,
    runsCursor: page.json.next_cursor,
  };
}

async function side(): Promise<Omit<Side, "shareId" | "specId">> {
  const t = await createTenant();
  const schema = await ok("POST", "/schema/schemas", t.auth, { name: "fz_schema", schema: PRODUCT_SCHEMA });
  const type = await ok("POST", "/entity/entity-types", t.auth, { name: "Product", status: "active", schema: PRODUCT_SCHEMA, config: PRODUCT_CONFIG });
  const maker = await ok("POST", "/entity/entity-types", t.auth, {
    name: "Maker",
    status: "active",
    schema_name: "fz_schema",
    config: { identifier_key: ["sku"] },
  });
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
  const rule = await ok("POST", "/entity/relationship-rules", t.auth, {
    name: "made_by",
    from_entity_type_name: "Product",
    to_entity_type_name: "Maker",
    max_to_cardinality: 2,
  });
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
  const company = await ok("POST", "/access/external-companies", t.auth, {
    provider: "fzidp",
    external_id: "company-1",
    name: "Fz Co",
    metadata: { tier: "gold" },
  });
  const externalUser = await ok("POST", "/access/external-users", t.auth, {
    provider: "fzidp",
    external_id: "user-1",
    email: "fz-ext@example.com",
    first_name: "Ext",
    last_name: "User",
  });

  const bytes = new TextEncoder().encode("hello");
  const opened = await ok("POST", `/entity/entities/${upserted.ids[0]}/artifacts/upload-url`, t.auth, {
    artifact_type: "invoice",
    filename: "a.txt",
    content_type: "text/plain",
  });
  const upload = new URL(opened.upload_url);
  expect((await call("PUT", upload.pathname + upload.search, { rawBody: bytes })).status).toBe(200);
  await ok("POST", `/entity/entities/${upserted.ids[0]}/artifacts/${opened.artifact.id}/confirm`, t.auth, {});
  const link2 = await ok("POST", `/entity/entities/${upserted.ids[0]}/artifacts/${opened.artifact.id}/download-url`, t.auth, {});
  const versionId = new URL(link2.url).pathname.split("/").pop()!;
  const pending = await ok("POST", `/entity/entities/${upserted.ids[1]}/artifacts/upload-url`, t.auth, {
    artifact_type: "photo",
    filename: "b.bin",
    content_type: "application/octet-stream",
    size: 5,
  });

  const temp = await ok("POST", "/entity/temp-files", t.auth, undefined, bytes, { "X-Temp-File-Name": "t.txt", "Content-Type": "text/plain" });
  const tempLink = await ok("POST", `/entity/temp-files/${temp.id}/download-url`, t.auth, {});
  const wf = await workflows(t, type.id);

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
    wf,
    apps: await apps(t, company.id),
  };
}

/** Each tenant shares its Product type with the other, so both have a share made and one received. */
export async function buildWorld(): Promise<World> {
  const [a, b] = [await side(), await side()];
  const share = (from: typeof a, to: typeof b) =>
    ok("POST", "/access/shares", from.auth, { resource_type: "entity_type", resource_id: from.typeId, target_tenant_id: to.tenantId });
  const spec = (from: typeof a, to: typeof b) =>
    ok("POST", "/definition/specs", from.auth, { name: "fz_spec", description: "Seeded", spec_document: specDoc(to.tenantId) });
  return {
    a: { ...a, shareId: (await share(a, b)).id, specId: (await spec(a, b)).id },
    b: { ...b, shareId: (await share(b, a)).id, specId: (await spec(b, a)).id },
  };
}

/** Ids a path parameter may take: this tenant's of every kind (never its own login token), the other tenant's. */
export function idsOf(s: Side): string[] {
  const wf = s.wf;
  return [
    ...[
      s.typeId,
      s.makerTypeId,
      s.draftTypeId,
      s.schemaId,
      ...s.products,
      ...s.makers,
      s.ruleId,
      s.linkId,
      s.roleId,
      s.victimTokenId,
      s.artifactId,
      s.versionId,
      s.tempFileId,
    ],
    ...[s.userId2, s.policyId, s.grantId, s.secretId, s.companyId, s.externalUserId, s.shareId, s.specId],
    ...[
      wf.hooksId,
      wf.eventsId,
      wf.draftId,
      wf.jobId,
      wf.runPolicyId,
      ...Object.values(wf.triggers),
      wf.pendingRunId,
      wf.cancelledRunId,
      wf.waitsId,
      wf.waitingRunId,
    ],
    ...[s.apps.specId, s.apps.activationId, s.apps.integrationId],
  ];
}
