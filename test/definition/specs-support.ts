// Shared by the app spec tests: documents a publish accepts, and what a
// refused write must leave as it was.
import { expect } from "vitest";
import { call, expectError, systemQuery, type TenantCreds } from "../support/api";

/** Keys deliberately out of alphabetical order at every level: the answer must keep them so. */
export function specDoc(title = "Zeta") {
  return {
    dashboards: {
      zeta: {
        name: title,
        surfaces: { dashboard: "home" },
        pages: { home: { widgets: { hello: { widgetComponent: "text", config: { text: "hi", align: "left" } } }, layout: [["hello"]] } },
      },
      alpha: { name: "Alpha", surfaces: { panel: { page: "side" } }, pages: { side: { layout: [] } } },
    },
    messages: { "widget-error-hello": "Could not load" },
  };
}

export async function publish(t: TenantCreds, body: Record<string, unknown>) {
  const res = await call("POST", "/definition/specs", { auth: t.auth, body });
  expect(res.status, res.text).toBe(201);
  return res.json.data;
}

/** Every row the spec routes write for a tenant, and the manifest shares. */
export async function footprint(tenantId: string) {
  return {
    specs: await systemQuery("SELECT id, name, description, version, spec_document::text AS doc, updated_at FROM app_specs WHERE tenant_id = $1 ORDER BY id", [
      tenantId,
    ]),
    versions: await systemQuery("SELECT spec_id, version, spec_document::text AS doc FROM app_spec_versions WHERE tenant_id = $1 ORDER BY spec_id, version", [
      tenantId,
    ]),
    shares: await systemQuery("SELECT id, resource_type, resource_id, target_tenant_id, actions, source FROM shares WHERE tenant_id = $1 ORDER BY id", [
      tenantId,
    ]),
  };
}

export async function refused(t: TenantCreds, send: () => Promise<{ status: number; json: any }>, status: number, code: string) {
  const before = await footprint(t.tenantId);
  const err = expectError(await send(), status, code);
  expect(await footprint(t.tenantId)).toEqual(before);
  return err;
}
