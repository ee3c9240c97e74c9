// One workflow run, addressed by its run id: it loads what the run executes
// once, walks it (engine/walk.ts) and keeps every record the walk makes in
// its own storage before the walk acts on it, so a walk resumed after a
// crash, an alarm or an input replays what was recorded and executes only
// what never finished. Postgres mirrors the records for the runs API
// (runs/orchestrator.ts); a mirror write that fails marks the object dirty
// and is written again on the next walk or alarm.
//
// Storage keys: `doc` (the RunDocument), `state` (the run's status, and its
// outputs and error once finished), `notBefore` (epoch ms the run may start
// at), `step:<job id>` (StepRecord), `action:<action key>` (ActionRecord),
// `dirty` (true while Postgres lags behind storage), `ref` and `startTries`
// (a start waiting to reach the database again).
import { DurableObject } from "cloudflare:workers";
import { Database, type Sql } from "../src/db/client";
import type { ErrorCode } from "../src/lib/errors";
import { ApiError, errorValue, type ErrorValue } from "../src/lib/errors";
import { systemClock, type Clock } from "../src/lib/clock";
import { log } from "../src/lib/logger";
import { resolveSchemaName } from "../src/schema/registry";
import { inputProblems, type AwaitInputConfig } from "../src/workflows/actions/await-input";
import { executeAction } from "../src/workflows/actions/catalog";
import { actionContext } from "../src/workflows/actions/context";
import { tenantDb } from "../src/db/client";
import { Redactor } from "../src/lib/redact";
import { resolveEnvSecrets } from "../src/access/secrets/env-secrets";
import { actionPositions } from "../src/workflows/engine/positions";
import { journalForRetry } from "../src/workflows/engine/retry";
import { TERMINAL_STEP, type ActionRecord, type Effects, type Journal, type RunDocument, type StepRecord } from "../src/workflows/engine/types";
import { Walker } from "../src/workflows/engine/walk";
import { claimRun, kickRuns, loadRun, runStatus, mirrorAction, mirrorOutcome, mirrorStep, type RunOutcome, type RunRef } from "../src/workflows/runs/orchestrator";
import type { RunStatus } from "../src/workflows/runs/record";

type RunState = { status: "pending" | "running" } | RunOutcome;

/** Why `input` or `deliver` refused, for the route to answer as the error envelope. */
export type InputRefusal = ErrorValue;

const STEP = "step:";
const ACTION = "action:";
/** How soon a dirty mirror is written again, and a walk cut short by a storage fault resumed. */
const RETRY_MS = 30_000;
/** A start that found the database unreachable tries again after this, doubling up to the max (with jitter). */
const START_RETRY_MS = 1_000;
const START_RETRY_MAX_MS = 30_000;
/** How long an action's `running` record may wait to be mirrored together with its end. */
const HOLD_MS = 25;

/** A cancel arrived while a walk was in flight: the walk records nothing more. */
class RunStopped extends Error {}

/** The object's own storage failed: nothing it decides can be kept, so it must not decide the run's end either. */
class StorageFailed extends Error {}

/**
 * A record over the storage's value limit (a step's output, the run's
 * outputs): writing it again can never succeed, so the run ends `error`
 * instead of resuming.
 */
class RecordTooLarge extends Error {}

const TOO_LARGE = errorValue(
  "UNPROCESSABLE_ENTITY",
  "A record of the run (a step's input or output, or the run's outputs) is over the 2 MB a run may keep; move large data as temp files",
);

const isFinished = (state: RunState | undefined) => state !== undefined && state.status !== "pending" && state.status !== "running";

function internalError(e: unknown): ErrorValue {
  return errorValue("INTERNAL_ERROR", e instanceof Error ? e.message : String(e));
}

function refusal(code: ErrorCode, message: string, details: { step_id?: string; step_status?: string; errors?: string[]; validation_errors?: string[] }): InputRefusal {
  return errorValue(code, message, details);
}

