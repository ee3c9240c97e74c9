// `npm run dev` end to end, as a user runs it: the real scripts/dev.mjs
// (embedded Postgres, the WebSocket bridge, migrations, `wrangler dev`) on a
// free port with its own data folder, `npm run tenant:create` against it, and
// requests over TCP. Stopping it must take wrangler and Postgres down too.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { randomUUID } from "node:crypto";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { freePort } from "./ports";
import { alive, processes, processTree, sameProcess, sleep, userEnv, waitFor, type Proc } from "./processes";
import { openPool, useWsProxy } from "../../scripts/lib/db.mjs";
import { EventSource } from "eventsource";

const root = fileURLToPath(new URL("../..", import.meta.url));
const READY_TIMEOUT_MS = 120_000;
const STOP_TIMEOUT_MS = 30_000;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
/** The cron period dev runs with here, so a tick is seconds away instead of a minute. */
const CRON_INTERVAL_MS = 1000;

const run = promisify(execFile);

let dataDir = "";
let port = 0;
let dev: ChildProcess | undefined;
let devExit: Promise<{ code: number | null; signal: NodeJS.Signals | null }> | undefined;
let output = "";
let env: NodeJS.ProcessEnv = {};
/** Every process dev started (wrangler, workerd, esbuild, Postgres…), gathered while it ran. */
const started: Proc[] = [];

async function recordTree() {
  if (!dev?.pid) return;
  for (const p of await processTree(dev.pid)) if (!started.some((q) => sameProcess(p, q))) started.push(p);
}

function keep(chunk: Buffer) {
  output = (output + chunk.toString("utf8")).slice(-20_000);
}

const devRunning = () => !!dev && dev.exitCode === null && dev.signalCode === null;
const base = () => `http://127.0.0.1:${port}`;

function basic(clientId: string, clientSecret: string) {
  return `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString("base64")}`;
}

async function getJson(path: string, headers: Record<string, string> = {}) {
  const res = await fetch(`${base()}${path}`, { headers, signal: AbortSignal.timeout(10_000) });
  const text = await res.text();
  let json: any;
  try {
    json = JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text };
}

/**
 * A POST whose body is `size` bytes of `chunk` repeated after `head`, sent
 * chunked (no Content-Length) as fast as the server takes it; the answer as
 * soon as it comes, even while the body is still being sent.
 */
function sendChunked(path: string, headers: Record<string, string>, head: string, chunk: string, size: number) {
  return new Promise<{ status: number; json: any; text: string }>((resolve, reject) => {
    const req = http.request(
      { host: "127.0.0.1", port, method: "POST", path, headers: { ...headers, "Transfer-Encoding": "chunked" }, timeout: 20_000 },
      (res) => {
        let text = "";
        res.setEncoding("utf8");
        res.on("data", (d) => (text += d));
        res.on("end", () => {
          let json: any;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode ?? 0, json, text });
        });
      },
    );
    req.on("timeout", () => req.destroy(new Error("no answer within 20 s")));
    req.on("error", reject);
    const block = Buffer.from(chunk.repeat(Math.ceil((64 * 1024) / chunk.length)));
    let sent = 0;
    const write = () => {
      if (sent === 0) req.write(head);
      while (sent < size) {
        sent += block.length;
        if (!req.write(block)) return void req.once("drain", write);
      }
      req.end();
    };
    write();
  });
}

/** A local server a workflow calls, as a user's own service would be: it records what it got. */
const received: { path: string; headers: http.IncomingHttpHeaders; body: string }[] = [];
let target: http.Server | undefined;
let targetPort = 0;

