// Webhook triggers through the gateway: finding the trigger, challenges,
// methods, every verification form with signatures computed here, secrets
// and their rotation, and the run each accepted call starts.
import { env } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { kickRuns } from "../../src/workflows/runs/run-client";
import { call, createTenant, expectError, systemQuery, type TenantCreds } from "../support/api";
import { createRole, mintWithRoles, UUID } from "../access/admin";
import { activeWorkflow, minimalDefinition, type ActivationAnswer } from "./fixture";

const encoder = new TextEncoder();

async function hexHmac(hash: "SHA-256" | "SHA-1", secret: string, data: string): Promise<string> {
  const key = await crypto.subtle.importKey("raw", encoder.encode(secret), { name: "HMAC", hash }, false, ["sign"]);
  return [...new Uint8Array(await crypto.subtle.sign("HMAC", key, encoder.encode(data)))].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** A workflow whose only triggers are `triggers`, activated; answers the uuid of each trigger by its id. */
async function hooks(t: TenantCreds, triggers: object[]) {
  const { id, activation } = await activeWorkflow(t, minimalDefinition({ triggers }));
  const uuid = (key: string) => activation.triggers.find((x: ActivationAnswer["triggers"][number]) => x.id === key)!.trigger_id;
  return { id, uuid, activation };
}

const hookPath = (uuid: string, query = "") => `/workflows/hooks/${uuid}${query}`;

function post(uuid: string, raw: string, opts: { query?: string; headers?: Record<string, string>; method?: string } = {}) {
  return call(opts.method ?? "POST", hookPath(uuid, opts.query), { rawBody: raw, headers: { "Content-Type": "application/json", ...opts.headers } });
}

async function mintSecret(t: TenantCreds, workflowId: string, ref: string): Promise<string> {
  const res = await call("POST", `/workflows/${workflowId}/triggers/${ref}/secret`, { auth: t.auth });
  expect(res.status, res.text).toBe(201);
  expect(res.json.data.secret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
  return res.json.data.secret;
}

const runsOf = (tenantId: string) =>
  systemQuery<{
    id: string;
    status: string;
    trigger_id: string;
    trigger_key: string;
    trigger_type: string;
    workflow_version: number;
    context: any;
    idempotency_key: string | null;
  }>(
    `SELECT id, status, trigger_id, trigger_key, trigger_type, workflow_version, context, idempotency_key FROM workflow_runs WHERE tenant_id = $1 ORDER BY created_at, id`,
    [tenantId],
  );

/** Sends a call that must fail with status and code, and checks it started no run. */
async function refused(t: TenantCreds, send: () => ReturnType<typeof call>, status: number, code: string) {
  const before = (await runsOf(t.tenantId)).length;
  const res = await send();
  const err = expectError(res, status, code);
  expect((await runsOf(t.tenantId)).length).toBe(before);
  return { err, res };
}

function expectAccepted(res: { status: number; json: any; text: string }): string {
  expect(res.status, res.text).toBe(202);
  expect(Object.keys(res.json.data)).toEqual(["workflow_run"]);
  expect(res.json.data.workflow_run).toEqual({ id: expect.stringMatching(UUID) });
  return res.json.data.workflow_run.id;
}

describe("accepted calls", () => {
  it("a trigger without verification takes any call: 202 and a run whose context.input is { body, headers, query, method }", async () => {
    const t = await createTenant();
    const { id, uuid } = await hooks(t, [{ id: "manual", webhook: { methods: ["POST"] } }]);
    const res = await post(uuid("manual"), '{"order":{"id":7,"tags":["a"]}}', { query: "?x=1&y=2&y=3", headers: { "X-Custom": "one", "x-Other": "two" } });
    const runId = expectAccepted(res);
    // The route kicks the run once it answered; a second kick waits behind that walk, so the run has ended.
    await kickRuns(env, [{ tenantId: t.tenantId, runId }]);
    const [run] = await runsOf(t.tenantId);
    expect(run).toMatchObject({
      id: runId,
      status: "success",
      trigger_id: uuid("manual"),
      trigger_key: "manual",
      trigger_type: "webhook",
      workflow_version: 1,
      idempotency_key: null,
    });
    expect(Object.keys(run.context.input).sort()).toEqual(["body", "headers", "method", "query"]);
    expect(run.context.input.body).toEqual({ order: { id: 7, tags: ["a"] } });
    expect(run.context.input.method).toBe("POST");
    expect(run.context.input.query).toEqual({ x: "1", y: ["2", "3"] });
    expect(run.context.input.headers).toMatchObject({ "content-type": "application/json", "x-custom": "one", "x-other": "two" });
    expect(Object.keys(run.context.input.headers).every((k) => k === k.toLowerCase())).toBe(true);
    expect(run.context.trigger).toEqual({ id: "manual", type: "webhook" });
    expect(run.context.run).toEqual({ id: runId });
    const [wf] = await systemQuery("SELECT workflow_id FROM workflow_runs WHERE id = $1", [runId]);
    expect(wf.workflow_id).toBe(id);
  });

  it("a non-JSON body is kept as text; an empty JSON body is null; repeated headers are joined by ', '", async () => {
    const t = await createTenant();
    const { uuid } = await hooks(t, [{ id: "manual", webhook: { methods: ["POST"] } }]);
    const headers = new Headers({ "Content-Type": "text/plain" });
    headers.append("X-Multi", "a");
    headers.append("X-Multi", "b");
    expectAccepted(await call("POST", hookPath(uuid("manual")), { rawBody: "not { json", headers: Object.fromEntries(headers) }));
    expectAccepted(await post(uuid("manual"), ""));
    const runs = await runsOf(t.tenantId);
    expect(runs.map((r) => r.context.input.body)).toEqual(["not { json", null]);
    expect(runs[0].context.input.headers["x-multi"]).toBe("a, b");
    expect(runs[0].context.input.headers["content-type"]).toBe("text/plain");
  });

  it("the trigger's own methods start runs; others are 405 with Allow naming them", async () => {
    const t = await createTenant();
    const { uuid } = await hooks(t, [{ id: "put", webhook: { methods: ["PUT", "DELETE"] } }]);
    expectAccepted(await post(uuid("put"), '{"a":1}', { method: "PUT" }));
    expectAccepted(await call("DELETE", hookPath(uuid("put"))));
    expect((await runsOf(t.tenantId)).map((r) => r.context.input.method)).toEqual(["PUT", "DELETE"]);
    const { err, res } = await refused(t, () => post(uuid("put"), "{}"), 405, "METHOD_NOT_ALLOWED");
    expect(res.headers.get("Allow")).toBe("PUT, DELETE");
    expect(err.details.allowed).toEqual(["PUT", "DELETE"]);
    expect((await refused(t, () => call("GET", hookPath(uuid("put"))), 405, "METHOD_NOT_ALLOWED")).res.headers.get("Allow")).toBe("PUT, DELETE");
  });

  it("an idempotencyKey taken from the body answers the first run again instead of starting another", async () => {
    const t = await createTenant();
    const { uuid } = await hooks(t, [{ id: "dedup", webhook: { methods: ["POST"] }, idempotencyKey: "{{ context.input.body.delivery }}" }]);
    const first = expectAccepted(await post(uuid("dedup"), '{"delivery":"d-1"}'));
    expect(expectAccepted(await post(uuid("dedup"), '{"delivery":"d-1","again":true}'))).toBe(first);
    const other = expectAccepted(await post(uuid("dedup"), '{"delivery":"d-2"}'));
    expect(other).not.toBe(first);
    const runs = await runsOf(t.tenantId);
    expect(runs.map((r) => [r.id, r.idempotency_key])).toEqual([
      [first, "d-1"],
      [other, "d-2"],
    ]);
  });
});

describe("refused calls", () => {
  it("an unknown uuid, a cron trigger's uuid and a disabled trigger are all 404 NOT_FOUND; enabling it again accepts calls", async () => {
    const t = await createTenant();
    const { id, uuid } = await hooks(t, [
      { id: "manual", webhook: { methods: ["POST"] } },
      { id: "tick", cron: "0 * * * *" },
    ]);
    await refused(t, () => post(crypto.randomUUID(), "{}"), 404, "NOT_FOUND");
    await refused(t, () => post(uuid("tick"), "{}"), 404, "NOT_FOUND");
    const off = await call("PUT", `/workflows/${id}/triggers/manual/disable`, { auth: t.auth });
    expect(off.status, off.text).toBe(200);
    const { err } = await refused(t, () => post(uuid("manual"), "{}"), 404, "NOT_FOUND");
    expect(err.message).toBe(`Webhook trigger ${uuid("manual")} not found`);
    expect((await call("PUT", `/workflows/${id}/triggers/manual/enable`, { auth: t.auth })).status).toBe(200);
    expectAccepted(await post(uuid("manual"), "{}"));
  });

  it("a trigger id that is not a uuid is 422 before any lookup", async () => {
    const t = await createTenant();
    const { err } = await refused(t, () => post("not-a-uuid", "{}"), 422, "VALIDATION_FAILED");
    expect(err.details.errors).toEqual(["triggerId: must be a UUID"]);
  });

  it("invalid JSON under a JSON content type is 400; NUL and lone surrogates in the body or the query are 422; none starts a run", async () => {
    const t = await createTenant();
    const { uuid } = await hooks(t, [{ id: "manual", webhook: { methods: ["POST"] } }]);
    const hook = uuid("manual");
    expect((await refused(t, () => post(hook, '{"a":'), 400, "BAD_REQUEST")).err.message).toBe("Request body is not valid JSON");
    expect((await refused(t, () => post(hook, '{"a":"x\\u0000"}'), 422, "VALIDATION_FAILED")).err.details.errors).toEqual([
      "a: must not contain NUL characters or unpaired surrogates",
    ]);
    await refused(t, () => post(hook, '{"a":"\\ud800"}'), 422, "VALIDATION_FAILED");
    const text = await refused(
      t,
      () => call("POST", hookPath(hook), { rawBody: "nul\u0000here", headers: { "Content-Type": "text/plain" } }),
      422,
      "VALIDATION_FAILED",
    );
    expect(text.err.details.errors).toEqual(["body: must not contain NUL characters or unpaired surrogates"]);
    const query = await refused(t, () => post(hook, "{}", { query: "?q=a%00b" }), 422, "VALIDATION_FAILED");
    expect(query.err.details.errors).toEqual(["query.q: must not contain NUL characters or unpaired surrogates"]);
  });
});

describe("challenge", () => {
  it("GET and POST with the query parameter echo its value as text, with no verification and no run", async () => {
    const t = await createTenant();
    const { uuid } = await hooks(t, [
      {
        id: "hub",
        webhook: {
          methods: ["POST"],
          verification: { location: "header", key: "X-Sig", method: "hmac-sha256" },
          challenge: { enabled: true, queryParam: "hub.challenge", responseType: "text/plain" },
        },
      },
    ]);
    for (const method of ["GET", "POST"]) {
      const res = await call(method, hookPath(uuid("hub"), "?hub.challenge=abc%20123&other=1"));
      expect(res.status).toBe(200);
      expect(res.text).toBe("abc 123");
      expect(res.headers.get("Content-Type")).toBe("text/plain");
    }
    expect(await runsOf(t.tenantId)).toEqual([]);
    // Without the parameter the call is an ordinary one: GET is not among its methods, and a POST needs its signature.
    expect((await refused(t, () => call("GET", hookPath(uuid("hub"))), 405, "METHOD_NOT_ALLOWED")).res.headers.get("Allow")).toBe("POST, GET");
    await refused(t, () => post(uuid("hub"), "{}"), 401, "UNAUTHORIZED");
  });

  it("a JSON responseType answers { <queryParam>: <value> }; a challenge not enabled is an ordinary call", async () => {
    const t = await createTenant();
    const { uuid } = await hooks(t, [
      { id: "json", webhook: { methods: ["POST"], challenge: { enabled: true, queryParam: "validationToken", responseType: "application/json" } } },
      { id: "off", webhook: { methods: ["POST"], challenge: { enabled: false, queryParam: "validationToken", responseType: "text/plain" } } },
    ]);
    const res = await call("POST", hookPath(uuid("json"), "?validationToken=tok-9"));
    expect(res.status).toBe(200);
    expect(res.headers.get("Content-Type")).toBe("application/json");
    expect(res.json).toEqual({ validationToken: "tok-9" });
    expect(await runsOf(t.tenantId)).toEqual([]);
    expectAccepted(await post(uuid("off"), "{}", { query: "?validationToken=tok-9" }));
    expect((await runsOf(t.tenantId))[0].context.input.query).toEqual({ validationToken: "tok-9" });
  });
});

describe("verification", () => {
  const body = '{"event":"push","ref":"main"}';

  it("before a secret is minted every call is 401, saying so; the activation reports secret_missing", async () => {
    const t = await createTenant();
    const { uuid, activation } = await hooks(t, [
      { id: "signed", webhook: { methods: ["POST"], verification: { location: "header", key: "X-Sig", method: "hmac-sha256" } } },
    ]);
    expect(activation.triggers[0].config_status).toBe("secret_missing");
    const { err } = await refused(t, () => post(uuid("signed"), body, { headers: { "X-Sig": "00".repeat(32) } }), 401, "UNAUTHORIZED");
    expect(err.message).toBe(`Webhook trigger ${uuid("signed")} has no secret yet, so no signature can be checked`);
  });

  it("hmac-sha256 in a header: bare, sha256=-prefixed and uppercase hex pass; a wrong one, sha1= and a missing header are 401", async () => {
    const t = await createTenant();
    const { id, uuid } = await hooks(t, [
      { id: "signed", webhook: { methods: ["POST"], verification: { location: "header", key: "X-Hub-Signature-256", method: "hmac-sha256" } } },
    ]);
    const secret = await mintSecret(t, id, "signed");
    const hex = await hexHmac("SHA-256", secret, body);
    for (const sig of [hex, `sha256=${hex}`, hex.toUpperCase()]) expectAccepted(await post(uuid("signed"), body, { headers: { "X-Hub-Signature-256": sig } }));
    expect(await runsOf(t.tenantId)).toHaveLength(3);
    const wrong = await refused(t, () => post(uuid("signed"), body, { headers: { "X-Hub-Signature-256": `sha256=${"ab".repeat(32)}` } }), 401, "UNAUTHORIZED");
    expect(wrong.err.message).toBe("The signature (header X-Hub-Signature-256) is not the hmac-sha256 of the body as hex");
    expect(wrong.res.text).not.toContain(secret);
    expect(wrong.res.text).not.toContain(hex);
    // The signature of another body.
    await refused(t, () => post(uuid("signed"), `${body} `, { headers: { "X-Hub-Signature-256": hex } }), 401, "UNAUTHORIZED");
    const prefix = await refused(t, () => post(uuid("signed"), body, { headers: { "X-Hub-Signature-256": `sha1=${hex}` } }), 401, "UNAUTHORIZED");
    expect(prefix.err.message).toBe("The signature (header X-Hub-Signature-256) is prefixed sha1= but the trigger verifies hmac-sha256");
    const missing = await refused(t, () => post(uuid("signed"), body), 401, "UNAUTHORIZED");
    expect(missing.err.message).toBe("The signature (header X-Hub-Signature-256) is missing");
  });

  it("hmac-sha1 in the query parameter passes with and without sha1=; a sha256 there is 401", async () => {
    const t = await createTenant();
    const { id, uuid } = await hooks(t, [
      { id: "q", webhook: { methods: ["POST"], verification: { location: "query", key: "signature", method: "hmac-sha1" } } },
    ]);
    const secret = await mintSecret(t, id, "q");
    const hex = await hexHmac("SHA-1", secret, body);
    expectAccepted(await post(uuid("q"), body, { query: `?signature=${hex}` }));
    expectAccepted(await post(uuid("q"), body, { query: `?signature=sha1=${hex}` }));
    const sha256 = await hexHmac("SHA-256", secret, body);
    await refused(t, () => post(uuid("q"), body, { query: `?signature=${sha256}` }), 401, "UNAUTHORIZED");
    const wrongKey = await hexHmac("SHA-1", "whsec_wrong", body);
    await refused(t, () => post(uuid("q"), body, { query: `?signature=${wrongKey}` }), 401, "UNAUTHORIZED");
    // The run sees the query as sent, signature included.
    expect((await runsOf(t.tenantId))[0].context.input.query).toEqual({ signature: hex });
  });

  it("exact in a header, a query parameter and a dotted body field: the secret passes, anything else is 401", async () => {
    const t = await createTenant();
    const { id, uuid } = await hooks(t, [
      { id: "h", webhook: { methods: ["POST"], verification: { location: "header", key: "X-Token", method: "exact" } } },
      { id: "q", webhook: { methods: ["POST"], verification: { location: "query", key: "token", method: "exact" } } },
      { id: "b", webhook: { methods: ["POST"], verification: { location: "body", key: "auth.token", method: "exact" } } },
    ]);
    const [h, q, b] = [await mintSecret(t, id, "h"), await mintSecret(t, id, "q"), await mintSecret(t, id, "b")];
    expect(new Set([h, q, b]).size).toBe(3);
    expectAccepted(await post(uuid("h"), "{}", { headers: { "X-Token": h } }));
    await refused(t, () => post(uuid("h"), "{}", { headers: { "X-Token": q } }), 401, "UNAUTHORIZED");
    expectAccepted(await post(uuid("q"), "{}", { query: `?token=${q}` }));
    await refused(t, () => post(uuid("q"), "{}", { query: `?token=${q}x` }), 401, "UNAUTHORIZED");
    expectAccepted(await post(uuid("b"), JSON.stringify({ auth: { token: b }, n: 1 })));
    await refused(t, () => post(uuid("b"), JSON.stringify({ auth: { token: h } })), 401, "UNAUTHORIZED");
    const missing = await refused(t, () => post(uuid("b"), JSON.stringify({ token: b })), 401, "UNAUTHORIZED");
    expect(missing.err.message).toBe("The signature (body field auth.token) is missing");
    expect((await runsOf(t.tenantId)).map((r) => r.trigger_key)).toEqual(["h", "q", "b"]);
  });
});

describe("secrets", () => {
  it("rotation takes effect at once: the old secret is 401 from the next call, the new one passes; by definition id or uuid", async () => {
    const t = await createTenant();
    const { id, uuid } = await hooks(t, [
      { id: "signed", webhook: { methods: ["POST"], verification: { location: "header", key: "X-Sig", method: "hmac-sha256" } } },
    ]);
    const first = await mintSecret(t, id, "signed");
    const sign = async (secret: string) => ({ "X-Sig": await hexHmac("SHA-256", secret, "{}") });
    expectAccepted(await post(uuid("signed"), "{}", { headers: await sign(first) }));
    const second = await mintSecret(t, id, uuid("signed"));
    expect(second).not.toBe(first);
    await refused(t, () => post(uuid("signed"), "{}", { headers: { "X-Sig": "" } }), 401, "UNAUTHORIZED");
    const old = await sign(first);
    await refused(t, () => post(uuid("signed"), "{}", { headers: old }), 401, "UNAUTHORIZED");
    expectAccepted(await post(uuid("signed"), "{}", { headers: await sign(second) }));
  });

  it("is stored sealed: the column holds neither the secret nor its text, and differs for the same trigger on each mint", async () => {
    const t = await createTenant();
    const { id, uuid } = await hooks(t, [{ id: "signed", webhook: { methods: ["POST"], verification: { location: "query", key: "t", method: "exact" } } }]);
    const secret = await mintSecret(t, id, "signed");
    const [row] = await systemQuery(
      "SELECT encode(secret_ciphertext, 'hex') AS hex, octet_length(secret_ciphertext) AS len FROM workflow_triggers WHERE id = $1",
      [uuid("signed")],
    );
    expect(row.len).toBe(1 + 12 + secret.length + 16);
    const plainHex = [...encoder.encode(secret)].map((x) => x.toString(16).padStart(2, "0")).join("");
    expect(row.hex).not.toContain(plainHex);
    expect(row.hex).not.toContain(plainHex.slice(14, 40));
    const rotated = await mintSecret(t, id, "signed");
    const [again] = await systemQuery("SELECT encode(secret_ciphertext, 'hex') AS hex FROM workflow_triggers WHERE id = $1", [uuid("signed")]);
    expect(again.hex).toMatch(/^01[0-9a-f]+$/);
    expect(again.hex).not.toBe(row.hex);
    await refused(t, () => post(uuid("signed"), "{}", { query: `?t=${secret}` }), 401, "UNAUTHORIZED");
    // A ciphertext moved to another trigger does not open there, even for the right secret: a server fault, never a pass.
    const { uuid: other } = await hooks(t, [{ id: "copy", webhook: { methods: ["POST"], verification: { location: "query", key: "t", method: "exact" } } }]);
    await systemQuery("UPDATE workflow_triggers SET secret_ciphertext = (SELECT secret_ciphertext FROM workflow_triggers WHERE id = $1) WHERE id = $2", [
      uuid("signed"),
      other("copy"),
    ]);
    await refused(t, () => post(other("copy"), "{}", { query: `?t=${rotated}` }), 500, "INTERNAL_ERROR");
    expect((await runsOf(t.tenantId)).length).toBe(0);
  });

  it("is 404 for a trigger that declares no verification, an unknown trigger, and another tenant's workflow or trigger; nothing is written", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const { id, uuid } = await hooks(t, [
      { id: "manual", webhook: { methods: ["POST"] } },
      { id: "signed", webhook: { methods: ["POST"], verification: { location: "header", key: "X-Sig", method: "exact" } } },
    ]);
    const secretRoute = (creds: TenantCreds, wf: string, ref: string) => call("POST", `/workflows/${wf}/triggers/${ref}/secret`, { auth: creds.auth });
    const secrets = () => systemQuery("SELECT key, secret_ciphertext IS NOT NULL AS has FROM workflow_triggers WHERE workflow_id = $1 ORDER BY key", [id]);
    const before = await secrets();
    expect(expectError(await secretRoute(t, id, "manual"), 404, "NOT_FOUND").message).toBe(
      `Trigger manual of workflow ${id} declares no webhook verification, so it has no secret`,
    );
    expectError(await secretRoute(t, id, "nope"), 404, "NOT_FOUND");
    expectError(await secretRoute(t, id, crypto.randomUUID()), 404, "NOT_FOUND");
    expectError(await secretRoute(other, id, "signed"), 404, "NOT_FOUND");
    expectError(await secretRoute(other, id, uuid("signed")), 404, "NOT_FOUND");
    const { id: otherWf } = await hooks(other, [{ id: "x", webhook: { methods: ["POST"] } }]);
    expectError(await secretRoute(t, otherWf, uuid("signed")), 404, "NOT_FOUND");
    expect(expectError(await secretRoute(t, id, "bad%00ref"), 422, "VALIDATION_FAILED").details.errors).toEqual([
      "triggerId: must not contain NUL characters or unpaired surrogates",
    ]);
    expectError(await secretRoute(t, "not-a-uuid", "signed"), 422, "VALIDATION_FAILED");
    expect(await secrets()).toEqual(before);
    expect(before).toEqual([
      { key: "manual", has: false },
      { key: "signed", has: false },
    ]);
  });

  it("needs workflow:update", async () => {
    const t = await createTenant();
    const { id } = await hooks(t, [{ id: "signed", webhook: { methods: ["POST"], verification: { location: "header", key: "X-Sig", method: "exact" } } }]);
    await createRole(t, "wf-reader", ["workflow:read"]);
    const reader = await mintWithRoles(t, ["wf-reader"]);
    const err = expectError(await call("POST", `/workflows/${id}/triggers/signed/secret`, { auth: reader.auth }), 403, "FORBIDDEN");
    expect(err.details).toMatchObject({ resource: "workflow", action: "update" });
  });
});
