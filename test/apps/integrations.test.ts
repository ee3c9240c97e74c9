// Integrations and principals of an activation, through the gateway.
import { describe, expect, it } from "vitest";
import { call, createTenant, expectError } from "../support/api";
import { unchangedBy } from "../access/admin";
import { createUser, roleToken, tokenForUser } from "../access/fixture";
import { appFootprint, dashboards, insertSpec, publishJob, putConfig, registerCompany, registerSchema } from "./fixture";

const refused = unchangedBy(appFootprint);
const providers = {
  host: {
    auth: { type: "bearer" },
    identity: { user_external_id: { source: "body", path: "user" }, company_external_id: { source: "body", path: "company" } },
  },
};
const scoped = {
  type: "object",
  properties: { limit: { type: "integer", maximum: 10 }, lang: { type: "string", "x-immutable": true }, seats: { type: "integer", default: 5 } },
};

async function activated(scope: "integration" | "company" | "team" | "user", extra: object = {}) {
  const t = await createTenant();
  await registerSchema(t, "scoped", scoped);
  const spec = await insertSpec(t, [
    { dashboards, providers, jobs: { sync: null }, config: { [scope]: { lang: "en" } }, configSchemas: { [scope]: "scoped" }, ...extra },
  ]);
  expect((await putConfig(t, spec.id, {})).status).toBe(200);
  return { t, spec };
}

describe("integrations", () => {
  it("creates, lists, reads and changes an integration (config merged, the rest replaced)", async () => {
    const { t, spec } = await activated("integration");
    const company = await registerCompany(t, "host");
    const job = await publishJob(t);
    const res = await call("POST", `/apps/${spec.id}/integrations`, {
      auth: t.auth,
      body: {
        external_company_id: company.id,
        name: "Acme",
        allowed_origins: ["https://host.example", "http://localhost:8080"],
        config: { limit: 3 },
        job_bindings: { sync: job },
      },
    });
    expect(res.status, res.text).toBe(201);
    const i = res.json.data;
    expect(i).toMatchObject({
      spec_id: spec.id,
      external_company_id: company.id,
      provider: "host",
      company_external_id: company.external_id,
      name: "Acme",
      allowed_origins: ["https://host.example", "http://localhost:8080"],
      config: { limit: 3, seats: 5 },
      effective_config: { lang: "en", limit: 3, seats: 5 },
      job_bindings: { sync: job },
      is_enabled: true,
    });
    const list = await call("GET", `/apps/${spec.id}/integrations`, { auth: t.auth });
    expect(list.json.data.map((r: { id: string }) => r.id)).toEqual([i.id]);
    expect(list.json.pagination.total).toBe(1);
    const changed = await call("PUT", `/apps/${spec.id}/integrations/${i.id}`, {
      auth: t.auth,
      body: { config: { limit: null, x: 1 }, allowed_origins: [], is_enabled: false },
    });
    expect(changed.status, changed.text).toBe(200);
    expect(changed.json.data).toMatchObject({ config: { seats: 5, x: 1 }, allowed_origins: [], is_enabled: false, name: "Acme", job_bindings: { sync: job } });
    expect((await call("GET", `/apps/${spec.id}/integrations/${i.id}`, { auth: t.auth })).json.data).toEqual(changed.json.data);
  });

  it("refuses unknown companies, providers the spec lacks, bad origins, scope violations and other tenants' integrations", async () => {
    const { t, spec } = await activated("integration");
    const post = (body: object) => call("POST", `/apps/${spec.id}/integrations`, { auth: t.auth, body });
    const company = await registerCompany(t, "host");
    await refused(t, () => post({ external_company_id: crypto.randomUUID() }), 422, "UNPROCESSABLE_ENTITY");
    const foreign = await registerCompany(t, "elsewhere");
    const lacking = await refused(t, () => post({ external_company_id: foreign.id }), 422, "UNPROCESSABLE_ENTITY");
    expect(lacking.details).toMatchObject({ provider: "elsewhere", providers: ["host"] });
    for (const origin of ["https://host.example/", "https://host.example/path", "HTTPS://HOST.example", "ftp://x", "https://a:b@host"]) {
      await refused(t, () => post({ external_company_id: company.id, allowed_origins: [origin] }), 422, "VALIDATION_FAILED");
    }
    const tooBig = await refused(t, () => post({ external_company_id: company.id, config: { limit: 11 } }), 422, "VALIDATION_FAILED");
    expect(tooBig.details.scope).toBe("integration");
    const immutable = await refused(t, () => post({ external_company_id: company.id, config: { lang: "de" } }), 422, "VALIDATION_FAILED");
    expect(immutable.details.validation_errors).toEqual(['lang: is immutable: the definition sets it to "en"']);
    await refused(t, () => post({ external_company_id: company.id, job_bindings: { nope: crypto.randomUUID() } }), 422, "VALIDATION_FAILED");

    const other = await activated("integration");
    const theirs = await call("POST", `/apps/${other.spec.id}/integrations`, {
      auth: other.t.auth,
      body: { external_company_id: (await registerCompany(other.t, "host")).id },
    });
    expect(theirs.status).toBe(201);
    expectError(await call("GET", `/apps/${spec.id}/integrations/${theirs.json.data.id}`, { auth: t.auth }), 404, "NOT_FOUND");
    expectError(await call("GET", `/apps/${other.spec.id}/integrations/${theirs.json.data.id}`, { auth: t.auth }), 404, "NOT_FOUND");
    await refused(t, () => call("PUT", `/apps/${spec.id}/integrations/${theirs.json.data.id}`, { auth: t.auth, body: { name: "x" } }), 404, "NOT_FOUND");

    const notActivated = await insertSpec(t, [{ dashboards, providers }]);
    await refused(
      t,
      () => call("POST", `/apps/${notActivated.id}/integrations`, { auth: t.auth, body: { external_company_id: company.id } }),
      404,
      "NOT_FOUND",
    );
    const reader = await roleToken(t.auth, ["app:read"]);
    await refused(t, () => call("POST", `/apps/${spec.id}/integrations`, { auth: reader.auth, body: { external_company_id: company.id } }), 403, "FORBIDDEN");
  });
});