export class WorkflowRun extends DurableObject<Env> {
  /** Calls and alarms act one at a time: a walk never overlaps another. */
  private queue: Promise<unknown> = Promise.resolve();
  /** Set by `cancel` at once, before it waits its turn, so a walk in flight stops at its next record. */
  private stopped = false;
  /** Test seam: the storage write this many writes from now fails, as a storage fault would. */
  writesUntilFault?: number;
  /** Test seam: the object is aborted (evicted mid-call) right after this many more writes are kept. */
  writesUntilAbort?: number;
  private positions = new Map<string, Map<string, number>>();
  /** The mirror writes queued so far, in order (see `mirror`). */
  private mirrored: Promise<void> = Promise.resolve();
  /**
   * An action's `running` record, kept in storage but not yet mirrored: it
   * goes to Postgres with the action's next record in one statement, or
   * alone as soon as anything else is mirrored or HOLD_MS pass (a long
   * action shows `running` meanwhile).
   */
  private held?: { db: Database; doc: RunDocument; rec: ActionRecord; timer: ReturnType<typeof setTimeout> };
  /**
   * The credentials this walk resolved or obtained: every record mirrored to
   * Postgres and every error logged passes through it. Rebuilt per walk (the
   * secrets are resolved again, so a rotation applies to the next walk).
   */
  private redactor = new Redactor();