beforeAll(async () => {
  mkdirSync(join(root, ".data"), { recursive: true });
  dataDir = mkdtempSync(join(root, ".data", "e2e-"));
  port = await freePort();
  target = http.createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (d) => (body += d));
    req.on("end", () => {
      received.push({ path: req.url ?? "", headers: req.headers, body });
      res.writeHead(200, { "Content-Type": "application/json" }).end(JSON.stringify({ ok: true, path: req.url }));
    });
  });
  await new Promise<void>((r) => target!.listen(0, "127.0.0.1", r));
  targetPort = (target.address() as { port: number }).port;
  env = userEnv({
    PORT: String(port),
    INSPECTOR_PORT: String(await freePort()),
    DEV_DATA_DIR: dataDir,
    DEV_CRON_INTERVAL_MS: String(CRON_INTERVAL_MS),
    OUTBOUND_ALLOWLIST: `127.0.0.1:${targetPort}`,
  });

  // Its own process group, so it can be signalled the way a terminal's Ctrl-C signals a foreground job.
  dev = spawn(process.execPath, ["scripts/dev.mjs"], { cwd: root, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  dev.stdout!.on("data", keep);
  dev.stderr!.on("data", keep);
  const child = dev;
  devExit = new Promise((resolve) => child.once("exit", (code, signal) => resolve({ code, signal })));

  const ready = await waitFor(
    async () => {
      if (!devRunning()) throw new Error(`npm run dev exited early (code ${dev?.exitCode}):\n${output}`);
      try {
        const res = await getJson("/healthz");
        return res.status === 200 && res.json?.data?.database === "reachable";
      } catch {
        return false;
      }
    },
    READY_TIMEOUT_MS,
    250,
  );
  if (!ready) throw new Error(`npm run dev did not answer /healthz within ${READY_TIMEOUT_MS / 1000} s:\n${output}`);
  await recordTree();
});

/**
 * Stops dev with `signal`, sent to dev alone ("pid", as `kill <pid>` does) or
 * to its whole process group ("group", as a terminal's Ctrl-C does), waits
 * for it to exit, and lists what is wrong: a slow or failed exit, a process
 * it started that outlived it (wrangler, workerd, esbuild, Postgres), or a
 * Postgres still running on its data folder.
 */
async function stopDev(target: "pid" | "group", signal: NodeJS.Signals): Promise<string[]> {
  const problems: string[] = [];
  const pid = dev?.pid;
  if (pid && devRunning()) {
    await recordTree();
    process.kill(target === "group" ? -pid : pid, signal);
    const exited = await Promise.race([devExit, sleep(STOP_TIMEOUT_MS).then(() => null)]);
    if (!exited) {
      problems.push(`npm run dev did not exit within ${STOP_TIMEOUT_MS / 1000} s of ${signal}`);
      process.kill(-pid, "SIGKILL");
    } else if (exited.code !== 0) {
      problems.push(`npm run dev exited with code ${exited.code} (signal ${exited.signal}) on ${signal}`);
    }
  }
  const survivors = async () => (await processes()).filter((p) => alive(p) && started.some((q) => sameProcess(p, q)));
  if (!(await waitFor(async () => (await survivors()).length === 0, 10_000))) {
    const left = await survivors();
    problems.push(`processes started by npm run dev survived it: ${left.map((p) => `${p.pid} ${p.args}`).join("; ")}`);
    for (const p of left) process.kill(p.pid, "SIGKILL");
  }
  if (dataDir) {
    const pgDir = join(dataDir, "pg");
    const postgresLeft = async () => (await processes()).filter((p) => alive(p) && p.args.includes(pgDir));
    if (!(await waitFor(async () => (await postgresLeft()).length === 0, 10_000))) {
      const left = await postgresLeft();
      problems.push(`embedded Postgres survived: ${left.map((p) => `${p.pid} ${p.args}`).join("; ")}`);
      for (const p of left) process.kill(p.pid, "SIGKILL");
    } else if (existsSync(join(pgDir, "postmaster.pid"))) {
      problems.push("postmaster.pid is still there: Postgres was not shut down cleanly");
    }
  }
  return problems;
}

afterAll(async () => {
  let problems: string[] = [];
  try {
    // Normally the last test has stopped dev already; this is the safety net.
    problems = await stopDev("group", "SIGTERM");
  } finally {
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
    target?.close();
  }
  if (problems.length) throw new Error(`${problems.join("\n")}\n--- npm run dev output ---\n${output}`);
});