describe("principals", () => {
  it("merges a user's config (self resolves to the caller, needing no permission) and answers it on GET", async () => {
    const { t, spec } = await activated("user");
    const path = `/apps/${spec.id}/principals/user/self`;
    expectError(await call("GET", path, { auth: t.auth }), 404, "NOT_FOUND");
    const first = await call("PUT", path, { auth: t.auth, body: { config: { limit: 2, prefs: { a: 1 } } } });
    expect(first.status, first.text).toBe(200);
    expect(first.json.data).toMatchObject({
      spec_id: spec.id,
      principal_type: "user",
      principal_id: t.userId,
      provider: null,
      config: { limit: 2, prefs: { a: 1 }, seats: 5 },
      effective_config: { lang: "en", limit: 2, prefs: { a: 1 }, seats: 5 },
    });
    const second = await call("PUT", `/apps/${spec.id}/principals/user/${t.userId}`, { auth: t.auth, body: { config: { prefs: { b: 2 } } } });
    expect(second.json.data.config).toEqual({ limit: 2, prefs: { a: 1, b: 2 }, seats: 5 });
    expect((await call("GET", path, { auth: t.auth })).json.data).toEqual(second.json.data);

    // A user with no permissions at all still writes its own user principal, but no one else's.
    const other = await createUser(t.auth);
    const bare = await tokenForUser(t.auth, other.id);
    const mine = await call("PUT", path, { auth: bare.auth, body: { config: { limit: 1 } } });
    expect(mine.status, mine.text).toBe(200);
    expect(mine.json.data).toMatchObject({ principal_id: other.id, config: { limit: 1, seats: 5 } });
    expect((await call("GET", `/apps/${spec.id}/principals/user/${other.id}`, { auth: bare.auth })).json.data.config).toEqual({ limit: 1, seats: 5 });
    await refused(t, () => call("PUT", `/apps/${spec.id}/principals/user/${t.userId}`, { auth: bare.auth, body: { config: { limit: 1 } } }), 403, "FORBIDDEN");
    await refused(t, () => call("PUT", `/apps/${spec.id}/principals/team/t1`, { auth: bare.auth, body: { config: {} } }), 403, "FORBIDDEN");
    expectError(await call("GET", `/apps/${spec.id}/principals/user/${t.userId}`, { auth: bare.auth }), 403, "FORBIDDEN");
  });

  it("names companies by external_id (provider from the spec or ?provider=), teams by any id, and refuses what it cannot resolve", async () => {
    const { t, spec } = await activated("company", { providers: { ...providers, second: providers.host } });
    const company = await registerCompany(t, "host");
    const path = `/apps/${spec.id}/principals/company/${company.external_id}`;
    const ambiguous = await refused(t, () => call("PUT", path, { auth: t.auth, body: { config: {} } }), 422, "UNPROCESSABLE_ENTITY");
    expect(ambiguous.details.providers).toEqual(["host", "second"]);
    const ok = await call("PUT", `${path}?provider=host`, { auth: t.auth, body: { config: { limit: 4 } } });
    expect(ok.status, ok.text).toBe(200);
    expect(ok.json.data).toMatchObject({ principal_type: "company", principal_id: company.external_id, provider: "host", config: { limit: 4, seats: 5 } });
    await refused(t, () => call("PUT", `${path}?provider=second`, { auth: t.auth, body: { config: {} } }), 422, "UNPROCESSABLE_ENTITY");
    await refused(t, () => call("PUT", `${path}?provider=nope`, { auth: t.auth, body: { config: {} } }), 422, "UNPROCESSABLE_ENTITY");
    const immutable = await refused(
      t,
      () => call("PUT", `${path}?provider=host`, { auth: t.auth, body: { config: { lang: "fr" } } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(immutable.details.scope).toBe("company");

    const team = await call("PUT", `/apps/${spec.id}/principals/team/sales-emea`, { auth: t.auth, body: { config: { anything: true } } });
    expect(team.json.data).toMatchObject({ principal_type: "team", principal_id: "sales-emea", config: { anything: true } });
    await refused(
      t,
      () => call("PUT", `/apps/${spec.id}/principals/user/${crypto.randomUUID()}`, { auth: t.auth, body: { config: {} } }),
      422,
      "UNPROCESSABLE_ENTITY",
    );
    await refused(t, () => call("PUT", `/apps/${spec.id}/principals/team/self`, { auth: t.auth, body: { config: {} } }), 422, "UNPROCESSABLE_ENTITY");
    await refused(t, () => call("PUT", `/apps/${spec.id}/principals/group/x`, { auth: t.auth, body: { config: {} } }), 422, "VALIDATION_FAILED");
    await refused(t, () => call("PUT", `/apps/${spec.id}/principals/team/x`, { auth: t.auth, body: { config: "no" } }), 422, "VALIDATION_FAILED");
  });
});
