// Outbound auth profiles in real runs: what the target sees for each
// mechanism, every run-time HTTP_AUTH_* refusal as the run records it, OAuth2
// through the token cache, and no credential in any stored row or log line.
import { afterEach, describe, expect, it, vi } from "vitest";
import { call, createTenant, type TenantCreds } from "../support/api";
import { scenario } from "../support/outbound";
import { policyGranting } from "./actions-support";
import { activateWorkflow, createWorkflow } from "./fixture";
import { dispatched, runRecord } from "./orchestrator-support";
import { firstAction, putTenantSecret, rowsHolding, runActions } from "./outbound-support";

const get = (stepId: string, url: string, auth: unknown, extra: object = {}) => ({
  stepId,
  name: "http",
  config: { url, auth, ...extra },
  errorPolicy: "continue",
});

/** A workflow whose step `call` is a published job (no root auth map at its save), run with `auth` as the workflow's root map. */
async function runPublishedJob(t: TenantCreds, actions: object[], auth: object, env: object = {}) {
  const name = `job-${crypto.randomUUID().slice(0, 8)}`;
  const res = await call("POST", "/definition/jobs", { auth: t.auth, body: { name, definition_json: { actions } } });
  if (res.status !== 201) throw new Error(`publish: ${res.status} ${res.text}`);
  const { id } = await createWorkflow(t, {
    auth,
    config: { env: { TOKEN: null } },
    jobs: [{ id: "call", name }],
    triggers: [{ id: "manual", webhook: { methods: ["POST"] } }],
  });
  await activateWorkflow(t, id, { env: { TOKEN: "unused", ...env } });
  const runId = await dispatched(t, id);
  return runRecord(t, runId);
}

describe("auth mechanisms: what the target receives", () => {
  it("basic (UTF-8, padded base64), bearer and apiKey header from env secrets; apiKey query joins the URL's own query", async () => {
    const t = await createTenant();
    await putTenantSecret(t, "PASS", "päss");
    await putTenantSecret(t, "TOKEN", "tok-bearer-123456");
    await putTenantSecret(t, "KEY", "key-abcdef-7890");
    const s = await scenario({ "/a": [{ status: 200, json: {} }] });
    const { run } = await runActions(
      t,
      [
        get("basic", s.url("/a?n=1"), "basicP"),
        get("bearer", s.url("/a?n=2"), "bearerP"),
        get("header", s.url("/a?n=3"), "headerKey"),
        get("query", s.url("/a?n=4"), "queryKey", { query: { q: "x" } }),
        get("inline", s.url("/a?n=5"), { type: "bearer", token: "{{ input.tok }}" }),
      ],
      {
        configEnv: { PASS: null, TOKEN: null, KEY: null },
        env: { PASS: "{{ secrets.tenant.PASS }}", TOKEN: "{{ secrets.tenant.TOKEN }}", KEY: "{{ secrets.tenant.KEY }}" },
        input: { tok: "inline-token-xyz" },
        auth: {
          basicP: { type: "basic", username: "user", password: "{{ config.env.PASS }}" },
          bearerP: { type: "bearer", token: "{{ config.env.TOKEN }}" },
          headerKey: { type: "apiKey", in: "header", name: "X-Api-Key", value: "{{ config.env.KEY }}" },
          queryKey: { type: "apiKey", in: "query", name: "api_key", value: "{{ config.env.KEY }}" },
        },
      },
    );
    expect(run.status, JSON.stringify(run)).toBe("success");
    const seen = await s.requests();
    expect(seen.map((r) => [r.path, r.headers.authorization ?? null, r.headers["x-api-key"] ?? null])).toEqual([
      ["/a?n=1", "Basic dXNlcjpww6Rzcw==", null],
      ["/a?n=2", "Bearer tok-bearer-123456", null],
      ["/a?n=3", null, "key-abcdef-7890"],
      ["/a?n=4&q=x&api_key=key-abcdef-7890", null, null],
      ["/a?n=5", "Bearer inline-token-xyz", null],
    ]);
  });
});

