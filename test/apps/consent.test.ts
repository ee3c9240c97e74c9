// Consent for shared specs through the gateway: an owner shares a spec with a
// consumer tenant, which activates it and renders it through its own
// integration; new versions that widen what the consumer runs wait for its
// operator, the rest reach it at once.
import { describe, expect, it } from "vitest";
import { call, createTenant, systemQuery, type TenantCreds } from "../support/api";
import { unchangedBy } from "../access/admin";
import { roleToken } from "../access/fixture";
import { addVersion, appFootprint, insertSpec, putConfig, registerCompany, shareSpec, type SpecFixture } from "./fixture";

const refused = unchangedBy(appFootprint);

const provider = {
  auth: { type: "bearer" },
  autoCreateUsers: true,
  identity: { user_external_id: { source: "body", path: "user" }, company_external_id: { source: "body", path: "company" } },
};

const read = { resource: "entity", actions: ["read"], resourceName: "Order" };
const remove = { resource: "entity", actions: ["delete"], resourceName: "Order" };

/** The one widget's `go` handler runs job `j` and shows its output. */
const go = [
  { kind: "job", job: "j", stepId: "j" },
  { kind: "debug", value: "{{ outputs.j }}" },
];

/** A spec whose one widget says `label`, with a viewer policy of `grants` bound by default. */
function version(label: string, grants: object[] = [read], extra: Record<string, unknown> = {}) {
  return {
    dashboards: {
      main: {
        surfaces: { dashboard: "home" },
        pages: { home: { layout: [["title"]], ...(extra.page as object) } },
        widgets: { title: { widgetComponent: "heading", config: { text: label }, ...(extra.jobs !== undefined && { actionHandlers: { go } }) } },
      },
    },
    providers: { host: provider, ...(extra.providers as object) },
    ...(extra.jobs !== undefined && { jobs: extra.jobs }),
    policies: { viewer: { grants } },
    defaultPolicy: "viewer",
  };
}

interface Shared {
  owner: TenantCreds;
  consumer: TenantCreds;
  spec: SpecFixture;
  /** The consumer's host render with this body. */
  render(body?: object): Promise<any>;
  /** The consumer's host render: the text of the one widget it shows. */
  rendered(): Promise<string>;
  config(t?: TenantCreds): Promise<any>;
  /** The grants of the consumer's provisioned viewer policy. */
  grants(): Promise<unknown[]>;
}

/** Version 1 published by the owner, shared, activated in both tenants and rendered in the consumer's through an integration. */
async function shared(first = version("One")): Promise<Shared> {
  const [owner, consumer] = [await createTenant(), await createTenant()];
  const spec = await insertSpec(owner, [first]);
  await shareSpec(owner, spec, consumer);
  expect((await putConfig(owner, spec.id, {})).status).toBe(200);
  const activated = await putConfig(consumer, spec.id, {});
  expect(activated.status, activated.text).toBe(200);
  const company = await registerCompany(consumer, "host", "acme");
  const integration = await call("POST", `/apps/${spec.id}/integrations`, { auth: consumer.auth, body: { external_company_id: company.id } });
  expect(integration.status, integration.text).toBe(201);
  const integrationId = integration.json.data.id as string;
  const minted = await call("PUT", `/apps/${spec.id}/integrations/${integrationId}/token`, { auth: consumer.auth });
  expect(minted.status, minted.text).toBe(201);
  const token = minted.json.raw_token as string;
  const render = async (body = {}) => {
    const res = await call("POST", `/apps/run/${integrationId}`, { auth: `Bearer ${token}`, body: { user: "u-1", company: "acme", ...body } });
    expect(res.status, res.text).toBe(200);
    return res.json.data;
  };
  return {
    owner,
    consumer,
    spec,
    render,
    async rendered() {
      return (await render()).surfaces[0].blocks[0].children[0].props.text;
    },
    async config(t = consumer) {
      const res = await call("GET", `/apps/${spec.id}/config`, { auth: t.auth });
      expect(res.status, res.text).toBe(200);
      return res.json.data;
    },
    async grants() {
      return systemQuery(
        `SELECT g.resource, g.actions, g.resource_name FROM grants g JOIN policies p ON p.id = g.policy_id WHERE p.tenant_id = $1 AND p.app_policy_key = 'viewer' ORDER BY g.resource, g.actions`,
        [consumer.tenantId],
      );
    },
  };
}

