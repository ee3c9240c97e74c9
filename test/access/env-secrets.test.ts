// Env secret references resolved for a run: values from the tenant's sealed
// secrets, markers for the ones without a value, and the markers found again
// in whatever read them.
import { describe, expect, it } from "vitest";
import { env } from "cloudflare:test";
import { tenantDb } from "../../src/db/client";
import { resolveEnvSecrets } from "../../src/access/secrets/env-secrets";
import { missingSecretsIn } from "../../src/lib/secret-markers";
import { call, createTenant, withSystemDb } from "../support/api";

describe("resolveEnvSecrets", () => {
  it("replaces tenant references by their values (whole or inside a string) and marks the missing ones", async () => {
    const t = await createTenant();
    const put = await call("POST", "/access/secrets", { auth: t.auth, body: { scope: "tenant", name: "CRM_TOKEN", value: "tok-123456" } });
    expect(put.status).toBe(201);
    const resolved = await withSystemDb((db) =>
      resolveEnvSecrets(tenantDb(db, t.tenantId), env.MASTER_KEY, {
        TOKEN: "{{ secrets.tenant.CRM_TOKEN }}",
        HEADER: "Bearer {{secrets.tenant.CRM_TOKEN}}",
        GONE: "{{ secrets.tenant.NOT_SET }}",
        MINE: "{{ secrets.user.API_KEY }}",
        PLAIN: "https://crm.example.com",
        N: 3,
      }),
    );
    expect(resolved.values).toEqual(["tok-123456"]);
    expect(resolved.env.TOKEN).toBe("tok-123456");
    expect(resolved.env.HEADER).toBe("Bearer tok-123456");
    expect(resolved.env.PLAIN).toBe("https://crm.example.com");
    expect(resolved.env.N).toBe(3);
    expect(missingSecretsIn(resolved.env.GONE)).toEqual(["secrets.tenant.NOT_SET"]);
    // A run acts for no user: a user-scope reference has no value.
    expect(missingSecretsIn(resolved.env.MINE)).toEqual(["secrets.user.API_KEY"]);
    expect(missingSecretsIn({ a: [`x ${resolved.env.GONE}`, { b: resolved.env.MINE }], c: resolved.env.TOKEN })).toEqual([
      "secrets.tenant.NOT_SET",
      "secrets.user.API_KEY",
    ]);
  });

  it("another tenant's secret of the same name is not read", async () => {
    const [a, b] = [await createTenant(), await createTenant()];
    expect((await call("POST", "/access/secrets", { auth: a.auth, body: { scope: "tenant", name: "SHARED_NAME", value: "only-for-a" } })).status).toBe(201);
    const resolved = await withSystemDb((db) => resolveEnvSecrets(tenantDb(db, b.tenantId), env.MASTER_KEY, { K: "{{ secrets.tenant.SHARED_NAME }}" }));
    expect(resolved.values).toEqual([]);
    expect(missingSecretsIn(resolved.env)).toEqual(["secrets.tenant.SHARED_NAME"]);
  });

  it("an env without references is answered as given, without a query", async () => {
    const given = { A: "{{ config.env.B }}", B: "b" };
    const resolved = await resolveEnvSecrets(undefined as never, "unused", given);
    expect(resolved).toEqual({ env: given, values: [] });
    expect(missingSecretsIn(given)).toEqual([]);
  });
});
