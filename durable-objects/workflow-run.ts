// One workflow run, addressed by its run id: it loads what the run executes
// once, walks it (engine/walk.ts) and keeps every record the walk makes in
// its own storage before the walk acts on it, so a walk resumed after a
// crash, an alarm or an input replays what was recorded and executes only
// what never finished. Postgres mirrors the records for the runs API
// (runs/mirror.ts); its one alarm keeps watch while it works, so a crash
// resumes the run within seconds (runs/run-watch.ts); what arrives from
// outside is admitted by runs/admission.ts; callers reach the object through
// runs/run-client.ts.
//
// Storage keys: `doc` (the RunDocument), `state` (the run's status, and its
// outputs and error once finished), `notBefore` (epoch ms the run may start
// at), `step:<job id>` (StepRecord), `action:<action key>` (ActionRecord),
// `event:<seq>` (a status change, for the run's event streams:
// runs/run-events.ts), `dirty` (the mark kept with every record to be
// mirrored, removed once Postgres acknowledged it), `ref` and `startTries` (a
// start waiting to reach the database again).
import { DurableObject } from "cloudflare:workers";
import { Database, tenantDb } from "../src/db/client";
import { backoffDelay } from "../src/lib/backoff";
import { systemClock, type Clock } from "../src/lib/clock";
import { ApiError, errorValue, type ErrorValue } from "../src/lib/errors";
import { log } from "../src/lib/logger";
import { Redactor } from "../src/lib/redact";
import { resolveEnvSecrets } from "../src/access/secrets/env-secrets";
import { closedRecords, type ClosedRecords } from "../src/workflows/engine/close";
import { journalForRedrive, journalForRetry } from "../src/workflows/engine/retry";
import { concealedIn, errorsContinued, type ActionRecord, type Journal, type RunDocument, type StepRecord } from "../src/workflows/engine/types";
import { Walker } from "../src/workflows/engine/walk";
import { admitDelivery, admitInput, cancellation } from "../src/workflows/runs/admission";
import { RunMirror } from "../src/workflows/runs/mirror";
import type { Following, RunRow } from "../src/workflows/runs/run-events";
import { runEffects, RunStopped } from "../src/workflows/runs/run-effects";
import { claimRun, isFinished, loadRun, retryRequest, runStatus, type RunOutcome, type RunRef } from "../src/workflows/runs/orchestrator";
import type { RunStatus } from "../src/workflows/runs/record";
import { RecordTooLarge, RunStorage, StorageFailed } from "../src/workflows/runs/run-storage";
import { RESUME_MS, RETRY_MS, RunWatch } from "../src/workflows/runs/run-watch";

/** A start that found the database unreachable tries again by the back-off between these. */
const START_RETRY = { initialMs: 1_000, maxMs: 30_000 };

const TOO_LARGE = errorValue(
  "UNPROCESSABLE_ENTITY",
  "A record of the run (a step's input or output, or the run's outputs) is over the 2 MB a run may keep; move large data as temp files",
);

export class WorkflowRun extends DurableObject<Env> {
  /** Set by `cancel` at once, before it waits its turn, so a walk in flight stops at its next record. */
  private stopped = false;
  /** The run's records (tests reach its write seams here). */
  readonly store: RunStorage;
  private readonly mirror: RunMirror;
  private readonly watch: RunWatch;

  /** The runtime passes only `ctx` and `env`; tests set the clock to the time they need. */
  constructor(
    ctx: DurableObjectState,
    env: Env,
    public clock: Clock = systemClock,
  ) {
    super(ctx, env);
    this.store = new RunStorage(ctx, () => this.clock);
    this.mirror = new RunMirror(ctx.storage);
    this.watch = new RunWatch(
      ctx.storage,
      () => this.clock,
      () => this.mirror.lagging,
    );
  }

  /** A call's work (runs/run-watch.ts), with a connection of its own: sockets do not outlive the call, and every mirror write is sent before it closes. */
  private withDatabase<T>(fn: (db: Database) => Promise<T>): Promise<T> {
    const db = new Database(this.env.DATABASE_URL, this.env.NEON_WS_PROXY);
    return this.watch.work(
      () => fn(db),
      () => this.mirror.flush().then(() => db.close()),
    );
  }

  /** Starts the run, or walks it on if it started already (a kick is idempotent). */
  start(tenantId: string, runId: string): Promise<void> {
    return this.watch.serial(() => this.started({ tenantId, runId }));
  }