  /** The runtime passes only `ctx` and `env`; tests set the clock to the time they need. */
  constructor(
    ctx: DurableObjectState,
    env: Env,
    public clock: Clock = systemClock,
  ) {
    super(ctx, env);
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn, fn);
    this.queue = run.catch(() => {});
    return run;
  }

  /**
   * Work with a database connection of its own: sockets do not outlive the
   * call or alarm that opened them. The mirror writes queued meanwhile are
   * all sent before the connection closes.
   */
  private async withDatabase<T>(fn: (db: Database) => Promise<T>): Promise<T> {
    const db = new Database(this.env.DATABASE_URL, this.env.NEON_WS_PROXY);
    try {
      return await fn(db);
    } finally {
      this.release();
      await this.mirrored;
      await db.close();
    }
  }

  private async put(entries: Record<string, unknown>): Promise<void> {
    if (this.writesUntilFault !== undefined && --this.writesUntilFault <= 0) {
      this.writesUntilFault = undefined;
      throw new StorageFailed("injected storage fault");
    }
    try {
      await this.ctx.storage.put(entries);
    } catch (e) {
      const message = (e as Error).message;
      throw /SQLITE_TOOBIG|too big/i.test(message) ? new RecordTooLarge(message) : new StorageFailed(message);
    }
    if (this.writesUntilAbort !== undefined && --this.writesUntilAbort <= 0) this.ctx.abort("injected abort");
  }

  private state(): Promise<RunState | undefined> {
    return this.ctx.storage.get<RunState>("state");
  }

  private async journal(): Promise<Journal> {
    const [steps, actions] = await Promise.all([this.ctx.storage.list<StepRecord>({ prefix: STEP }), this.ctx.storage.list<ActionRecord>({ prefix: ACTION })]);
    return {
      steps: Object.fromEntries([...steps].map(([k, v]) => [k.slice(STEP.length), v])),
      actions: Object.fromEntries([...actions].map(([k, v]) => [k.slice(ACTION.length), v])),
    };
  }

  /** Starts the run, or walks it on if it started already (a kick is idempotent). */
  start(tenantId: string, runId: string): Promise<void> {
    return this.serial(() => this.started({ tenantId, runId }));
  }

  /**
   * A start that cannot reach the database (a burst of runs taking every
   * connection, a restart) is not lost: the object keeps whom it runs for and
   * tries again by its alarm, with a growing delay, instead of waiting for the
   * sweep.
   */
  private async started(ref: RunRef): Promise<void> {
    try {
      await this.withDatabase(async (db) => {
        const doc = await this.document(db, ref);
        if (!doc) return;
        // A finished run whose row is pending again was retried, and the retry's own call never arrived.
        if (isFinished(await this.state()) && (await runStatus(db, doc)) === "pending") return this.rerun(db, doc);
        await this.advance(db, doc);
      });
      await this.ctx.storage.delete("startTries");
    } catch (e) {
      if (!(e instanceof ApiError && e.code === "SERVICE_UNAVAILABLE")) throw e;
      const tries = ((await this.ctx.storage.get<number>("startTries")) ?? 0) + 1;
      const delay = Math.min(START_RETRY_MAX_MS, START_RETRY_MS * 2 ** (tries - 1)) * (0.5 + Math.random() / 2);
      log.error("starting a workflow run could not reach the database; trying again", { run_id: ref.runId, tries, error: e.message });
      await this.ctx.storage.put({ ref, startTries: tries });
      await this.ctx.storage.setAlarm(this.clock.now() + delay);
    }
  }

  override async alarm(): Promise<void> {
    await this.serial(async () => {
      const doc = await this.ctx.storage.get<RunDocument>("doc");
      if (doc) return this.withDatabase((db) => this.advance(db, doc));
      const ref = await this.ctx.storage.get<RunRef>("ref");
      if (ref) await this.started(ref);
    });
  }

  /** Answers the `awaitInput` action `stepId` waits for with `data`, then walks on; undefined when taken. */
  input(tenantId: string, runId: string, stepId: string, data: unknown): Promise<InputRefusal | undefined> {
    return this.serial(async () => {
      const doc = await this.ctx.storage.get<RunDocument>("doc");
      const notWaiting = (status: string) => refusal("CONFLICT", `Action ${stepId} of run ${runId} is ${status}, not waiting for input`, { step_status: status });
      if (!doc || doc.tenantId !== tenantId) return refusal("NOT_FOUND", `Run ${runId} has no awaitInput action ${stepId}`, { step_id: stepId });
      const candidates = Object.values((await this.journal()).actions).filter((a) => a.name === "awaitInput" && a.stepId === stepId);
      if (!candidates.length) return refusal("NOT_FOUND", `Run ${runId} has no awaitInput action ${stepId}`, { step_id: stepId });
      const waiting = candidates.find((a) => a.status === "waiting");
      const state = await this.state();
      if (!waiting) return notWaiting(candidates[0].status);
      if (isFinished(state)) return notWaiting(state!.status);
      const problems = inputProblems((waiting.config ?? {}) as AwaitInputConfig, data);
      if (problems.length) return refusal("VALIDATION_FAILED", `The input for ${stepId} does not satisfy its schema`, { errors: problems, validation_errors: problems });
      await this.withDatabase(async (db) => {
        await this.record(db, doc, { ...waiting, status: "success", result: data, until: undefined, finishedAt: this.clock.now() });
        await this.advance(db, doc);
      });
      return undefined;
    });
  }

  /**
   * Hands `payload` (an httpCallback's callback) to the action `key` waiting
   * in its attempt `attempt` and makes it due at once: the walk executes the
   * action again, which reads the payload from its record (`delivered`) and
   * decides its outcome, `errorWhen` included. Answers why not when that
   * attempt is not waiting (finished, superseded by a retry, or not this run's).
   */
  deliver(tenantId: string, runId: string, key: string, attempt: number, payload: unknown): Promise<InputRefusal | undefined> {
    return this.serial(async () => {
      const doc = await this.ctx.storage.get<RunDocument>("doc");
      const rec = doc?.tenantId === tenantId ? await this.ctx.storage.get<ActionRecord>(ACTION + key) : undefined;
      if (!doc || !rec) return refusal("NOT_FOUND", `Run ${runId} has no action ${key}`, {});
      const state = await this.state();
      if (rec.status !== "waiting" || rec.attempt !== attempt || rec.delivered !== undefined || isFinished(state)) {
        const status = isFinished(state) ? state!.status : rec.attempt !== attempt ? "superseded" : rec.delivered !== undefined ? "answered" : rec.status;
        return refusal("CONFLICT", `Action ${key} of run ${runId} is ${status}, not waiting for this callback`, { step_status: status });
      }
      await this.put({ [ACTION + key]: { ...rec, delivered: payload, until: this.clock.now() } satisfies ActionRecord });
      await this.withDatabase((db) => this.advance(db, doc));
      return undefined;
    });
  }

  /**
   * Stops the run: it is `cancelled`, its alarm gone, its open steps and
   * actions cancelled. The caller has already moved the run's row.
   */
  cancel(_tenantId: string, _runId: string): Promise<void> {
    this.stopped = true;
    return this.serial(async () => {
      try {
        await this.put({ state: { status: "cancelled" } satisfies RunState });
        await this.ctx.storage.deleteAlarm();
        const doc = await this.ctx.storage.get<RunDocument>("doc");
        if (doc) await this.withDatabase((db) => this.closeOpen(db, doc));
      } finally {
        this.stopped = false;
      }
    });
  }

  /**
   * Runs a finished run again in place (its row is `pending` again): each
   * step's rerunPolicy decides what of the journal stays; an `abort` ends
   * the retried run `skipped`.
   */
  retry(tenantId: string, runId: string): Promise<void> {
    return this.serial(() =>
      this.withDatabase(async (db) => {
        const stored = await this.ctx.storage.get<RunDocument>("doc");
        if (stored) return this.rerun(db, stored);
        // Never started here (cancelled while pending): start it as a kick would.
        await this.ctx.storage.delete("state");
        const doc = await this.document(db, { tenantId, runId });
        if (doc) await this.advance(db, doc);
      }),
    );
  }

  private async rerun(db: Database, doc: RunDocument): Promise<void> {
    const { journal, abort } = journalForRetry(doc, await this.journal());
    if (abort) return this.finish(db, doc, { status: "skipped" });
    const keys = [...(await this.ctx.storage.list({ prefix: STEP })).keys(), ...(await this.ctx.storage.list({ prefix: ACTION })).keys()];
    const kept = [
      ...Object.entries(journal.steps).map(([id, rec]) => [STEP + id, rec] as const),
      ...Object.entries(journal.actions).map(([key, rec]) => [ACTION + key, rec] as const),
    ];
    // The storage API takes at most 128 keys per call.
    for (let i = 0; i < keys.length; i += 128) await this.ctx.storage.delete(keys.slice(i, i + 128));
    for (let i = 0; i < kept.length; i += 128) await this.put(Object.fromEntries(kept.slice(i, i + 128)));
    await this.put({ state: { status: "pending" } satisfies RunState });
    await this.advance(db, doc);
  }

  /**
   * The run's document: stored, or loaded once from Postgres and stored. A
   * run that cannot execute (a step bound to no job) ends `error` here;
   * an unknown or finished run answers undefined.
   */
  private async document(db: Database, ref: RunRef): Promise<RunDocument | undefined> {
    const stored = await this.ctx.storage.get<RunDocument>("doc");
    if (stored) return stored;
    if (isFinished(await this.state())) return undefined;
    let loaded;
    try {
      loaded = await loadRun(db, ref);
    } catch (e) {
      if (!(e instanceof ApiError) || e.status >= 500) throw e;
      const outcome: RunOutcome = { status: "error", error: e.value };
      await this.put({ state: outcome });
      await db.system((sql) => mirrorOutcome(sql, ref, outcome));
      return undefined;
    }
    if (!loaded) return undefined;
    await this.put({ doc: loaded.doc, notBefore: loaded.notBefore, state: { status: "pending" } satisfies RunState });
    return loaded.doc;
  }

  /** Moves the run as far as it can: waits for its start time, claims its row, walks. */
  private async advance(db: Database, doc: RunDocument): Promise<void> {
    const state = await this.state();
    if (isFinished(state)) {
      if (await this.ctx.storage.get("dirty")) await this.resync(db, doc);
      return this.schedule();
    }
    const notBefore = (await this.ctx.storage.get<number>("notBefore")) ?? 0;
    if (notBefore > this.clock.now()) return this.ctx.storage.setAlarm(notBefore);
    let row: RunStatus | null | undefined;
    try {
      row = await claimRun(db, doc);
    } catch (e) {
      // Postgres is the mirror: the run goes on from storage and the row catches up later.
      log.error("claiming a workflow run's row failed", { run_id: doc.runId, error: (e as Error).message });
      await this.markDirty();
    }
    if (row === null) return this.forget();
    if (row !== undefined && row !== "running") return this.adopt(db, doc, row);
    try {
      if (state?.status !== "running") await this.put({ state: { status: "running" } satisfies RunState });
      await this.walk(db, doc);
    } catch (e) {
      if (!(e instanceof StorageFailed)) throw e;
      // Nothing more can be kept now: resume from what was kept, by the alarm or else the sweep.
      log.error("workflow run storage failed; resuming later", { run_id: doc.runId, error: e.message });
      await this.ctx.storage.setAlarm(this.clock.now() + RETRY_MS).catch(() => {});
    }
  }

  private async walk(db: Database, doc: RunDocument): Promise<void> {
    const secrets = await resolveEnvSecrets(tenantDb(db, doc.tenantId), this.env.MASTER_KEY, doc.env);
    this.redactor = new Redactor(secrets.values);
    if (await this.ctx.storage.get("dirty")) await this.resync(db, doc);
    const ref: RunRef = doc;
    const effects: Effects = {
      now: () => this.clock.now(),
      recordStep: async (id, rec) => {
        if (this.stopped) throw new RunStopped();
        await this.put({ [STEP + id]: rec });
        await this.mirror(db, (sql) => mirrorStep(sql, ref, id, this.redactor.value(rec)));
      },
      recordAction: async (rec) => {
        if (this.stopped) throw new RunStopped();
        await this.record(db, doc, rec);
      },
      execute: (invocation) =>
        executeAction(
          invocation,
          actionContext({
            doc,
            env: secrets.env,
            bindings: this.env,
            database: db,
            now: () => this.clock.now(),
            redactor: this.redactor,
            kick: (runs) => kickRuns(this.env, runs),
            persist: async (detail) => {
              if (this.stopped) throw new RunStopped();
              await this.put({ [ACTION + invocation.record.key]: { ...invocation.record, detail } });
            },
          }),
        ),
      schema: (name) => db.tenantTx(doc.tenantId, (sql) => resolveSchemaName(sql, name)),
    };
    // Steps read the env with its secrets resolved; the stored document keeps the references.
    const walker = new Walker({ ...doc, env: secrets.env }, await this.journal(), effects);
    let result;
    try {
      result = await walker.walk();
    } catch (e) {
      if (e instanceof RunStopped) return;
      if (e instanceof StorageFailed) throw e;
      // A bug in the walk, an action or its inputs, or a record too large to keep: the run ends, never stuck `running`.
      log.error("workflow run walk failed", { run_id: doc.runId, tenant_id: doc.tenantId, error: this.redactor.text((e as Error).message) });
      await this.closeOpen(db, doc);
      const error = e instanceof RecordTooLarge ? TOO_LARGE : this.redactor.value(internalError(e));
      return this.finish(db, doc, { status: "error", outputs: walker.outputs(), error });
    }
    if (result.status === "suspended") return this.schedule(result.wakeAt);
    return this.finish(db, doc, { status: result.status, outputs: result.outputs, error: result.error });
  }

  /** An action record: stored, then mirrored at its position in its job (a `running` one held for its next). */
  private async record(db: Database, doc: RunDocument, rec: ActionRecord): Promise<void> {
    await this.put({ [ACTION + rec.key]: rec });
    const position = this.position(doc, rec);
    const held = this.held?.rec.key === rec.key ? this.take() : undefined;
    const shown = this.redactor.value(rec);
    if (held) return this.mirror(db, (sql) => mirrorAction(sql, doc, shown, position, [held.status, rec.status]));
    if (rec.status !== "running") return this.mirror(db, (sql) => mirrorAction(sql, doc, shown, position));
    this.release();
    this.held = { db, doc, rec, timer: setTimeout(() => this.release(), HOLD_MS) };
  }

  private take(): ActionRecord | undefined {
    const held = this.held;
    if (!held) return undefined;
    clearTimeout(held.timer);
    this.held = undefined;
    return held.rec;
  }

  /** Mirrors the held `running` record on its own. */
  private release(): void {
    const held = this.held;
    const rec = this.take();
    if (held && rec) this.enqueue(held.db, (sql) => mirrorAction(sql, held.doc, this.redactor.value(rec), this.position(held.doc, rec)));
  }

  private position(doc: RunDocument, rec: ActionRecord): number {
    let job = this.positions.get(rec.jobId);
    if (!job) {
      job = actionPositions(doc.definition.jobs.find((s) => s.id === rec.jobId)?.actions ?? []);
      this.positions.set(rec.jobId, job);
    }
    const position = job.get(rec.key.slice(rec.jobId.length + 1));
    if (position === undefined) throw new Error(`action ${rec.key} has no position in job ${rec.jobId}`);
    return position;
  }

  /** The run's end: kept, its alarm gone, mirrored (unless the row already ended otherwise). */
  private async finish(db: Database, doc: RunDocument, outcome: RunOutcome): Promise<void> {
    if (this.stopped) throw new RunStopped();
    try {
      await this.put({ state: outcome });
    } catch (e) {
      if (!(e instanceof RecordTooLarge)) throw e;
      // The outputs cannot be kept: the run ends `error` without them.
      outcome = { status: "error", error: TOO_LARGE };
      await this.put({ state: outcome });
    }
    const shown = this.redactor.value(outcome);
    await this.mirror(db, (sql) => mirrorOutcome(sql, doc, shown));
    await this.schedule();
  }

  /** The row ended without this object (a cancel it never heard of, the sweep's deadline): take its status. */
  private async adopt(db: Database, doc: RunDocument, status: RunStatus): Promise<void> {
    await this.put({ state: { status } as RunState });
    await this.closeOpen(db, doc);
    await this.schedule();
  }

  /** The run's row is gone (its workflow was deleted): so is everything here. */
  private async forget(): Promise<void> {
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
  }

  /** Steps and actions still open end `cancelled`. */
  private async closeOpen(db: Database, doc: RunDocument): Promise<void> {
    const at = this.clock.now();
    const journal = await this.journal();
    for (const [id, rec] of Object.entries(journal.steps)) {
      if (TERMINAL_STEP.has(rec.status)) continue;
      const closed: StepRecord = { ...rec, status: "cancelled", finishedAt: at };
      await this.put({ [STEP + id]: closed });
      await this.mirror(db, (sql) => mirrorStep(sql, doc, id, this.redactor.value(closed)));
    }
    for (const rec of Object.values(journal.actions)) {
      if (!TERMINAL_STEP.has(rec.status)) await this.record(db, doc, { ...rec, status: "cancelled", until: undefined, finishedAt: at });
    }
  }

  /** One alarm for everything due: the earliest timer, or a re-sync while Postgres lags. */
  private async schedule(wakeAt?: number): Promise<void> {
    const resync = (await this.ctx.storage.get("dirty")) ? this.clock.now() + RETRY_MS : undefined;
    const at = wakeAt === undefined ? resync : resync === undefined ? wakeAt : Math.min(wakeAt, resync);
    if (at === undefined) await this.ctx.storage.deleteAlarm();
    else await this.ctx.storage.setAlarm(at);
  }

  /**
   * Queues a mirror write behind the ones before it, without waiting for it:
   * the record is already kept in storage, so the walk goes on while
   * Postgres catches up, in order (the next action overlaps the last one's
   * round trip instead of following it). A failure is logged and leaves the
   * object dirty, to be re-synced.
   */
  private mirror(db: Database, write: (sql: Sql) => Promise<void>): Promise<void> {
    this.release();
    this.enqueue(db, write);
    return Promise.resolve();
  }

  private enqueue(db: Database, write: (sql: Sql) => Promise<void>): void {
    this.mirrored = this.mirrored
      .then(() => db.system(write))
      .catch(async (e) => {
        log.error("mirroring a workflow run record failed", { error: (e as Error).message });
        await this.markDirty().catch(() => {});
      });
  }

  private markDirty(): Promise<void> {
    return this.put({ dirty: true });
  }

  /** Writes the whole journal (and the end, if any) to Postgres again; clean once it all went through. */
  private async resync(db: Database, doc: RunDocument): Promise<void> {
    const journal = await this.journal();
    const state = await this.state();
    const actions = Object.values(journal.actions).sort((a, b) => (a.startedAt ?? 0) - (b.startedAt ?? 0) || a.key.localeCompare(b.key));
    try {
      await db.system(async (sql) => {
        for (const [id, rec] of Object.entries(journal.steps)) await mirrorStep(sql, doc, id, this.redactor.value(rec));
        for (const rec of actions) await mirrorAction(sql, doc, this.redactor.value(rec), this.position(doc, rec));
        if (isFinished(state)) await mirrorOutcome(sql, doc, this.redactor.value(state as RunOutcome));
      });
      await this.ctx.storage.delete("dirty");
    } catch (e) {
      log.error("re-syncing a workflow run failed", { run_id: doc.runId, error: (e as Error).message });
    }
  }
}
