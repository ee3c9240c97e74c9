// The `http` action in real runs: dispatched through the API, walked by the
// run's object, sent to the scripted outbound server; time moves by firing
// the run's alarm, never by sleeping.
import { describe, expect, it } from "vitest";
import { call, createTenant } from "../support/api";
import { scenario } from "../support/outbound";
import { policyGranting } from "./actions-support";
import { alarmOf } from "./orchestrator-support";
import { fireDue, firstAction, runActions } from "./outbound-support";

describe("http: the request and its result", () => {
  it("sends method, headers and the query added to the URL's own query, and answers status, headers and the parsed JSON body", async () => {
    const t = await createTenant();
    const s = await scenario({ "/items": [{ status: 200, json: { items: [1, 2] }, headers: { "x-answer": "yes" } }] });
    const { run } = await runActions(
      t,
      [{ stepId: "get", name: "http", config: { url: "{{ input.url }}", headers: { "X-Custom": "{{ input.n }}" }, query: { b: "two", n: "{{ input.n }}" } } }],
      { input: { url: s.url("/items?a=1"), n: 7 } },
    );
    expect(run.status, JSON.stringify(run)).toBe("success");
    expect(run.outputs.call.get.status).toBe(200);
    expect(run.outputs.call.get.body).toEqual({ items: [1, 2] });
    expect(run.outputs.call.get.headers["x-answer"]).toBe("yes");
    const [seen] = await s.requests();
    expect([seen.method, seen.path, seen.headers["x-custom"], seen.body]).toEqual(["GET", "/items?a=1&b=two&n=7", "7", ""]);
  });

  it("sends a JSON body as JSON with its content type, and a string body as written; a text answer is text", async () => {
    const t = await createTenant();
    const s = await scenario({
      "/json": [{ status: 201, body: "created", headers: { "content-type": "text/plain" } }],
      "/text": [{ status: 200, body: "ok" }],
    });
    const { run } = await runActions(
      t,
      [
        { stepId: "json", name: "http", config: { url: s.url("/json"), method: "POST", body: { order: "{{ input.n }}", tags: ["a"] } } },
        { stepId: "text", name: "http", config: { url: s.url("/text"), method: "PUT", headers: { "Content-Type": "text/csv" }, body: "a,b\n1,2" } },
      ],
      { input: { n: 42 } },
    );
    expect(run.status, JSON.stringify(run)).toBe("success");
    expect([run.outputs.call.json.status, run.outputs.call.json.body]).toEqual([201, "created"]);
    const [json, text] = await s.requests();
    expect([json.method, json.headers["content-type"], JSON.parse(json.body)]).toEqual(["POST", "application/json", { order: 42, tags: ["a"] }]);
    expect([text.method, text.headers["content-type"], text.body]).toEqual(["PUT", "text/csv", "a,b\n1,2"]);
  });

  it("returns a 3xx with its location under redirect: manual, and follows it by default", async () => {
    const t = await createTenant();
    const s = await scenario({ "/from": [{ status: 302, headers: { location: "/s/x/to" } }] });
    const target = await scenario({ "/to": [{ status: 200, json: { landed: true } }] });
    const s2 = await scenario({ "/from": [{ status: 302, headers: { location: target.url("/to") } }] });
    const { run } = await runActions(t, [
      { stepId: "manual", name: "http", config: { url: s.url("/from"), redirect: "manual" } },
      { stepId: "follow", name: "http", config: { url: s2.url("/from") } },
    ]);
    expect(run.status, JSON.stringify(run)).toBe("success");
    expect([run.outputs.call.manual.status, run.outputs.call.manual.headers.location]).toEqual([302, "/s/x/to"]);
    expect(run.outputs.call.follow).toMatchObject({ status: 200, body: { landed: true } });
  });
});

