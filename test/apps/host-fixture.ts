// A rendering integration set up as an operator does it (spec published and
// activated, company registered, integration and app token minted), and a
// render call for its host: what the command, form and upload tests share.
import { expect } from "vitest";
import { call, createTenant, type TenantCreds } from "../support/api";
import { insertSpec, putConfig, registerCompany } from "./fixture";

export const HOST_ORIGIN = "https://host.example";

/** A bearer provider reading the user and company from the body, creating users on first sight. */
export const hostProvider = {
  host: {
    auth: { type: "bearer" },
    autoCreateUsers: true,
    identity: {
      user_external_id: { source: "body", path: "user" },
      company_external_id: { source: "body", path: "company" },
      team_id: { source: "body", path: "team" },
    },
  },
};

export interface Host {
  t: TenantCreds;
  specId: string;
  integrationId: string;
  token: string;
  /** Posts a render for user `u-1` of company `acme` (the body's own keys win). */
  render(body?: Record<string, unknown>): ReturnType<typeof call>;
}

export async function hostFor(spec: object, options: { tenant?: TenantCreds; config?: object } = {}): Promise<Host> {
  const t = options.tenant ?? (await createTenant());
  const published = await insertSpec(t, [spec]);
  const activated = await putConfig(t, published.id, { config: options.config ?? {} });
  expect(activated.status, activated.text).toBe(200);
  const company = await registerCompany(t, "host", "acme");
  const integration = await call("POST", `/apps/${published.id}/integrations`, {
    auth: t.auth,
    body: { external_company_id: company.id, allowed_origins: [HOST_ORIGIN] },
  });
  expect(integration.status, integration.text).toBe(201);
  const integrationId = integration.json.data.id as string;
  const minted = await call("PUT", `/apps/${published.id}/integrations/${integrationId}/token`, { auth: t.auth });
  expect(minted.status, minted.text).toBe(201);
  const token = minted.json.raw_token as string;
  return {
    t,
    specId: published.id,
    integrationId,
    token,
    render: (body = {}) => call("POST", `/apps/run/${integrationId}`, { auth: `Bearer ${token}`, body: { user: "u-1", company: "acme", ...body } }),
  };
}