describe("run-time auth refusals", () => {
  it("HTTP_AUTH_PROFILE_UNKNOWN and HTTP_AUTH_CONFLICT (header any case, apiKey header) for a published job's names", async () => {
    const t = await createTenant();
    const s = await scenario({ "/a": [{ status: 200 }] });
    const run = await runPublishedJob(
      t,
      [
        get("unknown", s.url("/a"), "nope"),
        get("authz", s.url("/a"), "bearerP", { headers: { AUTHORIZATION: "Bearer mine" } }),
        get("keyHeader", s.url("/a"), "headerKey", { headers: { "x-API-key": "mine" } }),
      ],
      { bearerP: { type: "bearer", token: "literal-token" }, headerKey: { type: "apiKey", in: "header", name: "X-Api-Key", value: "v-123456" } },
    );
    const errors = run.job_runs[0].action_log.filter((l: any) => l.status === "error").map((l: any) => l.error);
    expect(errors.map((e: any) => [e.status, e.code])).toEqual([
      [400, "BAD_REQUEST"],
      [400, "BAD_REQUEST"],
      [400, "BAD_REQUEST"],
    ]);
    expect(errors.map((e: any) => e.details)).toEqual([
      { code: "HTTP_AUTH_PROFILE_UNKNOWN", profile: "nope", declared: ["bearerP", "headerKey"] },
      { code: "HTTP_AUTH_CONFLICT", conflict: "header", name: "AUTHORIZATION" },
      { code: "HTTP_AUTH_CONFLICT", conflict: "header", name: "x-API-key" },
    ]);
    expect(await s.requests()).toEqual([]);
  });

  it("HTTP_AUTH_CONFLICT for an apiKey query name in the URL's own query; HTTP_AUTH_INVALID_CREDENTIAL for empty and ':' credentials", async () => {
    const t = await createTenant();
    const s = await scenario({ "/a": [{ status: 200 }] });
    const { run } = await runActions(
      t,
      [
        get("query", "{{ input.url }}", "queryKey"),
        get("empty", s.url("/a"), "bearerP"),
        get("colon", s.url("/a"), "basicP"),
        get("emptyUser", s.url("/a"), { type: "basic", username: "{{ input.empty }}", password: "x" }),
      ],
      {
        input: { url: s.url("/a?api_key=mine"), empty: "" },
        configEnv: { EMPTY: null, USER: null },
        env: { EMPTY: "", USER: "a:b" },
        auth: {
          queryKey: { type: "apiKey", in: "query", name: "api_key", value: "v-123456" },
          bearerP: { type: "bearer", token: "{{ config.env.EMPTY }}" },
          basicP: { type: "basic", username: "{{ config.env.USER }}", password: "pw-123456" },
        },
      },
    );
    expect(run.job_runs[0].action_runs.map((a: any) => [a.step_id, a.error.details])).toEqual([
      ["query", { code: "HTTP_AUTH_CONFLICT", conflict: "query", name: "api_key" }],
      ["empty", { code: "HTTP_AUTH_INVALID_CREDENTIAL", field: "token" }],
      ["colon", { code: "HTTP_AUTH_INVALID_CREDENTIAL", field: "username" }],
      ["emptyUser", { code: "HTTP_AUTH_INVALID_CREDENTIAL", field: "username" }],
    ]);
    expect(await s.requests()).toEqual([]);
  });

  it("HTTP_AUTH_SECRET_MISSING fails only the requests naming that profile; a step input reading it fails its job with Missing secrets.", async () => {
    const t = await createTenant();
    const s = await scenario({ "/a": [{ status: 200 }] });
    const { id } = await createWorkflow(t, {
      config: { env: { TOKEN: null } },
      auth: { crm: { type: "bearer", token: "{{ config.env.TOKEN }}" } },
      jobs: [
        { id: "call", actions: [get("named", s.url("/a"), "crm"), get("plain", s.url("/a"), undefined)] },
        { id: "reads", input: { token: "{{ config.env.TOKEN }}" }, errorPolicy: "continue", actions: [{ stepId: "p", name: "pipe", config: { value: 1 } }] },
      ],
      triggers: [{ id: "manual", webhook: { methods: ["POST"] } }],
    });
    await activateWorkflow(t, id, { env: { TOKEN: "{{ secrets.tenant.NOT_SET }}" } });
    const run = await runRecord(t, await dispatched(t, id));
    const call_ = run.job_runs.find((j: any) => j.job_id === "call");
    expect(call_.action_runs.map((a: any) => [a.step_id, a.status, a.error?.details ?? null])).toEqual([
      ["named", "error", { code: "HTTP_AUTH_SECRET_MISSING", profile: "crm", missing_secrets: ["secrets.tenant.NOT_SET"] }],
      ["plain", "success", null],
    ]);
    const reads = run.job_runs.find((j: any) => j.job_id === "reads");
    expect([reads.status, reads.error.message, reads.error.details.missing_secrets]).toEqual(["error", "Missing secrets.", ["secrets.tenant.NOT_SET"]]);
    expect((await s.requests()).length).toBe(1);
  });
});

