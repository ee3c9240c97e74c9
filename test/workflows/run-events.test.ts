// A run's event stream through the gateway: the history its object kept, then
// each status change as it happens, closing after the run's end; another
// tenant's or an unknown run, the cap on open streams, a run whose row ended
// without its object, a retry's fresh history.
import { SELF } from "cloudflare:test";
import { describe, expect, it } from "vitest";
import { MAX_FOLLOWERS } from "../../src/workflows/runs/run-events";
import { BASE, call, createTenant, expectError, systemQuery, type TenantCreds } from "../support/api";
import { activeWorkflow } from "./fixture";
import { dispatched, inObject, insertedRun, manualWorkflow } from "./orchestrator-support";

const HOUR = 3_600_000;
const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/;

const ASK = { stepId: "ask", name: "awaitInput", config: { schema: { type: "object" }, timeoutMs: HOUR } };
const approval = [{ id: "approve", actions: [ASK, { stepId: "after", name: "pipe", config: { value: "{{ outputs.ask.ok }}" } }] }];

/** An open event stream, read frame by frame as a client would. */
class EventStream {
  private readonly reader: ReadableStreamDefaultReader<string>;
  private buffer = "";
  /** Every frame's raw text, in order. */
  readonly frames: string[] = [];

  constructor(readonly res: Response) {
    this.reader = res.body!.pipeThrough(new TextDecoderStream()).getReader();
  }

  /** The next `count` events, as [event name, data]; fails when the stream ends first. */
  async next(count: number): Promise<[string, any][]> {
    const out: [string, any][] = [];
    while (out.length < count) {
      const end = this.buffer.indexOf("\n\n");
      if (end < 0) {
        const { done, value } = await this.reader.read();
        if (done) throw new Error(`the stream ended after ${JSON.stringify(out)}`);
        this.buffer += value;
        continue;
      }
      const frame = this.buffer.slice(0, end);
      this.buffer = this.buffer.slice(end + 2);
      this.frames.push(frame);
      const [event, data] = frame.split("\n");
      out.push([event.replace(/^event: /, ""), JSON.parse(data.replace(/^data: /, ""))]);
    }
    return out;
  }

  /** Reads to the end: true once the server closed the stream with nothing more in it. */
  async ended(): Promise<boolean> {
    const { done, value } = await this.reader.read();
    return done && this.buffer === "" && value === undefined;
  }

  cancel(): Promise<void> {
    return this.reader.cancel();
  }
}

async function open(t: TenantCreds, runId: string): Promise<EventStream> {
  const res = await SELF.fetch(`${BASE}/workflows/runs/workflows/${runId}/events`, { headers: { Authorization: t.auth } });
  expect(res.status, res.status === 200 ? "" : await res.clone().text()).toBe(200);
  expect(res.headers.get("Content-Type")).toBe("text/event-stream");
  return new EventStream(res);
}

/** Events as [type, job_id, step_id, status], `at` checked to be ISO 8601. */
const shown = (events: [string, any][]) =>
  events.map(([name, data]) => {
    expect(data.type).toBe(name);
    expect(data.at).toMatch(ISO);
    return [data.type, data.job_id, data.step_id, data.status];
  });