  /**
   * Called before the route that created the run answers, ahead of the
   * kick: the object keeps whom it runs for under an alarm RESUME_MS ahead,
   * so a start lost with the process (the kick is sent after the answer)
   * happens by that alarm within seconds of the object being reachable again.
   */
  async arm(tenantId: string, runId: string): Promise<void> {
    if (await this.store.doc()) return;
    await this.store.armStart({ tenantId, runId });
    if ((await this.ctx.storage.getAlarm()) === null) await this.ctx.storage.setAlarm(this.clock.now() + RESUME_MS);
  }

  /** A start that cannot reach the database is not lost: the object keeps whom it runs for and tries again by its alarm. */
  private async started(ref: RunRef): Promise<void> {
    try {
      await this.withDatabase(async (db) => {
        const loaded = await this.store.loadDoc(db, ref);
        if (!loaded) return;
        const { doc, claimed } = loaded;
        // A finished run whose row is pending again was retried, and the retry's own call never arrived.
        if (isFinished(await this.store.state()) && (await runStatus(db, doc)) === "pending") return this.rerun(db, doc);
        await this.advance(db, doc, claimed);
      });
      await this.store.startSucceeded();
    } catch (e) {
      if (!(e instanceof ApiError && e.code === "SERVICE_UNAVAILABLE")) throw e;
      const tries = await this.store.startFailed(ref);
      log.error("starting a workflow run could not reach the database; trying again", { run_id: ref.runId, tries, error: e.message });
      await this.ctx.storage.setAlarm(this.clock.now() + backoffDelay(tries, START_RETRY.initialMs, START_RETRY.maxMs));
    }
  }

  override async alarm(): Promise<void> {
    if (await this.watch.watching()) return;
    await this.watch.serial(async () => {
      const doc = await this.store.doc();
      if (doc) return this.withDatabase((db) => this.advance(db, doc));
      const ref = await this.store.pendingStart();
      if (ref) await this.started(ref);
    });
  }

  /** Answers the `awaitInput` action `stepId` waits for with `data`, then walks on; undefined when taken. */
  input(tenantId: string, runId: string, stepId: string, data: unknown): Promise<ErrorValue | undefined> {
    return this.watch.serial(async () => {
      const [doc, journal, state] = await Promise.all([this.store.doc(), this.store.journal(), this.store.state()]);
      const admitted = admitInput(doc, journal, state, { tenantId, runId }, stepId, data, this.clock.now());
      if ("refused" in admitted) return admitted.refused;
      await this.withDatabase(async (db) => {
        await this.record(db, doc!, admitted.write);
        await this.advance(db, doc!);
      });
      return undefined;
    });
  }

  /**
   * Opens an event stream of the run (runs/run-events.ts), outside the
   * queue of calls: a stream waits for the walk, never the other way round.
   * `row`: the run's row as the route read it, in the caller's tenant.
   */
  async follow(tenantId: string, runId: string, row: RunRow): Promise<Following> {
    const doc = await this.store.doc();
    if (doc && doc.tenantId !== tenantId) return { refused: errorValue("NOT_FOUND", `Workflow run ${runId} not found`) };
    return this.store.events.follow(row);
  }

  /** Hands an httpCallback's callback to the action waiting in `attempt`, due at once: its next execution decides its outcome. */
  deliver(tenantId: string, runId: string, key: string, attempt: number, payload: unknown): Promise<ErrorValue | undefined> {
    return this.watch.serial(async () => {
      const [doc, rec, state] = await Promise.all([this.store.doc(), this.store.action(key), this.store.state()]);
      const admitted = admitDelivery(doc, rec, state, { tenantId, runId }, key, attempt, payload, this.clock.now());
      if ("refused" in admitted) return admitted.refused;
      await this.store.putAction(admitted.write);
      await this.withDatabase((db) => this.advance(db, doc!));
      return undefined;
    });
  }

  /** Stops the run: its open steps and actions cancelled, then the run `cancelled`, its alarm gone. The caller has already moved the run's row. */
  cancel(_tenantId: string, _runId: string): Promise<void> {
    this.stopped = true;
    return this.watch.serial(async () => {
      try {
        const [doc, journal] = await Promise.all([this.store.doc(), this.store.journal()]);
        const { state, ...closed } = cancellation(doc, journal, this.clock.now());
        const outcome: RunOutcome = { ...state, errorsContinued: errorsContinued(journal) };
        await this.ctx.storage.deleteAlarm();
        // The run's end is kept last: an event stream closes at it, after the events of what it closed.
        if (!doc) await this.store.putState(outcome);
        else
          await this.withDatabase(async (db) => {
            await this.writeClosed(db, doc, closed);
            // The row is cancelled already: of this outcome only the count is written.
            await this.keepOutcome(db, doc, outcome);
          });
      } finally {
        this.stopped = false;
      }
    });
  }