describe("oauth2", () => {
  const profile = (s: { url(p: string): string }, extra: object = {}) => ({
    type: "oauth2",
    tokenUrl: s.url("/token"),
    clientId: "client-1",
    clientSecret: "{{ config.env.CLIENT_SECRET }}",
    scope: "read",
    ...extra,
  });

  async function oauthRun(t: TenantCreds, s: { url(p: string): string }, extra: object = {}) {
    return runActions(t, [{ stepId: "get", name: "http", config: { url: s.url("/api"), auth: "api" } }], {
      configEnv: { CLIENT_SECRET: null },
      env: { CLIENT_SECRET: "{{ secrets.tenant.CLIENT_SECRET }}" },
      auth: { api: profile(s, extra) },
    });
  }

  it("exchanges the client credentials and sends the access token as Bearer", async () => {
    const t = await createTenant();
    await putTenantSecret(t, "CLIENT_SECRET", "cs-very-secret-1");
    const s = await scenario({ "/token": [{ json: { access_token: "at-first-0001", expires_in: 3600 } }], "/api": [{ json: { ok: true } }] });
    const { run } = await oauthRun(t, s, { clientAuth: "body" });
    expect(run.status, JSON.stringify(run)).toBe("success");
    const [token, api] = await s.requests();
    expect([token.path, token.headers["content-type"], Object.fromEntries(new URLSearchParams(token.body))]).toEqual([
      "/token",
      "application/x-www-form-urlencoded",
      { grant_type: "client_credentials", scope: "read", client_id: "client-1", client_secret: "cs-very-secret-1" },
    ]);
    expect([api.path, api.headers.authorization]).toEqual(["/api", "Bearer at-first-0001"]);
  });

  it("a 401 to a reused token refreshes it once and resends; a 401 to a fresh token is the answer", async () => {
    const t = await createTenant();
    await putTenantSecret(t, "CLIENT_SECRET", "cs-very-secret-2");
    const s = await scenario({
      "/token": [
        { json: { access_token: "at-one-000001", expires_in: 3600 } },
        { json: { access_token: "at-two-000002", expires_in: 3600 } },
        { json: { access_token: "at-three-0003", expires_in: 3600 } },
      ],
      "/api": [{ json: { n: 1 } }, { status: 401 }, { json: { n: 2 } }, { status: 401 }],
    });
    // Run 1 mints at-one (fresh, answered 200); run 2 reuses it, gets 401, refreshes to at-two and resends.
    expect((await oauthRun(t, s)).run.status).toBe("success");
    const second = (await oauthRun(t, s)).run;
    expect([second.status, second.outputs.call.get.body]).toEqual(["success", { n: 2 }]);
    // Run 3 reuses at-two: 401, refresh to at-three, resend: 401 again, to a token minted for this call: the answer.
    const third = (await oauthRun(t, s)).run;
    expect([third.status, firstAction(third).error.details.result.status]).toEqual(["error", 401]);
    const seen = await s.requests();
    expect(seen.map((r) => [r.path, r.path === "/api" ? r.headers.authorization : null])).toEqual([
      ["/token", null],
      ["/api", "Bearer at-one-000001"],
      ["/api", "Bearer at-one-000001"],
      ["/token", null],
      ["/api", "Bearer at-two-000002"],
      ["/api", "Bearer at-two-000002"],
      ["/token", null],
      ["/api", "Bearer at-three-0003"],
    ]);
  });

  it("with binaryUpload, a 401 to a reused token refreshes it but does not resend; the next run uses the fresh token", async () => {
    const t = await createTenant();
    await putTenantSecret(t, "CLIENT_SECRET", "cs-very-secret-5");
    const s = await scenario({
      "/token": [{ json: { access_token: "at-up-one-0001", expires_in: 3600 } }, { json: { access_token: "at-up-two-0002", expires_in: 3600 } }],
      "/api": [{ json: { n: 1 } }, { status: 401 }, { json: { n: 3 } }],
    });
    const upload = await call("POST", "/entity/temp-files", {
      auth: t.auth,
      rawBody: "bytes",
      headers: { "Content-Type": "text/plain", "X-Temp-File-Name": "a.txt" },
    });
    const policy_id = await policyGranting(t, ["entity:read"]);
    const runUpload = () =>
      runActions(
        t,
        [{ stepId: "get", name: "http", config: { url: s.url("/api"), method: "PUT", auth: "api", binaryUpload: { tempFileId: upload.json.data.id } } }],
        {
          configEnv: { CLIENT_SECRET: null },
          env: { CLIENT_SECRET: "{{ secrets.tenant.CLIENT_SECRET }}" },
          auth: { api: profile(s) },
          policy_id,
        },
      );
    expect((await runUpload()).run.status).toBe("success");
    const refused = (await runUpload()).run;
    expect([refused.status, firstAction(refused).error.details.result.status]).toEqual(["error", 401]);
    expect((await runUpload()).run.outputs.call.get.body).toEqual({ n: 3 });
    const seen = await s.requests();
    expect(seen.map((r) => [r.path, r.path === "/api" ? r.headers.authorization : null])).toEqual([
      ["/token", null],
      ["/api", "Bearer at-up-one-0001"],
      ["/api", "Bearer at-up-one-0001"],
      ["/token", null],
      ["/api", "Bearer at-up-two-0002"],
    ]);
  });

  it("a failed exchange fails the action with HTTP_AUTH_TOKEN_EXCHANGE_FAILED, the secret masked", async () => {
    const t = await createTenant();
    await putTenantSecret(t, "CLIENT_SECRET", "cs-very-secret-3");
    const s = await scenario({ "/token": [{ status: 400, json: { error: "invalid_client", echo: "cs-very-secret-3" } }], "/api": [{ json: {} }] });
    const { run, runId } = await oauthRun(t, s);
    const error = firstAction(run).error;
    expect([error.status, error.details.code, error.details.status]).toEqual([400, "HTTP_AUTH_TOKEN_EXCHANGE_FAILED", 400]);
    expect(JSON.stringify(error)).not.toContain("cs-very-secret-3");
    expect(await rowsHolding([runId], "cs-very-secret-3")).toEqual([]);
    expect((await s.requests()).map((r) => r.path)).toEqual(["/token"]);
  });

  it("50 concurrent runs share one token exchange", async () => {
    const t = await createTenant();
    await putTenantSecret(t, "CLIENT_SECRET", "cs-very-secret-4");
    const s = await scenario({ "/token": [{ json: { access_token: "at-shared-0050", expires_in: 3600 }, delayMs: 300 }], "/api": [{ json: { ok: true } }] });
    const { id } = await createWorkflow(t, {
      config: { env: { CLIENT_SECRET: null } },
      auth: { api: profile(s) },
      jobs: [{ id: "call", actions: [{ stepId: "get", name: "http", config: { url: s.url("/api"), auth: "api" } }] }],
      triggers: [{ id: "manual", webhook: { methods: ["POST"] } }],
    });
    await activateWorkflow(t, id, { env: { CLIENT_SECRET: "{{ secrets.tenant.CLIENT_SECRET }}" } });
    const runIds = await Promise.all(Array.from({ length: 50 }, () => dispatched(t, id)));
    const runs = await Promise.all(runIds.map((runId) => runRecord(t, runId)));
    expect(runs.map((r) => r.status)).toEqual(Array(50).fill("success"));
    const seen = await s.requests();
    expect(seen.filter((r) => r.path === "/token").length).toBe(1);
    expect(seen.filter((r) => r.path === "/api").map((r) => r.headers.authorization)).toEqual(Array(50).fill("Bearer at-shared-0050"));
  });
});