describe("npm run dev", () => {
  let creds: { tenant_id: string; user_id: string; client_id: string; client_secret: string };

  it("serves /healthz on 127.0.0.1:$PORT with the database reachable", async () => {
    const res = await getJson("/healthz");
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: { status: "ok", database: "reachable" } });
    expect(res.headers.get("X-Request-Id")).toBeTruthy();
  });

  it("npm run tenant:create prints exactly one JSON line with the new tenant's PAT", async () => {
    const { stdout } = await run(process.execPath, ["scripts/tenant-create.mjs", "--name", "e2e"], { cwd: root, env, timeout: 60_000 });
    expect(stdout.endsWith("\n")).toBe(true);
    const lines = stdout.slice(0, -1).split("\n");
    expect(lines).toHaveLength(1);
    creds = JSON.parse(lines[0]);
    expect(Object.keys(creds).sort()).toEqual(["client_id", "client_secret", "tenant_id", "user_id"]);
    expect(creds.tenant_id).toMatch(UUID);
    expect(creds.user_id).toMatch(UUID);
    expect(creds.client_id).toEqual(expect.any(String));
    expect(creds.client_secret).toEqual(expect.any(String));
    expect(creds.client_id.length).toBeGreaterThan(0);
    expect(creds.client_secret.length).toBeGreaterThan(0);
  });

  it("accepts that PAT over Basic auth and reports every permission", async () => {
    expect(creds, "tenant:create must have succeeded").toBeDefined();
    const res = await getJson("/access/me/permissions", { Authorization: basic(creds.client_id, creds.client_secret) });
    expect(res.status).toBe(200);
    expect(res.json).toEqual({ data: { permissions: ["*:*"] } });
  });

  it("refuses a wrong secret with the 401 envelope", async () => {
    expect(creds, "tenant:create must have succeeded").toBeDefined();
    const res = await getJson("/access/me/permissions", { Authorization: basic(creds.client_id, `${creds.client_secret}x`) });
    expect(res.status).toBe(401);
    expect(res.json).toEqual({
      error: { status: 401, code: "UNAUTHORIZED", message: expect.any(String), details: expect.any(Object) },
    });
  });

  it("fires the every-minute cron trigger by itself: an event whose queue send was lost gets delivered", async () => {
    expect(creds, "tenant:create must have succeeded").toBeDefined();
    const state = JSON.parse(readFileSync(join(dataDir, "dev.json"), "utf8"));
    useWsProxy(state.wsProxy);
    const pool = openPool(state.databaseUrl, 1);
    try {
      // What a commit leaves when the send to the queue that follows it is lost: an outbox row, older than the grace period.
      const eventId = randomUUID();
      await pool.query("INSERT INTO event_outbox (event_id, tenant_id, created_at) VALUES ($1, $2, now() - interval '1 hour')", [eventId, creds.tenant_id]);
      const delivered = await waitFor(
        async () => (await pool.query("SELECT 1 FROM event_deliveries WHERE event_id = $1", [eventId])).rows.length === 1,
        20 * CRON_INTERVAL_MS,
      );
      expect(delivered, `--- npm run dev output ---\n${output}`).toBe(true);
      expect((await pool.query("SELECT count(*)::int AS n FROM event_outbox WHERE event_id = $1", [eventId])).rows).toEqual([{ n: 0 }]);
    } finally {
      await pool.end();
    }
  });

  it("answers a body refused before it fully arrived with its 4xx, and serves the next request", async () => {
    expect(creds, "tenant:create must have succeeded").toBeDefined();
    const auth = basic(creds.client_id, creds.client_secret);
    const type = await fetch(`${base()}/entity/entity-types`, {
      method: "POST",
      headers: { Authorization: auth, "Content-Type": "application/json" },
      body: JSON.stringify({
        name: "Row",
        status: "active",
        schema: { type: "object", required: ["n"], properties: { n: { type: "integer" } } },
        config: { identifier_key: ["n"] },
      }),
    });
    expect(type.status).toBe(201);
    const importConfig = encodeURIComponent(JSON.stringify({ entity_type_name: "Row" }));
    const refusals = [
      {
        what: "a 3 MB body to a 1 MiB route",
        status: 413,
        code: "PAYLOAD_TOO_LARGE",
        send: () => sendChunked("/entity/query", { Authorization: auth, "Content-Type": "application/json" }, '{"pad":"', "x", 3 * 1024 * 1024),
      },
      {
        what: "a CSV whose second row does not convert",
        status: 422,
        code: "VALIDATION_FAILED",
        send: () =>
          sendChunked("/entity/entities/import", { Authorization: auth, "X-Import-Config": importConfig }, "name,n\na,1\nb,x\n", "c,3\n", 3 * 1024 * 1024),
      },
      {
        what: "a body without credentials",
        status: 401,
        code: "UNAUTHORIZED",
        send: () => sendChunked("/entity/query", { "Content-Type": "application/json" }, "{", " ", 3 * 1024 * 1024),
      },
    ];
    for (const refusal of [...refusals, ...refusals]) {
      const res = await refusal.send();
      expect({ what: refusal.what, status: res.status, code: res.json?.error?.code }, res.text.slice(0, 300)).toEqual({
        what: refusal.what,
        status: refusal.status,
        code: refusal.code,
      });
      const next = await getJson("/healthz");
      expect({ after: refusal.what, status: next.status }).toEqual({ after: refusal.what, status: 200 });
    }
    const rows = await fetch(`${base()}/entity/query`, {
      method: "POST",
      headers: { Authorization: auth, "Content-Type": "application/json" },
      body: JSON.stringify({ type_name: "Row" }),
    });
    expect((await rows.json()).data).toEqual([]);
  });

  it("runs a workflow that calls a local server (OUTBOUND_ALLOWLIST), whose callback link points at dev's own port (PUBLIC_URL)", async () => {
    expect(creds, "tenant:create must have succeeded").toBeDefined();
    const headers = { Authorization: basic(creds.client_id, creds.client_secret), "Content-Type": "application/json" };
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${base()}${path}`, { method: "POST", headers, body: JSON.stringify(body), signal: AbortSignal.timeout(10_000) });
      return { status: res.status, json: (await res.json()) as any };
    };
    const local = `http://127.0.0.1:${targetPort}`;
    const saved = await post("/definition/workflows", {
      name: "calls-local",
      definition_json: {
        triggers: [{ id: "manual", webhook: { methods: ["POST"] } }],
        jobs: [
          {
            id: "notify",
            input: { order: "{{ context.input.order }}" },
            actions: [
              { stepId: "post", name: "http", config: { url: `${local}/orders`, method: "POST", body: { order: "{{ input.order }}" } } },
              { stepId: "wait", name: "httpCallback", config: { url: `${local}/jobs`, method: "POST", body: { order: "{{ input.order }}" } } },
            ],
          },
        ],
      },
    });
    expect(saved.status).toBe(201);
    expect((await post(`/workflows/${saved.json.data.id}/activate`, {})).status).toBe(200);
    const started = await post("/workflows/wr", { workflow_id: saved.json.data.id, trigger_id: "manual", input: { order: 42 } });
    expect(started.status).toBe(202);
    const runId = started.json.data.workflow_run.id;

    expect(await waitFor(() => received.some((r) => r.path === "/jobs"), 30_000), `--- npm run dev output ---\n${output}`).toBe(true);
    const order = received.find((r) => r.path === "/orders")!;
    expect({ method: "POST", body: JSON.parse(order.body) }).toEqual({ method: "POST", body: { order: 42 } });
    const callbackUrl = String(received.find((r) => r.path === "/jobs")!.headers["x-callback-url"]);
    expect(callbackUrl.startsWith(`${base()}/workflows/callbacks/`), callbackUrl).toBe(true);

    // The local service answers the callback as it would in production: the run ends with its body.
    const answered = await fetch(callbackUrl, { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify({ done: true }) });
    expect(answered.status).toBe(202);
    let run: any;
    expect(
      await waitFor(async () => {
        run = (await getJson(`/workflows/runs/workflows/${runId}`, { Authorization: headers.Authorization })).json?.data;
        return run?.status === "success";
      }, 30_000),
      JSON.stringify(run),
    ).toBe(true);
    expect({ post: run.outputs.notify.post.status, postBody: run.outputs.notify.post.body, wait: run.outputs.notify.wait.body }).toEqual({
      post: 200,
      postBody: { ok: true, path: "/orders" },
      wait: { done: true },
    });
  });

  it("renders an app for a host as the README walks through it: spec, activation, company, integration, token, render", async () => {
    expect(creds, "tenant:create must have succeeded").toBeDefined();
    const headers = { Authorization: basic(creds.client_id, creds.client_secret), "Content-Type": "application/json" };
    const send = async (method: string, path: string, body?: unknown, extra: Record<string, string> = headers) => {
      const res = await fetch(`${base()}${path}`, {
        method,
        headers: extra,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(10_000),
      });
      return { status: res.status, json: (await res.json()) as any };
    };
    const spec = await send("POST", "/definition/specs", {
      name: "Orders desk",
      spec_document: {
        dashboards: {
          main: {
            name: "Main",
            surfaces: { dashboard: "home" },
            pages: {
              home: {
                dataSources: {
                  open: {
                    $rows: [
                      { id: 1, total: 30 },
                      { id: 2, total: 12 },
                    ],
                    $pipe: [{ orderBy: [{ path: "total", direction: "asc" }] }],
                  },
                },
                widgets: {
                  hello: { widgetComponent: "heading", config: { text: "Hello {{ identity.user_external_id }}, {{ config.app.greeting }}" } },
                  orders: { widgetComponent: "data_grid", dataSource: "open" },
                  go: { widgetComponent: "button", actionHandlers: { click: [{ kind: "navigate", page: "details", params: { id: "{{ payload.itemId }}" } }] } },
                },
                layout: [["hello"], ["orders"], ["go"]],
              },
              details: { widgets: { item: { widgetComponent: "heading", config: { text: "Order {{ page.params.id }}" } } }, layout: [["item"]] },
            },
          },
        },
        providers: {
          host: {
            auth: { type: "bearer" },
            autoCreateUsers: true,
            identity: { user_external_id: { source: "body", path: "user" }, company_external_id: { source: "body", path: "company" } },
          },
        },
      },
    });
    expect(spec.status, JSON.stringify(spec.json)).toBe(201);
    const specId = spec.json.data.id;
    expect((await send("PUT", `/apps/${specId}/config`, { config: { greeting: "welcome" } })).status).toBe(200);
    const company = await send("POST", "/access/external-companies", { provider: "host", external_id: "acme" });
    expect(company.status).toBe(201);
    const integration = await send("POST", `/apps/${specId}/integrations`, { external_company_id: company.json.data.id });
    expect(integration.status).toBe(201);
    const token = await send("PUT", `/apps/${specId}/integrations/${integration.json.data.id}/token`);
    expect(token.status).toBe(201);
    const host = { Authorization: `Bearer ${token.json.raw_token}`, "Content-Type": "application/json" };
    const rendered = await send("POST", `/apps/run/${integration.json.data.id}`, { user: "u-1", company: "acme", context: { locale: "en" } }, host);
    expect(rendered.status, JSON.stringify(rendered.json)).toBe(200);
    expect(rendered.json.data.surfaces[0].blocks[0].children[0].props).toEqual({ text: "Hello u-1, welcome" });
    expect(rendered.json.data.referenceData.orders).toEqual({
      rows: [
        { id: 2, total: 12 },
        { id: 1, total: 30 },
      ],
      total: 2,
    });
    const again = await send("POST", `/apps/run/${integration.json.data.id}`, { user: "u-1", company: "acme", state: rendered.json.data.state }, host);
    expect(again.status).toBe(200);
    expect(again.json.data.state).toEqual(rendered.json.data.state);
    const clicked = await send(
      "POST",
      `/apps/run/${integration.json.data.id}`,
      { user: "u-1", company: "acme", state: again.json.data.state, action: { widgetId: "go", handler: "click", payload: { itemId: "42" } } },
      host,
    );
    expect(clicked.status, JSON.stringify(clicked.json)).toBe(200);
    expect(clicked.json.data.surfaces[0]).toMatchObject({
      page: "details",
      blocks: [{ component: "row", children: [{ id: "item", widgetComponent: "heading", props: { text: "Order 42" } }] }],
    });
  });

  it("streams a run's progress as server-sent events to a real EventSource client, closing after the run's end", async () => {
    expect(creds, "tenant:create must have succeeded").toBeDefined();
    const auth = basic(creds.client_id, creds.client_secret);
    const headers = { Authorization: auth, "Content-Type": "application/json" };
    const post = async (path: string, body: unknown) => {
      const res = await fetch(`${base()}${path}`, { method: "POST", headers, body: JSON.stringify(body), signal: AbortSignal.timeout(10_000) });
      return { status: res.status, json: (await res.json()) as any };
    };
    const saved = await post("/definition/workflows", {
      name: "follows",
      definition_json: {
        triggers: [{ id: "manual", webhook: { methods: ["POST"] } }],
        jobs: [
          {
            id: "approve",
            actions: [
              { stepId: "ask", name: "awaitInput", config: {} },
              { stepId: "after", name: "pipe", config: { value: "{{ outputs.ask }}" } },
            ],
          },
        ],
      },
    });
    expect(saved.status).toBe(201);
    expect((await post(`/workflows/${saved.json.data.id}/activate`, {})).status).toBe(200);
    const started = await post("/workflows/wr", { workflow_id: saved.json.data.id, trigger_id: "manual", input: {} });
    const runId = started.json.data.workflow_run.id;

    const seen: { event: string; data: any }[] = [];
    const source = new EventSource(`${base()}/workflows/runs/workflows/${runId}/events`, {
      fetch: (input, init) => fetch(input, { ...init, headers: { ...init.headers, Authorization: auth } }),
    });
    const ended = new Promise<void>((resolve, reject) => {
      for (const type of ["run", "job", "action"]) {
        source.addEventListener(type, (e) => {
          const data = JSON.parse(e.data);
          seen.push({ event: e.type, data });
          // Clients close on the terminal event; the service closes its side too.
          if (type === "run" && ["success", "error", "cancelled", "skipped", "timeout"].includes(data.status)) {
            source.close();
            resolve();
          }
        });
      }
      source.addEventListener("error", () => {
        if (source.readyState === EventSource.CLOSED) reject(new Error(`the stream failed after ${JSON.stringify(seen)}`));
      });
    });
    try {
      expect(await waitFor(() => seen.some((e) => e.data.step_id === "ask" && e.data.status === "waiting"), 30_000), JSON.stringify(seen)).toBe(true);
      const answered = await post(`/workflows/runs/workflows/${runId}/input`, { step_id: "ask", data: { ok: true } });
      expect(answered.status).toBe(200);
      await Promise.race([ended, sleep(30_000).then(() => Promise.reject(new Error(`no terminal event: ${JSON.stringify(seen)}`)))]);
    } finally {
      source.close();
    }
    const line = (e: { event: string; data: any }) => [e.event, e.data.job_id, e.data.step_id, e.data.status].filter(Boolean).join(" ");
    expect(seen.every((e) => e.event === e.data.type && !Number.isNaN(Date.parse(e.data.at)))).toBe(true);
    expect(seen.map(line)).toEqual([
      "run pending",
      "run running",
      "job approve running",
      "action approve ask running",
      "action approve ask waiting",
      "job approve waiting",
      "action approve ask success",
      "action approve after running",
      "action approve after success",
      "job approve success",
      "run success",
    ]);
  });

  it("keys the per-IP rate limit on the socket's address, not on a client-sent CF-Connecting-IP", async () => {
    const remaining = (res: { headers: Headers }) => Number(res.headers.get("X-Rate-Limit-Remaining"));
    const plain = await getJson("/healthz");
    const spoofed = await getJson("/healthz", { "CF-Connecting-IP": "203.0.113.9" });
    const forwarded = await getJson("/healthz", { "X-Forwarded-For": "198.51.100.4" });
    expect([plain.status, spoofed.status, forwarded.status]).toEqual([200, 200, 200]);
    expect(plain.headers.get("X-Rate-Limit-Limit")).toBe("10000");
    expect([remaining(spoofed), remaining(forwarded)]).toEqual([remaining(plain) - 1, remaining(plain) - 2]);
  });

  it("stops wrangler and the embedded Postgres when it alone gets SIGTERM", async () => {
    const problems = await stopDev("pid", "SIGTERM");
    expect(problems, `--- npm run dev output ---\n${output}`).toEqual([]);
  });
});