  /** The sweep's repair: the whole record written again from the journal, finished or not, then walked on; a run never started here is left alone. */
  resync(_tenantId: string, _runId: string): Promise<void> {
    return this.watch.serial(async () => {
      const doc = await this.store.doc();
      if (doc)
        await this.withDatabase(async (db) => {
          await this.secrets(db, doc, true);
          await this.advance(db, doc);
        });
    });
  }

  /** Runs a finished run again in place (its row is `pending` again). */
  retry(tenantId: string, runId: string): Promise<void> {
    return this.watch.serial(() =>
      this.withDatabase(async (db) => {
        const stored = await this.store.doc();
        if (stored) return this.rerun(db, stored);
        // Never started here (cancelled while pending): start it as a kick would.
        await this.store.unstart();
        const loaded = await this.store.loadDoc(db, { tenantId, runId });
        if (loaded) await this.advance(db, loaded.doc, loaded.claimed);
      }),
    );
  }

  /**
   * Runs the run again as its retry asked (kept on its row): with `config:
   * current` the activation's env and job bindings are read again (the
   * definition version stays); with `from_step` that step and its dependents
   * are forgotten; else each step's rerunPolicy decides what of the journal
   * stays, and an `abort` ends the retried run `skipped`.
   */
  private async rerun(db: Database, stored: RunDocument): Promise<void> {
    const request = await retryRequest(db, stored);
    let doc = stored;
    if (request?.config === "current") {
      let loaded;
      try {
        loaded = await loadRun(db, stored, { claim: false });
      } catch (e) {
        // A step bound to no job now: the retried run cannot execute.
        if (!(e instanceof ApiError) || e.status >= 500) throw e;
        return this.finish(db, stored, { status: "error", error: e.value });
      }
      // The row moved on meanwhile (a cancel): its next walk adopts that.
      if (!loaded) return this.advance(db, stored);
      doc = { ...stored, env: loaded.doc.env, definition: loaded.doc.definition };
      await this.store.put({ doc });
    }
    const prior = await this.store.journal();
    const { journal, abort } =
      request?.from_step === undefined ? journalForRetry(doc, prior) : { journal: journalForRedrive(doc, prior, request.from_step), abort: false };
    if (abort) return this.finish(db, doc, { status: "skipped" });
    await this.store.replaceJournal(journal);
    await this.store.putState({ status: "pending" });
    await this.advance(db, doc);
  }

  /** Moves the run as far as it can: waits for its start time, claims its row (unless `claimed` by the load just made), walks. */
  private async advance(db: Database, doc: RunDocument, claimed = false): Promise<void> {
    const state = await this.store.state();
    if (isFinished(state)) {
      if (await this.mirror.isDirty()) await this.secrets(db, doc, true);
      return this.watch.schedule();
    }
    // A row the load just claimed was due by Postgres's clock, whatever this object's says.
    const notBefore = claimed ? 0 : ((await this.ctx.storage.get<number>("notBefore")) ?? 0);
    if (notBefore > this.clock.now()) return this.watch.schedule(notBefore);
    const row = claimed ? "running" : await this.claim(db, doc);
    // The run's row is gone (its workflow was deleted): so is everything here.
    if (row === null) return this.store.forget();
    if (row !== undefined && row !== "running") return this.adopt(db, doc, row);
    try {
      if (state?.status !== "running") await this.store.putState({ status: "running" });
      await this.walk(db, doc);
    } catch (e) {
      if (!(e instanceof StorageFailed)) throw e;
      // Nothing more can be kept now: resume from what was kept, by the alarm or else the sweep.
      log.error("workflow run storage failed; resuming later", { run_id: doc.runId, error: e.message });
      this.watch.schedule(this.clock.now() + RETRY_MS);
    }
  }

  /** The row moved to `running` (or the end someone else gave it); undefined when Postgres could not be reached, the run going on from storage. */
  private async claim(db: Database, doc: RunDocument): Promise<RunStatus | null | undefined> {
    try {
      return await claimRun(db, doc);
    } catch (e) {
      // Postgres is the mirror: the run goes on from storage and the row catches up later.
      log.error("claiming a workflow run's row failed", { run_id: doc.runId, error: (e as Error).message });
      await this.mirror.markDirty();
      return undefined;
    }
  }

