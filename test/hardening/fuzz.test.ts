// Hostile input against every operation of GET /openapi.json: each request is
// a valid example with one hostile change (NUL, lone surrogates, deep
// nesting, 1e400 and duplicate keys written raw into the JSON text, long
// strings, wrong types, missing keys, unknown or other tenants' ids). Every
// answer must be below 500; every 4xx must be the error envelope (or, for an
// operation documenting a body of its own, that body) and must
// leave both tenants' rows as they were (but for the progress of runs their
// objects walk, which snapshot.ts leaves out); every status below 500 must be
// one the document declares for the operation. All failures of a run are
// collected, grouped by operation, fault, place and cause, and reported
// together.
// One test per operation, so a failing one does not stop the others; the
// summary of the whole run is printed at the end.
// `npm run fuzz` runs this file with FUZZ_RUNS (and FUZZ_SEED) raised.
import { env } from "cloudflare:test";
import fc from "fast-check";
import { afterAll, beforeAll, describe as group, expect, it } from "vitest";
import { routes } from "../../src/app";
import { buildOpenApi } from "../../src/openapi/document";
import { kickRuns } from "../../src/workflows/runs/run-client";
import { call, withSystemDb } from "../support/api";
import { examples } from "./operations";
import { mutations, type Pools } from "./mutate";
import { build, describe, send, type Built, type Outcome } from "./send";
import { changes, restore, save, snapshot, type Query, type Saved, type Snapshot } from "./snapshot";
import { buildWorld, idsOf, type World } from "./world";

const bound = env as unknown as { FUZZ_RUNS?: string; FUZZ_SEED?: string };
const RUNS = Number(bound.FUZZ_RUNS || 500);
const SEED = Number(bound.FUZZ_SEED || 20_260_101);
/** A request that takes longer is a finding (and the run goes on). */
const TIMEOUT_MS = 15_000;

interface Finding {
  key: string;
  op: string;
  fault: string;
  label: string;
  cause: string;
  request: string;
  /** The request id of its first occurrence (`fz-<n>`, the n-th request of the run). */
  first: string;
  count: number;
}

interface Operation {
  key: string;
  method: string;
  path: string;
  queryNames: string[];
  bodyNames: string[];
  /** The statuses the document declares for it. */
  statuses: string[];
  /** Answers its failures in a body of its own (an app upload's provider body), not the envelope. */
  ownErrorBody: boolean;
}

function operations(doc: any): Operation[] {
  return Object.entries(doc.paths as Record<string, Record<string, any>>).flatMap(([path, methods]) =>
    Object.entries(methods).map(([method, op]) => ({
      key: `${method.toUpperCase()} ${path}`,
      method: method.toUpperCase(),
      path,
      queryNames: (op.parameters ?? []).filter((p: any) => p.in === "query").map((p: any) => p.name),
      bodyNames: Object.keys(op.requestBody?.content?.["application/json"]?.schema?.properties ?? {}),
      statuses: Object.keys(op.responses ?? {}),
      ownErrorBody: op.responses?.["400"]?.content?.["application/json"]?.schema?.$ref !== "#/components/schemas/Error",
    })),
  );
}

/** The unhandled errors the Worker logs (src/app.ts onError), by request id: the cause of a 500. */
function captureUnhandled(): { causes: Map<string, string>; stop: () => void } {
  const causes = new Map<string, string>();
  const original = console.error;
  console.error = (...args: unknown[]) => {
    try {
      const line = JSON.parse(String(args[0]));
      if (line.msg === "unhandled") return void causes.set(line.request_id, String(line.error));
    } catch {
      // not one of the Worker's JSON lines
    }
    original(...args);
  };
  return { causes, stop: () => (console.error = original) };
}

/** One line without the ids and numbers that differ between occurrences of one cause. */
const normalise = (s: string) =>
  s
    .split("\n")[0]
    .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/gi, "<uuid>")
    .replace(/\bet_[0-9a-f]+/g, "et_<id>")
    .replace(/\d+/g, "N")
    .slice(0, 160);

function envelopeProblem(o: { status: number; json: any }): string | undefined {
  const e = o.json?.error;
  if (!e) return "no error envelope";
  if (e.status !== o.status) return `error.status ${e.status} ≠ HTTP ${o.status}`;
  if (typeof e.code !== "string" || typeof e.message !== "string" || e.details === null || typeof e.details !== "object") return "envelope fields missing";
  return undefined;
}

/**
 * Lets the run a 2xx answer started (a dispatch, a webhook call) finish its
 * walk before the rows are checked: the route kicks the run's object once it
 * answered, and a kick waits behind a walk already under way, so no object
 * still writes while a later request is checked or the rows are restored.
 */
async function settleStarted(q: Query, o: { status: number; json: any }): Promise<void> {
  const runId = o.status < 300 ? o.json?.data?.workflow_run?.id : undefined;
  if (typeof runId !== "string") return;
  const [row] = await q("SELECT tenant_id FROM workflow_runs WHERE id = $1", [runId]);
  if (row) await kickRuns(env, [{ tenantId: row.tenant_id, runId }]);
}

/** The document GET /openapi.json serves (checked below), walked at collection time to name one test per operation. */
const DOC = buildOpenApi(routes, { serverUrl: (env as unknown as { PUBLIC_URL: string }).PUBLIC_URL });
const OPS = operations(DOC);
const PER_OP = Math.max(1, Math.ceil(RUNS / OPS.length));

let world: World;
let tenants: string[];
let pristine: Saved;
let pristineDigest: Snapshot;
let log: ReturnType<typeof captureUnhandled>;
const findings = new Map<string, Finding>();
const run = { sent: 0, restores: 0, sendingMs: 0, started: 0, tally: {} as Record<string, number> };