describe("a run's event stream", () => {
  it("answers a finished run's whole history from pending and closes at once", async () => {
    const t = await createTenant();
    const { id } = await manualWorkflow(t, [
      { id: "prepare", actions: [{ stepId: "shape", name: "pipe", config: { value: 1 } }] },
      { id: "notify", dependencies: ["prepare"], actions: [{ name: "pipe", config: { value: 2 } }] },
    ]);
    const runId = await dispatched(t, id);
    const stream = await open(t, runId);
    expect(shown(await stream.next(11))).toEqual([
      ["run", undefined, undefined, "pending"],
      ["run", undefined, undefined, "running"],
      ["job", "prepare", undefined, "running"],
      ["action", "prepare", "shape", "running"],
      ["action", "prepare", "shape", "success"],
      ["job", "prepare", undefined, "success"],
      ["job", "notify", undefined, "running"],
      ["action", "notify", undefined, "running"],
      ["action", "notify", undefined, "success"],
      ["job", "notify", undefined, "success"],
      ["run", undefined, undefined, "success"],
    ]);
    expect(await stream.ended()).toBe(true);
    // The framing itself: the event's type, then its JSON, keys as documented.
    expect(stream.frames[3]).toMatch(/^event: action\ndata: \{"type":"action","job_id":"prepare","step_id":"shape","status":"running","at":"[^"]+"\}$/);
  });

  it("sends what is recorded, then each change as it happens, closing after the run's end", async () => {
    const t = await createTenant();
    const { id } = await manualWorkflow(t, approval);
    const runId = await dispatched(t, id);
    const stream = await open(t, runId);
    const history = await stream.next(6);
    expect(shown(history)).toEqual([
      ["run", undefined, undefined, "pending"],
      ["run", undefined, undefined, "running"],
      ["job", "approve", undefined, "running"],
      ["action", "approve", "ask", "running"],
      ["action", "approve", "ask", "waiting"],
      ["job", "approve", undefined, "waiting"],
    ]);
    // A second stream on the same run sees the same history.
    const second = await open(t, runId);
    expect(await second.next(6)).toEqual(history);

    const res = await call("POST", `/workflows/runs/workflows/${runId}/input`, { auth: t.auth, body: { step_id: "ask", data: { ok: true } } });
    expect(res.status).toBe(200);
    const live = [
      ["action", "approve", "ask", "success"],
      ["action", "approve", "after", "running"],
      ["action", "approve", "after", "success"],
      ["job", "approve", undefined, "success"],
      ["run", undefined, undefined, "success"],
    ];
    expect(shown(await stream.next(5))).toEqual(live);
    expect(await stream.ended()).toBe(true);
    expect(shown(await second.next(5))).toEqual(live);
    expect(await second.ended()).toBe(true);
  });

  it("ends with the cancelled action and job, then the run, when the run is cancelled", async () => {
    const t = await createTenant();
    const { id } = await manualWorkflow(t, approval);
    const runId = await dispatched(t, id);
    const stream = await open(t, runId);
    await stream.next(6);
    expect((await call("POST", `/workflows/runs/workflows/${runId}/cancel`, { auth: t.auth })).status).toBe(200);
    expect(shown(await stream.next(4))).toEqual([
      ["job", "approve", undefined, "cancelled"],
      ["action", "approve", "ask", "cancelled"],
      // The action the run never reached is recorded skipped (run_ended).
      ["action", "approve", "after", "skipped"],
      ["run", undefined, undefined, "cancelled"],
    ]);
    expect(await stream.ended()).toBe(true);
  });

  it("answers 404 for another tenant's run and an unknown id, and 401 without credentials", async () => {
    const t = await createTenant();
    const { id } = await manualWorkflow(t, approval);
    const runId = await dispatched(t, id);
    const other = await createTenant();
    const foreign = await call("GET", `/workflows/runs/workflows/${runId}/events`, { auth: other.auth });
    expect(expectError(foreign, 404, "NOT_FOUND").message).toContain(runId);
    expectError(await call("GET", `/workflows/runs/workflows/${crypto.randomUUID()}/events`, { auth: t.auth }), 404, "NOT_FOUND");
    expectError(await call("GET", `/workflows/runs/workflows/not-a-uuid/events`, { auth: t.auth }), 422, "VALIDATION_FAILED");
    expectError(await call("GET", `/workflows/runs/workflows/${runId}/events`), 401, "UNAUTHORIZED");
    // None of this opened a stream on the run's object.
    expect(await inObject(runId, (instance) => instance.store.events.following)).toBe(0);
  });

  it(`serves at most ${MAX_FOLLOWERS} open streams on one run: the next is 429, and a stream closed frees its place`, async () => {
    const t = await createTenant();
    const { id } = await manualWorkflow(t, approval);
    const runId = await dispatched(t, id);
    const following = () => inObject(runId, (instance) => instance.store.events.following);
    // The cap as served, then lowered so the test opens a few streams rather than a hundred.
    const CAP = 3;
    await inObject(runId, (instance) => {
      expect(instance.store.events.maxFollowers).toBe(MAX_FOLLOWERS);
      instance.store.events.maxFollowers = CAP;
    });
    const streams = await Promise.all(Array.from({ length: CAP }, () => open(t, runId)));
    expect(await following()).toBe(CAP);

    const refused = await call("GET", `/workflows/runs/workflows/${runId}/events`, { auth: t.auth });
    const error = expectError(refused, 429, "TOO_MANY_REQUESTS");
    expect([error.details.max_streams, error.message]).toEqual([
      CAP,
      `The run has ${CAP} event streams open, the most it serves at once; close one and try again`,
    ]);

    await streams[0].cancel();
    // The cancel travels from the client through the Worker to the object.
    for (let tries = 0; tries < 200 && (await following()) === CAP; tries++) await new Promise((r) => setTimeout(r, 10));
    expect(await following()).toBe(CAP - 1);
    const again = await open(t, runId);
    expect((await again.next(1))[0][1].status).toBe("pending");

    expect((await call("POST", `/workflows/runs/workflows/${runId}/cancel`, { auth: t.auth })).status).toBe(200);
    for (const stream of [again, ...streams.slice(1)]) {
      const rest = await stream.next(stream === again ? 9 : 10);
      expect(rest[rest.length - 1][1]).toMatchObject({ type: "run", status: "cancelled" });
      expect(await stream.ended()).toBe(true);
    }
    expect(await following()).toBe(0);
  });

  it("ends with the row's status when the run ended without its object", async () => {
    const t = await createTenant();
    const workflow = await activeWorkflow(t, {
      jobs: [{ id: "a", actions: [{ stepId: "p", name: "pipe", config: { value: 1 } }] }],
      triggers: [{ id: "nightly", cron: "0 2 * * *" }],
    });
    const runId = await insertedRun(t, workflow, Date.now() + HOUR);
    await systemQuery(`UPDATE workflow_runs SET status = 'timeout', finished_at = '2026-01-02T03:04:05.678Z' WHERE id = $1`, [runId]);
    const stream = await open(t, runId);
    expect(await stream.next(1)).toEqual([["run", { type: "run", status: "timeout", at: "2026-01-02T03:04:05.678Z" }]]);
    expect(await stream.ended()).toBe(true);
  });

  it("starts a retried run's history afresh", async () => {
    const t = await createTenant();
    const { id } = await manualWorkflow(t, [{ id: "a", actions: [{ stepId: "bad", name: "pipe", config: { $literal: { nope: 1 } } }] }]);
    const runId = await dispatched(t, id);
    const first = await open(t, runId);
    expect(shown(await first.next(7)).map((e) => e[3])).toEqual(["pending", "running", "running", "running", "error", "error", "error"]);
    expect(await first.ended()).toBe(true);

    expect((await call("POST", `/workflows/runs/workflows/${runId}/retry`, { auth: t.auth })).status).toBe(200);
    const retried = await open(t, runId);
    expect(shown(await retried.next(7))).toEqual([
      ["run", undefined, undefined, "pending"],
      ["run", undefined, undefined, "running"],
      ["job", "a", undefined, "running"],
      ["action", "a", "bad", "running"],
      ["action", "a", "bad", "error"],
      ["job", "a", undefined, "error"],
      ["run", undefined, undefined, "error"],
    ]);
    expect(await retried.ended()).toBe(true);
  });
});