describe("http: errorWhen", () => {
  it("fails on a 4xx by default, with the result in the error", async () => {
    const t = await createTenant();
    const s = await scenario({ "/missing": [{ status: 404, json: { error: "nope" } }] });
    const { run } = await runActions(t, [{ stepId: "get", name: "http", config: { url: s.url("/missing") } }]);
    expect(run.status).toBe("error");
    const action = firstAction(run);
    expect([action.status, action.attempts, action.error.code, action.error.details.result.status]).toEqual(["error", 1, "UNPROCESSABLE_ENTITY", 404]);
    expect(action.logError).toEqual(action.error);
  });

  it("a written errorWhen replaces the default: a 404 is accepted, a body flag fails", async () => {
    const t = await createTenant();
    const s = await scenario({ "/missing": [{ status: 404, body: "none" }], "/flag": [{ status: 200, json: { ok: false } }] });
    const { run } = await runActions(t, [
      { stepId: "lookup", name: "http", config: { url: s.url("/missing") }, errorWhen: "result.status >= 500" },
      { stepId: "flag", name: "http", config: { url: s.url("/flag") }, errorWhen: "result.body.ok = false" },
    ]);
    expect(run.job_runs[0].action_runs.map((a: any) => [a.step_id, a.status])).toEqual([
      ["lookup", "success"],
      ["flag", "error"],
    ]);
  });
});

describe("http: retries", () => {
  it("retries a 503 at the back-off its alarm is set for, as new attempts, until the answer", async () => {
    const t = await createTenant();
    const s = await scenario({ "/flaky": [{ status: 503 }, { status: 429 }, { status: 200, json: { done: true } }] });
    const before = Date.now();
    const { runId, run } = await runActions(t, [{ stepId: "get", name: "http", config: { url: s.url("/flaky") } }]);
    expect([run.status, firstAction(run).status]).toEqual(["running", "waiting"]);
    const due = (await alarmOf(runId))!;
    // The first back-off lies between the initial delay (15 s) and twice it.
    expect(due - before).toBeGreaterThanOrEqual(15_000);
    expect(due - Date.now()).toBeLessThanOrEqual(30_000);
    expect(firstAction(await fireDue(t, runId)).status).toBe("waiting");
    const done = await fireDue(t, runId);
    expect(done.status).toBe("success");
    expect([firstAction(done).attempts, done.outputs.call.get.body]).toEqual([3, { done: true }]);
    expect((await s.requests()).length).toBe(3);
  });

  it("after the last of maxRetries a 5xx is the result, failed by errorWhen", async () => {
    const t = await createTenant();
    const s = await scenario({ "/down": [{ status: 500, body: "boom" }] });
    const { runId } = await runActions(t, [{ stepId: "get", name: "http", config: { url: s.url("/down"), maxRetries: 1 } }]);
    const done = await fireDue(t, runId);
    const action = firstAction(done);
    expect([done.status, action.attempts, action.error.details.result.status, action.error.details.result.body]).toEqual(["error", 2, 500, "boom"]);
    expect((await s.requests()).length).toBe(2);
  });

  it("maxRetries 0 sends once", async () => {
    const t = await createTenant();
    const s = await scenario({ "/down": [{ status: 503 }] });
    const { run } = await runActions(t, [{ stepId: "get", name: "http", config: { url: s.url("/down"), maxRetries: 0 } }]);
    expect([run.status, firstAction(run).attempts]).toEqual(["error", 1]);
    expect((await s.requests()).length).toBe(1);
  });

  it("retries a failed connection, then fails with OUTBOUND_CONNECTION_FAILED after the last attempt", async () => {
    const t = await createTenant();
    // Port 1 is allowlisted in the tests and nothing listens on it.
    const { runId, run } = await runActions(t, [{ stepId: "get", name: "http", config: { url: "http://127.0.0.1:1/x", maxRetries: 1 } }]);
    expect([run.status, firstAction(run).status, firstAction(run).attempts]).toEqual(["running", "waiting", 2]);
    const done = await fireDue(t, runId);
    const action = firstAction(done);
    expect([done.status, action.attempts, action.error.status, action.error.code, action.error.details.code]).toEqual([
      "error",
      2,
      400,
      "BAD_REQUEST",
      "OUTBOUND_CONNECTION_FAILED",
    ]);
    expect(await alarmOf(runId)).toBeNull();
  });

  it("never retries a timeout: the action fails with OUTBOUND_TIMEOUT after one request", async () => {
    const t = await createTenant();
    const s = await scenario({ "/slow": [{ status: 200, delayMs: 1500 }] });
    const { runId, run } = await runActions(t, [{ stepId: "get", name: "http", config: { url: s.url("/slow"), timeoutMs: 1000 } }]);
    const action = firstAction(run);
    expect([run.status, action.attempts, action.error.status, action.error.code, action.error.details.code]).toEqual([
      "error",
      1,
      400,
      "BAD_REQUEST",
      "OUTBOUND_TIMEOUT",
    ]);
    expect(await alarmOf(runId)).toBeNull();
    expect((await s.requests()).length).toBe(1);
  });
});