  /**
   * Resolves the run's secrets again (everything mirrored or logged from now
   * on is masked by them, and by what the journal's records computed from
   * them); `resync`: writes the whole journal again first. Answers the
   * journal it read with them.
   */
  private async secrets(db: Database, doc: RunDocument, resync: boolean): Promise<{ env: Record<string, unknown>; journal: Journal }> {
    const [secrets, journal] = await Promise.all([resolveEnvSecrets(tenantDb(db, doc.tenantId), this.env.MASTER_KEY, doc.env), this.store.journal()]);
    this.mirror.redactor = new Redactor([...secrets.values, ...concealedIn(journal)]);
    if (resync) await this.mirror.resync(db, doc, journal, await this.store.state());
    return { env: secrets.env, journal };
  }

  private async walk(db: Database, doc: RunDocument): Promise<void> {
    const secrets = await this.secrets(db, doc, await this.mirror.isDirty());
    const redactor = this.mirror.redactor;
    const effects = runEffects({
      db,
      doc,
      env: secrets.env,
      bindings: this.env,
      clock: this.clock,
      redactor,
      background: this.ctx,
      stopped: () => this.stopped,
      recordStep: (id, rec) => this.step(db, doc, id, rec),
      recordAction: (rec) => this.record(db, doc, rec),
      keepAction: (rec) => this.store.putAction(rec),
    });
    // Steps read the env with its secrets resolved; the stored document keeps the references.
    const walker = new Walker({ ...doc, env: secrets.env }, secrets.journal, effects);
    let result;
    try {
      result = await walker.walk();
    } catch (e) {
      if (e instanceof RunStopped) return;
      if (e instanceof StorageFailed) throw e;
      // A bug in the walk, an action or its inputs, or a record too large to keep: the run ends, never stuck `running`.
      log.error("workflow run walk failed", { run_id: doc.runId, tenant_id: doc.tenantId, error: redactor.text((e as Error).message) });
      await this.writeClosed(db, doc, closedRecords(doc.definition.jobs, await this.store.journal(), this.clock.now()));
      const error = e instanceof RecordTooLarge ? TOO_LARGE : redactor.value(errorValue("INTERNAL_ERROR", e instanceof Error ? e.message : String(e)));
      return this.finish(db, doc, { status: "error", outputs: walker.outputs(), error, errorsContinued: walker.errorsContinued() });
    }
    if (result.status === "suspended") return this.watch.schedule(result.wakeAt);
    return this.finish(db, doc, { status: result.status, outputs: result.outputs, error: result.error, errorsContinued: walker.errorsContinued() });
  }

  /** An action record: kept, then mirrored. */
  private record(db: Database, doc: RunDocument, rec: ActionRecord): Promise<void> {
    return this.mirror.keep(
      (mark) => this.store.putAction(rec, mark),
      () => this.mirror.action(db, doc, rec),
    );
  }

  private step(db: Database, doc: RunDocument, id: string, rec: StepRecord): Promise<void> {
    return this.mirror.keep(
      (mark) => this.store.putStep(id, rec, mark),
      () => this.mirror.step(db, doc, id, rec),
    );
  }

  /** The run's end: kept, its alarm gone, mirrored (unless the row already ended otherwise). */
  private async finish(db: Database, doc: RunDocument, outcome: RunOutcome): Promise<void> {
    if (this.stopped) throw new RunStopped();
    try {
      await this.keepOutcome(db, doc, outcome);
    } catch (e) {
      if (!(e instanceof RecordTooLarge)) throw e;
      // The outputs cannot be kept: the run ends `error` without them.
      await this.keepOutcome(db, doc, { status: "error", error: TOO_LARGE, errorsContinued: outcome.errorsContinued });
    }
    this.watch.schedule();
  }

  private keepOutcome(db: Database, doc: RunDocument, outcome: RunOutcome): Promise<void> {
    return this.mirror.keep(
      (mark) => this.store.putState(outcome, mark),
      () => this.mirror.outcome(db, doc, outcome),
    );
  }

  /** The row ended without this object (a cancel it never heard of, the sweep's deadline): close what was open, then take its status. */
  private async adopt(db: Database, doc: RunDocument, status: RunStatus): Promise<void> {
    const journal = await this.store.journal();
    const outcome = { status, errorsContinued: errorsContinued(journal) } as RunOutcome;
    await this.writeClosed(db, doc, closedRecords(doc.definition.jobs, journal, this.clock.now()));
    await this.keepOutcome(db, doc, outcome);
    this.watch.schedule();
  }

  /** Keeps and mirrors the closed records of what was still open, masked by the run's secrets (a cancel may be this object's first call since a restart). */
  private async writeClosed(db: Database, doc: RunDocument, closed: ClosedRecords): Promise<void> {
    await this.secrets(db, doc, false);
    for (const [id, rec] of closed.steps) await this.step(db, doc, id, rec);
    for (const rec of closed.actions) await this.record(db, doc, rec);
  }
}
