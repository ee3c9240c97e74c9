// The Postgres mirror of one run, owned by its object (durable-objects/
// workflow-run.ts): every record the object keeps is queued here after it is
// kept and written to the run tables in order, without the walk waiting for
// each write. Postgres is written ahead of being trusted: each record is kept
// together with the `dirty` mark (`mark()`), and the mark is removed only
// once Postgres acknowledged every write queued up to then. An object that
// dies with writes in flight therefore wakes dirty, and `resync` writes the
// whole journal (and the end, if any) again.
import type { Database, Sql } from "../../db/client";
import { log } from "../../lib/logger";
import { Redactor } from "../../lib/redact";
import { actionPositions } from "../engine/positions";
import type { ActionRecord, Journal, RunDocument, StepRecord } from "../engine/types";
import { isFinished, mirrorAction, mirrorOutcome, mirrorStep, type RunOutcome, type RunRef, type RunState } from "./orchestrator";

/** How long a `running` record may wait to be mirrored together with the record that follows it. */
const HOLD_MS = 25;
/** The storage key present while Postgres lags behind the object's storage. */
export const DIRTY = "dirty";

interface Held {
  db: Database;
  doc: RunDocument;
  job?: { id: string; rec: StepRecord };
  action?: ActionRecord;
  timer: ReturnType<typeof setTimeout>;
}

export class RunMirror {
  /**
   * The credentials this walk resolved or obtained: every record mirrored to
   * Postgres and every error logged passes through it. The object replaces it
   * per walk (the secrets are resolved again, so a rotation applies to the next walk).
   */
  redactor = new Redactor();
  /** The writes queued so far, in order. */
  private queue: Promise<void> = Promise.resolve();
  /**
   * `running` records kept in storage but not yet mirrored: a job's, which
   * goes to Postgres with its first action's record in one statement, and an
   * action's, which goes with that action's next record. What is held is
   * written as soon as anything else is mirrored or HOLD_MS pass (a long
   * action shows `running` meanwhile).
   */
  private held?: Held;
  private readonly positions = new Map<string, Map<string, number>>();
  /** Records kept with the mark whose writes Postgres has not acknowledged yet. */
  private pending = 0;
  /** A write failed since the last re-sync: the mark stays until a re-sync goes through. */
  private failed = false;

  constructor(private readonly storage: DurableObjectStorage) {}

  /**
   * Keeps a record with the dirty mark in the same put, then queues its
   * mirror write (`mirror`: one `step`, `action` or `outcome` call); the
   * mark is taken back if nothing gets queued.
   */
  async keep(put: (mark: Record<string, true>) => Promise<void>, mirror: () => void): Promise<void> {
    this.pending++;
    try {
      await put({ [DIRTY]: true });
      mirror();
    } catch (e) {
      this.pending--;
      throw e;
    }
  }

  /** Postgres trails storage: a write failed, or a marked record is not acknowledged yet. */
  get lagging(): boolean {
    return this.failed || this.pending > 0;
  }

  /** A job record; a `running` one is held for its first action's. */
  step(db: Database, doc: RunDocument, id: string, rec: StepRecord): void {
    if (rec.status === "running") return this.hold({ db, doc, job: { id, rec } });
    this.write(db, 1, (sql) => mirrorStep(sql, doc, id, this.redactor.value(rec)));
  }

  /** An action record at its position in its job, with its job's held `running` record; a `running` one is held for its next. */
  action(db: Database, doc: RunDocument, rec: ActionRecord): void {
    // An action without a position throws here, before anything held is taken.
    const position = this.position(doc, rec);
    const held = this.held;
    // What is held goes with this record when it is this action's `running`, or (nothing else held) its job's.
    const joins = held !== undefined && (held.action ? held.action.key === rec.key : held.job?.id === rec.jobId);
    if (joins) this.take();
    else this.release();
    const job = joins ? held.job : undefined;
    const running = joins ? held.action : undefined;
    if (rec.status === "running" && !running) return this.hold({ db, doc, job, action: rec });
    const statuses = running ? [running.status, rec.status] : [rec.status];
    this.enqueue(db, 1 + (job ? 1 : 0) + (running ? 1 : 0), this.actionWrite(doc, rec, position, statuses, job?.rec));
  }