describe("http: refused configs and targets", () => {
  it("a templated knob out of range fails the action with the field's path, and sends nothing", async () => {
    const t = await createTenant();
    const s = await scenario({ "/x": [{ status: 200 }] });
    const { run } = await runActions(
      t,
      [
        { stepId: "a", name: "http", config: { url: s.url("/x"), timeoutMs: "{{ input.t }}", maxRetries: "{{ input.r }}" }, errorPolicy: "continue" },
        { stepId: "b", name: "http", config: { url: s.url("/x"), initialRetryDelayMs: "{{ input.i }}" }, errorPolicy: "continue" },
        { stepId: "c", name: "http", config: { url: "{{ input.n }}", headers: { "X-Obj": "{{ input.obj }}" } }, errorPolicy: "continue" },
      ],
      { input: { t: 999, r: 6, i: 90_000, n: 5, obj: { a: 1 } } },
    );
    const [a, b, c] = run.job_runs[0].action_runs;
    expect(a.error.code).toBe("VALIDATION_FAILED");
    expect(a.error.details.errors).toEqual(["config.timeoutMs: 999 is less than 1000", "config.maxRetries: 6 is greater than 5"]);
    expect(b.error.details.errors).toEqual(["config.maxRetryDelayMs: must be at least initialRetryDelayMs (90000)"]);
    expect(c.error.details.errors.join("\n")).toMatch(/config\.url: .*string/);
    expect(c.error.details.errors.join("\n")).toMatch(/config\.headers\.X-Obj/);
    expect(await s.requests()).toEqual([]);
  });

  it("refuses a body on GET (the default method) and HEAD with the body's path, sending nothing; POST takes it", async () => {
    const t = await createTenant();
    const s = await scenario({ "/x": [{ status: 200 }] });
    const { run } = await runActions(t, [
      // Templated bodies, so the save leaves them to the run: a literal config the schema refuses is refused at save.
      { stepId: "a", name: "http", config: { url: s.url("/x"), body: { $jsonata: "{ 'q': 1 }" } }, errorPolicy: "continue" },
      { stepId: "b", name: "http", config: { url: s.url("/x"), method: "HEAD", body: "{{ 'x' }}" }, errorPolicy: "continue" },
      { stepId: "c", name: "http", config: { url: s.url("/x"), method: "POST", body: "x" } },
    ]);
    const [a, b, c] = run.job_runs[0].action_runs;
    expect(a.error.details.errors).toEqual(["config.body: is not allowed"]);
    expect(b.error.details.errors).toEqual(["config.body: is not allowed"]);
    expect(c.status).toBe("success");
    expect((await s.requests()).map((r) => [r.method, r.body])).toEqual([["POST", "x"]]);
  });

  it("refuses the cloud metadata address with OUTBOUND_TARGET_REFUSED, recorded on the run", async () => {
    const t = await createTenant();
    const { runId, run } = await runActions(t, [{ stepId: "meta", name: "http", config: { url: "{{ input.url }}" } }], {
      input: { url: "http://169.254.169.254/latest/meta-data/" },
    });
    const action = firstAction(run);
    expect([run.status, action.error.status, action.error.code, action.error.details.code]).toEqual(["error", 400, "BAD_REQUEST", "OUTBOUND_TARGET_REFUSED"]);
    expect(action.logError.details.code).toBe("OUTBOUND_TARGET_REFUSED");
    expect(await alarmOf(runId)).toBeNull();
  });

  it("fails a response over 1 MiB", async () => {
    const t = await createTenant();
    const s = await scenario({ "/big": [{ status: 200, body: "x".repeat(1024 * 1024 + 1) }] });
    const { run } = await runActions(t, [{ stepId: "big", name: "http", config: { url: s.url("/big") } }]);
    expect(firstAction(run).error.details.code).toBe("OUTBOUND_RESPONSE_TOO_LARGE");
  });
});

