// Every /apps route checks the caller's permission before it looks up what
// the path or body names: a caller without it gets one 403 body whether the
// spec, integration, company, team or user exists or not.
import { describe, expect, it } from "vitest";
import { call, createTenant, expectError } from "../support/api";
import { createUser, policyOnRoleToken, roleToken } from "../access/fixture";
import { dashboards, insertSpec, putConfig, registerCompany } from "./fixture";

const providers = {
  host: {
    auth: { type: "bearer" },
    identity: { user_external_id: { source: "body", path: "user" }, company_external_id: { source: "body", path: "company" } },
  },
};

type Request = [method: string, path: string, body?: unknown];

/** The 403 envelope without its request id: what must not differ between a thing that exists and one that does not. */
async function refusal(auth: string, [method, path, body]: Request) {
  const res = await call(method, path, { auth, ...(body !== undefined && { body }) });
  const err = expectError(res, 403, "FORBIDDEN");
  const { request_id, ...details } = err.details;
  expect(request_id).toEqual(expect.any(String));
  return { ...err, details };
}

/** The two refusals are one body once a segment the paths differ in (what the caller asked for) is read as the other's. */
async function expectSameRefusal(auth: string, existing: Request, missing: Request) {
  const theirs = existing[1].split("/");
  const asked = missing[1]
    .split("/")
    .reduce((text, segment, i) => (segment === theirs[i] ? text : text.replaceAll(segment, theirs[i])), JSON.stringify(await refusal(auth, missing)));
  expect(JSON.parse(asked)).toEqual(await refusal(auth, existing));
}

async function world() {
  const t = await createTenant();
  const spec = await insertSpec(t, [{ dashboards, providers }]);
  expect((await putConfig(t, spec.id, {})).status).toBe(200);
  const company = await registerCompany(t, "host");
  const integration = await call("POST", `/apps/${spec.id}/integrations`, { auth: t.auth, body: { external_company_id: company.id } });
  expect(integration.status, integration.text).toBe(201);
  const user = await createUser(t.auth);
  return { t, spec, company, integrationId: integration.json.data.id as string, user };
}

describe("permission before existence on /apps routes", () => {
  it("answers a caller without app permissions one 403 for existing and unknown specs, integrations, companies, teams and users", async () => {
    const { t, spec, company, integrationId, user } = await world();
    const bare = await roleToken(t.auth, ["entity:read"]);
    const nobody = crypto.randomUUID();
    const s = `/apps/${spec.id}`;
    const x = `/apps/${nobody}`;
    const pairs: [Request, Request][] = [
      [
        ["GET", `${s}/config`],
        ["GET", `${x}/config`],
      ],
      [
        ["PUT", `${s}/config`, { config: {} }],
        ["PUT", `${x}/config`, { config: {} }],
      ],
      [
        ["POST", `${s}/integrations`, { external_company_id: company.id }],
        ["POST", `${x}/integrations`, { external_company_id: nobody }],
      ],
      [
        ["POST", `${s}/integrations`, { external_company_id: company.id }],
        ["POST", `${s}/integrations`, { external_company_id: nobody }],
      ],
      [
        ["GET", `${s}/integrations`],
        ["GET", `${x}/integrations`],
      ],
      [
        ["GET", `${s}/integrations/${integrationId}`],
        ["GET", `${s}/integrations/${nobody}`],
      ],
      [
        ["GET", `${s}/integrations/${integrationId}`],
        ["GET", `${x}/integrations/${integrationId}`],
      ],
      [
        ["PUT", `${s}/integrations/${integrationId}`, { name: "n" }],
        ["PUT", `${s}/integrations/${nobody}`, { name: "n" }],
      ],
      [
        ["PUT", `${s}/integrations/${integrationId}/token`],
        ["PUT", `${s}/integrations/${nobody}/token`],
      ],
      [
        ["POST", `${s}/preview`, {}],
        ["POST", `${x}/preview`, {}],
      ],
      [
        ["GET", `${s}/preview`],
        ["GET", `${x}/preview`],
      ],
    ];
    for (const type of ["user", "company", "team"] as const) {
      const known = type === "user" ? user.id : type === "company" ? company.external_id : "sales";
      const unknown = type === "user" ? nobody : `nobody-${nobody}`;
      pairs.push(
        [
          ["PUT", `${s}/principals/${type}/${known}`, { config: {} }],
          ["PUT", `${s}/principals/${type}/${unknown}`, { config: {} }],
        ],
        [
          ["PUT", `${s}/principals/${type}/${known}`, { config: {} }],
          ["PUT", `${x}/principals/${type}/${known}`, { config: {} }],
        ],
        [
          ["GET", `${s}/principals/${type}/${known}`],
          ["GET", `${s}/principals/${type}/${unknown}`],
        ],
        [
          ["GET", `${s}/principals/${type}/${known}`],
          ["GET", `${x}/principals/${type}/${known}`],
        ],
      );
    }
    for (const [existing, missing] of pairs) await expectSameRefusal(bare.auth, existing, missing);
    // Its own user principal needs no permission: there the spec's existence is the caller's to know.
    expectError(await call("GET", `${x}/principals/user/self`, { auth: bare.auth }), 404, "NOT_FOUND");
  });

  it("answers a caller whose grants name another activation the same 403 for an activated, an unactivated and an unknown spec", async () => {
    const { t, spec, company } = await world();
    const mine = await insertSpec(t, [{ dashboards, providers }]);
    const activationId = (await putConfig(t, mine.id, {})).json.data.id as string;
    const narrowed = await policyOnRoleToken(t.auth, [{ resource: "app", actions: ["read", "update", "create"], resource_id: activationId }]);
    expect((await call("GET", `/apps/${mine.id}/config`, { auth: narrowed.auth })).status).toBe(200);
    const unactivated = (await insertSpec(t, [{ dashboards, providers }])).id;
    const unknown = crypto.randomUUID();
    for (const other of [unactivated, unknown]) {
      const at = (id: string): Request[] => [
        ["GET", `/apps/${id}/config`],
        ["PUT", `/apps/${id}/config`, { config: {}, spec_version: 99 }],
        ["POST", `/apps/${id}/integrations`, { external_company_id: company.id }],
        ["GET", `/apps/${id}/integrations`],
        ["PUT", `/apps/${id}/principals/company/${company.external_id}`, { config: {} }],
        ["POST", `/apps/${id}/preview`, {}],
      ];
      const activated = at(spec.id);
      const elsewhere = at(other);
      for (let i = 0; i < activated.length; i++) {
        const [a, b] = [await refusal(narrowed.auth, activated[i]), await refusal(narrowed.auth, elsewhere[i])];
        // The body names the spec of the path and nothing else.
        expect(b).toEqual({ ...a, message: a.message.replace(spec.id, other), details: { ...a.details, spec_id: other } });
        expect(a.details).toEqual({ resource: "app", action: expect.any(String), spec_id: spec.id });
      }
    }
  });
});