describe("a widening version of a shared spec", () => {
  it("is held from the consumer: it renders the accepted version, its config answer names the change, and no write provisions it", async () => {
    const s = await shared();
    await addVersion(s.owner, s.spec, version("Two", [read, remove]));

    expect(await s.rendered()).toBe("One");
    const held = await s.config();
    expect(held).toMatchObject({
      spec_version: null,
      effective_spec_version: 1,
      pending_version: 2,
      pending_changes: [{ code: "policy_widened", path: "policies.viewer.grants[1]" }],
    });
    // A config write that does not name spec_version reconciles with the accepted version.
    const written = await putConfig(s.consumer, s.spec.id, { config: { note: "x" } });
    expect(written.json.data).toMatchObject({ effective_spec_version: 1, pending_version: 2 });
    expect(await s.grants()).toEqual([{ resource: "entity", actions: ["read"], resource_name: "Order" }]);
    // The preview of the activation shows the accepted version too.
    const preview = await call("POST", `/apps/${s.spec.id}/preview`, { auth: s.consumer.auth, body: {} });
    expect(preview.json.data.surfaces[0].blocks[0].children[0].props.text).toBe("One");

    // The owner's own activation follows the latest.
    expect(await s.config(s.owner)).toMatchObject({ effective_spec_version: 2, pending_version: null, pending_changes: [] });
  });

  it("is accepted by a write naming it, which provisions its policies and renders it", async () => {
    const s = await shared();
    await addVersion(s.owner, s.spec, version("Two", [read, remove]));
    const accepted = await putConfig(s.consumer, s.spec.id, { spec_version: 2 });
    expect(accepted.status, accepted.text).toBe(200);
    expect(accepted.json.data).toMatchObject({ spec_version: 2, effective_spec_version: 2, pending_version: null, pending_changes: [] });
    expect(await s.grants()).toEqual([
      { resource: "entity", actions: ["delete"], resource_name: "Order" },
      { resource: "entity", actions: ["read"], resource_name: "Order" },
    ]);
    expect(await s.rendered()).toBe("Two");
  });

  it("is accepted by spec_version null once it is the latest, and the activation follows the latest again", async () => {
    const s = await shared();
    await addVersion(s.owner, s.spec, version("Two", [read, remove]));
    expect((await putConfig(s.consumer, s.spec.id, { spec_version: null })).json.data).toMatchObject({
      spec_version: null,
      effective_spec_version: 2,
      pending_version: null,
    });
    expect(await s.rendered()).toBe("Two");
    await addVersion(s.owner, s.spec, version("Three", [read, remove]));
    expect(await s.rendered()).toBe("Three");
  });

  it("refuses the acceptance with 403 to a caller without the permissions it grants, writing nothing", async () => {
    const s = await shared();
    await addVersion(s.owner, s.spec, version("Two", [read, remove]));
    const operator = await roleToken(s.consumer.auth, ["app:*", "entity:read"]);
    const err = await refused(s.consumer, () => putConfig(operator, s.spec.id, { spec_version: 2 }), 403, "FORBIDDEN");
    expect(err.details).toMatchObject({ permission: "entity:delete:Order", missing_permissions: ["entity:delete:Order"] });
    expect(await s.config()).toMatchObject({ effective_spec_version: 1, pending_version: 2 });
    expect(await s.rendered()).toBe("One");
  });

  it("holds a new $http URL and a new provider, naming each", async () => {
    const s = await shared();
    const source = { page: { dataSources: { orders: { $http: { url: "https://api.example/orders" } } } } };
    await addVersion(s.owner, s.spec, version("Two", [read], source));
    expect(await s.config()).toMatchObject({
      effective_spec_version: 1,
      pending_version: 2,
      pending_changes: [{ code: "outbound_changed", path: "dashboards.main.pages.home.dataSources.orders.$http.url" }],
    });
    await addVersion(s.owner, s.spec, version("Three", [read], { providers: { other: provider } }));
    // Version 3 no longer calls the URL: what it still widens is its provider.
    expect(await s.config()).toMatchObject({
      effective_spec_version: 1,
      pending_version: 3,
      pending_changes: [{ code: "provider_added", path: "providers.other" }],
    });
    expect(await s.rendered()).toBe("One");
  });

  it("holds a changed job: the consumer's commands run the accepted body", async () => {
    const job = (value: string) => ({ j: { actions: [{ stepId: "p", name: "pipe", config: { value } }], output: "{{ outputs.p }}" } });
    const s = await shared(version("One", [read], { jobs: job("accepted") }));
    await addVersion(s.owner, s.spec, version("Two", [read], { jobs: job("changed") }));
    expect(await s.config()).toMatchObject({ effective_spec_version: 1, pending_version: 2, pending_changes: [{ code: "job_changed", path: "jobs.j" }] });
    const ran = await s.render({ action: { widgetId: "title", handler: "go" } });
    expect(JSON.stringify(ran.debug)).toContain("accepted");
    expect(JSON.stringify(ran.debug)).not.toContain("changed");
  });
});

describe("a version of a shared spec that widens nothing", () => {
  it("reaches the consumer at once, narrowing included", async () => {
    const s = await shared(version("One", [read, remove]));
    await addVersion(s.owner, s.spec, version("Relabelled", [read, remove]));
    expect(await s.rendered()).toBe("Relabelled");
    expect(await s.config()).toMatchObject({ effective_spec_version: 2, pending_version: null, pending_changes: [] });
    await addVersion(s.owner, s.spec, version("Narrower", [read]));
    expect(await s.rendered()).toBe("Narrower");
    // The next write reconciles the policy with it.
    expect((await putConfig(s.consumer, s.spec.id, {})).json.data.effective_spec_version).toBe(3);
    expect(await s.grants()).toEqual([{ resource: "entity", actions: ["read"], resource_name: "Order" }]);
  });

  it("after a held one, reaches the consumer up to the newest that widens nothing", async () => {
    const s = await shared();
    await addVersion(s.owner, s.spec, version("Two"));
    await addVersion(s.owner, s.spec, version("Three", [read, remove]));
    expect(await s.rendered()).toBe("Two");
    expect(await s.config()).toMatchObject({ effective_spec_version: 2, pending_version: 3 });
    // Undoing the widening releases the hold.
    await addVersion(s.owner, s.spec, version("Four"));
    expect(await s.rendered()).toBe("Four");
    expect(await s.config()).toMatchObject({ effective_spec_version: 4, pending_version: null });
  });
});

describe("a pinned consumer activation", () => {
  it("stays on its pin with nothing pending", async () => {
    const s = await shared();
    expect((await putConfig(s.consumer, s.spec.id, { spec_version: 1 })).status).toBe(200);
    await addVersion(s.owner, s.spec, version("Two"));
    await addVersion(s.owner, s.spec, version("Three", [read, remove]));
    expect(await s.config()).toMatchObject({ spec_version: 1, effective_spec_version: 1, pending_version: null, pending_changes: [] });
    expect(await s.rendered()).toBe("One");
  });
});