  outcome(db: Database, run: RunRef, outcome: RunOutcome): void {
    const shown = this.redactor.value(outcome);
    this.write(db, 1, (sql) => mirrorOutcome(sql, run, shown));
  }

  /** Sends what is held and waits for every queued write: before the connection they use closes. */
  async flush(): Promise<void> {
    this.release();
    await this.queue;
  }

  isDirty(): Promise<boolean> {
    return this.storage.get<boolean>(DIRTY).then((dirty) => dirty === true);
  }

  /** A write to Postgres failed (the mirror's own or the object's): dirty until a re-sync goes through. */
  markDirty(): Promise<void> {
    this.failed = true;
    return this.storage.put(DIRTY, true);
  }

  /** Writes the whole journal (and the end, if any) to Postgres again; clean once it all went through. */
  async resync(db: Database, doc: RunDocument, journal: Journal, state: RunState | undefined): Promise<void> {
    const actions = Object.values(journal.actions).sort((a, b) => (a.startedAt ?? 0) - (b.startedAt ?? 0) || a.key.localeCompare(b.key));
    try {
      await db.system(async (sql) => {
        for (const [id, rec] of Object.entries(journal.steps)) await mirrorStep(sql, doc, id, this.redactor.value(rec));
        for (const rec of actions) await mirrorAction(sql, doc, this.redactor.value(rec), this.position(doc, rec));
        if (isFinished(state)) await mirrorOutcome(sql, doc, this.redactor.value(state));
      });
      this.failed = false;
      await this.acknowledge(0);
    } catch (e) {
      log.error("re-syncing a workflow run failed", { run_id: doc.runId, error: (e as Error).message });
    }
  }

  /** `records`: how many marked records the write carries. */
  private write(db: Database, records: number, write: (sql: Sql) => Promise<void>): void {
    this.release();
    this.enqueue(db, records, write);
  }

  /** A failure is logged and leaves the object dirty, to be re-synced. */
  private enqueue(db: Database, records: number, write: (sql: Sql) => Promise<void>): void {
    this.queue = this.queue
      .then(() => db.system(write))
      .then(
        () => this.acknowledge(records),
        async (e) => {
          log.error("mirroring a workflow run record failed", { error: (e as Error).message });
          this.pending -= records;
          await this.markDirty().catch(() => {});
        },
      );
  }

  /** `records` more are in Postgres: clean once nothing marked is outstanding and nothing failed. */
  private async acknowledge(records: number): Promise<void> {
    this.pending -= records;
    // Decided before the delete is issued: a later mark's put is issued after it, so that mark is never lost.
    if (!this.lagging) await this.storage.delete(DIRTY).catch(() => {});
  }

  private hold(held: Omit<Held, "timer">): void {
    this.release();
    this.held = { ...held, timer: setTimeout(() => this.release(), HOLD_MS) };
  }

  private take(): Held | undefined {
    const held = this.held;
    if (held) clearTimeout(held.timer);
    this.held = undefined;
    return held;
  }

  /** Mirrors what is held as it is, in one statement. */
  private release(): void {
    const held = this.take();
    if (!held) return;
    const { db, doc, job, action } = held;
    if (action) this.enqueue(db, job ? 2 : 1, this.actionWrite(doc, action, this.position(doc, action), [action.status], job?.rec));
    else if (job) this.enqueue(db, 1, (sql) => mirrorStep(sql, doc, job.id, this.redactor.value(job.rec)));
  }

  /** The statement of an action record (with its job's, if given), masked by the walk's redactor now. */
  private actionWrite(doc: RunDocument, rec: ActionRecord, position: number, statuses: string[], job?: StepRecord): (sql: Sql) => Promise<void> {
    const shown = this.redactor.value(rec);
    const jobShown = job && this.redactor.value(job);
    return (sql) => mirrorAction(sql, doc, shown, position, statuses, jobShown);
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
}