describe("http: binaryUpload", () => {
  async function tempFile(t: Awaited<ReturnType<typeof createTenant>>, bytes: Uint8Array, type: string) {
    const res = await call("POST", "/entity/temp-files", { auth: t.auth, rawBody: bytes, headers: { "Content-Type": type, "X-Temp-File-Name": "scan.bin" } });
    if (res.status !== 201) throw new Error(`temp file: ${res.status} ${res.text}`);
    return res.json.data.id as string;
  }

  it("sends the temp file's bytes with its content type, when the run's policy may read entities", async () => {
    const t = await createTenant();
    const s = await scenario({ "/upload": [{ status: 200, json: { stored: true } }] });
    const id = await tempFile(t, new TextEncoder().encode("%PDF-1.7 bytes"), "application/pdf");
    const policy_id = await policyGranting(t, ["entity:read"]);
    const { run } = await runActions(
      t,
      [{ stepId: "up", name: "http", config: { url: s.url("/upload"), method: "PUT", binaryUpload: { tempFileId: "{{ input.id }}" } } }],
      {
        input: { id },
        policy_id,
      },
    );
    expect(run.status, JSON.stringify(run)).toBe("success");
    const [seen] = await s.requests();
    expect([seen.method, seen.headers["content-type"], seen.body]).toEqual(["PUT", "application/pdf", "%PDF-1.7 bytes"]);
  });

  it("refuses without entity:read (403), an unknown or other tenant's file (404), and a body beside it (422)", async () => {
    const t = await createTenant();
    const other = await createTenant();
    const s = await scenario({ "/upload": [{ status: 200 }] });
    const mine = await tempFile(t, new Uint8Array([1, 2, 3]), "application/octet-stream");
    const theirs = await tempFile(other, new Uint8Array([4]), "application/octet-stream");
    const policy_id = await policyGranting(t, ["entity:read"]);
    const up = (stepId: string, id: string, extra = {}) => ({
      stepId,
      name: "http",
      config: { url: s.url("/upload"), method: "POST", binaryUpload: { tempFileId: id }, ...extra },
      errorPolicy: "continue",
    });
    const { run } = await runActions(t, [up("theirs", theirs), up("unknown", crypto.randomUUID()), up("both", mine, { body: "x" })], { policy_id });
    expect(run.job_runs[0].action_runs.map((a: any) => [a.step_id, a.error?.code])).toEqual([
      ["theirs", "NOT_FOUND"],
      ["unknown", "NOT_FOUND"],
      ["both", "VALIDATION_FAILED"],
    ]);
    // No policy (null unbinds; left out, the activation would provision the entity:read the action declares).
    const { run: unpermitted } = await runActions(t, [up("mine", mine)], { policy_id: null });
    expect(firstAction(unpermitted).error).toMatchObject({ status: 403, code: "FORBIDDEN", details: { resource: "entity", action: "read" } });
    expect(await s.requests()).toEqual([]);
  });
});