const query =
  (db: { system: (fn: (sql: any) => Promise<any>) => Promise<any> }): Query =>
  async (text, params) =>
    (await db.system((sql) => sql.query(text, params))).rows;

beforeAll(async () => {
  run.started = Date.now();
  world = await buildWorld();
  tenants = [world.a.tenantId, world.b.tenantId];
  await withSystemDb(async (db) => {
    pristine = await save(query(db), tenants);
    pristineDigest = await snapshot(query(db), tenants);
  });
  log = captureUnhandled();
}, 120_000);

afterAll(() => {
  log?.stop();
  const list = [...findings.values()].sort((x, y) => x.cause.localeCompare(y.cause) || x.op.localeCompare(y.op) || x.label.localeCompare(y.label));
  const seconds = ((Date.now() - run.started) / 1000).toFixed(1);
  console.log(
    [
      `hostile-input fuzz: seed ${SEED}, ${run.sent} requests over ${OPS.length} operations in ${seconds} s (${(run.sendingMs / 1000).toFixed(1)} s waiting for answers), statuses ${JSON.stringify(run.tally)}, ${run.restores} restores, ${list.length} findings`,
      ...list.map((f) => `- ${f.op} → ${f.fault} [${f.label}] ×${f.count} (first ${f.first}): ${f.cause}\n    ${f.request.slice(0, 600)}`),
    ].join("\n"),
  );
});

/** Sends the operation's examples and PER_OP mutations of them; returns the findings' keys. */
async function fuzz(op: Operation, index: number): Promise<string[]> {
  const catalogue = examples(world);
  const keys = new Set<string>();
  const record = (fault: string, label: string, cause: string, b: Built) => {
    const key = `${op.key} | ${fault} | ${label} | ${cause}`;
    keys.add(key);
    const f = findings.get(key);
    if (f) f.count++;
    else findings.set(key, { key, op: op.key, fault, label, cause, request: describe(b), first: b.init.headers["X-Request-Id"], count: 1 });
  };

  await withSystemDb(async (db) => {
    const q = query(db);
    const sameRows = (s: Snapshot) => Object.keys(s).every((k) => k.startsWith("R2") || s[k] === pristineDigest[k]);
    const reset = async () => {
      await restore(q, tenants, pristine);
      run.restores++;
      return snapshot(q, tenants);
    };
    // Every operation starts from the same rows, whatever the one before wrote.
    let before = await snapshot(q, tenants);
    if (!sameRows(before)) before = await reset();

    const pools: Pools = { own: idsOf(world.a), foreign: idsOf(world.b), queryNames: op.queryNames, bodyNames: op.bodyNames };
    const valid = catalogue[op.key].map((example) => ({ example, label: "valid example" }));
    const generated = fc.sample(mutations(catalogue[op.key], pools), { seed: SEED + index, numRuns: PER_OP });
    for (const { example, label } of [...valid, ...generated]) {
      const requestId = `fz-${run.sent++}`;
      const b = build(op.method, op.path, example, world.a.auth, requestId);
      const sendStarted = Date.now();
      const o: Outcome = await send(b, TIMEOUT_MS);
      run.sendingMs += Date.now() - sendStarted;
      if ("timeout" in o || "threw" in o) {
        record("timeout" in o ? `no answer within ${TIMEOUT_MS} ms` : "fetch threw", label, "threw" in o ? normalise(o.threw) : "", b);
        before = await snapshot(q, tenants);
        continue;
      }
      run.tally[o.status] = (run.tally[o.status] ?? 0) + 1;
      // A client generated from the document knows only the statuses it declares.
      if (o.status < 500 && !op.statuses.includes(String(o.status)))
        record(`answered ${o.status}, which the document does not declare`, label, normalise(o.json?.error?.code ?? o.text), b);
      await settleStarted(q, o);
      if (label === "valid example" && o.status >= 400) record(`valid example answered ${o.status}`, label, normalise(o.text), b);
      const after = await snapshot(q, tenants);
      const wrote = changes(before, after);
      before = after;
      if (o.status >= 500) {
        record(`${o.status}${wrote.length ? " after writing" : ""}`, label, normalise(log.causes.get(requestId) ?? o.json?.error?.message ?? o.text), b);
        // A write that then failed may leave rows every later read chokes on.
        if (wrote.length) before = await reset();
      } else if (o.status >= 400) {
        // A mutated path that reaches no route (`..`, an empty segment) gets the gateway's envelope.
        const ownBody = op.ownErrorBody && !/^No route for /.test(o.json?.error?.message ?? "");
        const problem = ownBody ? (typeof o.json?.errorMessage === "string" ? undefined : "no { errorMessage } body") : envelopeProblem(o);
        if (problem) record(`${o.status} ${problem}`, label, normalise(o.text), b);
        if (wrote.length) record(`${o.status} ${o.json?.error?.code} but wrote`, label, wrote.join(", "), b);
      }
    }
  });
  return [...keys];
}

group("hostile input against every operation of the OpenAPI document", () => {
  it("walks the document GET /openapi.json serves, with an example for each of its operations and no other", async () => {
    expect((await call("GET", "/openapi.json")).json).toEqual(JSON.parse(JSON.stringify(DOC)));
    const catalogue = examples(world);
    expect(OPS.map((o) => o.key).filter((k) => !catalogue[k])).toEqual([]);
    expect(Object.keys(catalogue).filter((k) => !OPS.some((o) => o.key === k))).toEqual([]);
  });

  for (const [index, op] of OPS.entries()) {
    it(
      `${op.key}: ${PER_OP} hostile requests answered below 500, a 4xx with the envelope and nothing written`,
      async () => {
        expect(await fuzz(op, index)).toEqual([]);
      },
      60_000 + PER_OP * 2_000,
    );
  }
});