describe("no credential is written down", () => {
  afterEach(() => vi.restoreAllMocks());

  it("secrets, the basic header and the tokens appear in no stored row and no log line, even when the target echoes them", async () => {
    const lines: string[] = [];
    for (const method of ["log", "error", "warn", "info"] as const)
      vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(" ")));
    const t = await createTenant();
    await putTenantSecret(t, "PASS", "pw-leak-check-77");
    await putTenantSecret(t, "CLIENT_SECRET", "cs-leak-check-88");
    const s = await scenario({
      "/token": [{ json: { access_token: "at-leak-check-99", expires_in: 3600 } }],
      "/echo1": [{ status: 500, json: { saw: "pw-leak-check-77 dXNlcjpwdy1sZWFrLWNoZWNrLTc3" } }],
      "/echo2": [{ status: 500, json: { saw: "pw-leak-check-77 at-leak-check-99 dXNlcjpwdy1sZWFrLWNoZWNrLTc3" } }],
    });
    const { runId, run } = await runActions(
      t,
      [get("basic", s.url("/echo1"), "basicP", { maxRetries: 0 }), get("oauth", s.url("/echo2"), "oauth", { maxRetries: 0 })],
      {
        configEnv: { PASS: null, CLIENT_SECRET: null },
        env: { PASS: "{{ secrets.tenant.PASS }}", CLIENT_SECRET: "{{ secrets.tenant.CLIENT_SECRET }}" },
        auth: {
          basicP: { type: "basic", username: "user", password: "{{ config.env.PASS }}" },
          oauth: { type: "oauth2", tokenUrl: s.url("/token"), clientId: "c", clientSecret: "{{ config.env.CLIENT_SECRET }}" },
        },
      },
    );
    // Both failed on their 500 (errorWhen), so the echoed body sits in each error: masked.
    expect(run.job_runs[0].action_runs.map((a: any) => a.error.details.result.body.saw)).toEqual(["*** ***", "*** *** ***"]);
    for (const needle of ["pw-leak-check-77", "cs-leak-check-88", "at-leak-check-99", "dXNlcjpwdy1sZWFrLWNoZWNrLTc3"]) {
      expect(await rowsHolding([runId], needle), needle).toEqual([]);
      expect(
        lines.filter((l) => l.includes(needle)),
        needle,
      ).toEqual([]);
    }
  });
});
