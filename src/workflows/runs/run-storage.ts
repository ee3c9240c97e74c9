// What a run's object keeps in its own storage, and how: the key layout
// (`doc`, `state`, `step:<job id>`, `action:<action key>`, `event:<seq>`
// (runs/run-events.ts), `ref` and `startTries`), the document loaded once, the journal read back, and writes whose failures are told apart (a fault to resume
// from, a record too large to ever keep). Test seams inject both kinds of
// failure at a chosen write.
import type { Database } from "../../db/client";
import type { Clock } from "../../lib/clock";
import type { ActionRecord, Journal, RunDocument, StepRecord } from "../engine/types";
import { isFinished, loadRun, type RunRef, type RunState } from "./orchestrator";
import { RunEvents, type StatusChange } from "./run-events";

const STEP = "step:";
const ACTION = "action:";
/** The storage API takes at most 128 keys per call. */
const KEYS_PER_CALL = 128;

/** The object's own storage failed: nothing it decides can be kept, so it must not decide the run's end either. */
export class StorageFailed extends Error {}

/** A record over the storage's value limit: writing it again can never succeed, so the run ends `error` instead of resuming. */
export class RecordTooLarge extends Error {}

export class RunStorage {
  /** Test seam: the write this many writes from now fails, as a storage fault would. */
  writesUntilFault?: number;
  /** Test seam: the object is aborted (evicted mid-call) right after this many more writes are kept, durably. */
  writesUntilAbort?: number;

  /** The run's progress events, written with the records whose status they tell. */
  readonly events: RunEvents;

  constructor(
    private readonly ctx: DurableObjectState,
    clock: () => Clock,
  ) {
    this.events = new RunEvents(ctx.storage, () => clock().now());
  }

  /** `changes`: the statuses `entries` set, each logged as an event in the same put when it differs from the kept one. */
  async put(entries: Record<string, unknown>, changes: StatusChange[] = []): Promise<void> {
    if (this.writesUntilFault !== undefined && --this.writesUntilFault <= 0) {
      this.writesUntilFault = undefined;
      throw new StorageFailed("injected storage fault");
    }
    let logged;
    try {
      logged = await this.events.log(changes);
      await this.ctx.storage.put({ ...entries, ...Object.fromEntries(logged) });
    } catch (e) {
      const message = (e as Error).message;
      throw /SQLITE_TOOBIG|too big/i.test(message) ? new RecordTooLarge(message) : new StorageFailed(message);
    }
    this.events.kept(logged);
    if (this.writesUntilAbort !== undefined && --this.writesUntilAbort <= 0) {
      // What was written so far survives the abort, as a crash just after the write would find it.
      await this.ctx.storage.sync();
      this.ctx.abort("injected abort");
    }
  }

  /** `also`: entries written in the same put (the mirror's dirty mark). */
  putStep(id: string, rec: StepRecord, also: Record<string, unknown> = {}): Promise<void> {
    return this.put({ [STEP + id]: rec, ...also }, [{ key: STEP + id, status: rec.status, event: { type: "job", job_id: id } }]);
  }

  putAction(rec: ActionRecord, also: Record<string, unknown> = {}): Promise<void> {
    const event = { type: "action" as const, job_id: rec.jobId, ...(rec.stepId === undefined ? {} : { step_id: rec.stepId }) };
    return this.put({ [ACTION + rec.key]: rec, ...also }, [{ key: ACTION + rec.key, status: rec.status, event }]);
  }

  /** The run's status (and outcome once finished). */
  putState(state: RunState, also: Record<string, unknown> = {}): Promise<void> {
    return this.put({ state, ...also }, [{ key: "state", status: state.status, event: { type: "run" } }]);
  }

  state(): Promise<RunState | undefined> {
    return this.ctx.storage.get<RunState>("state");
  }

  doc(): Promise<RunDocument | undefined> {
    return this.ctx.storage.get<RunDocument>("doc");
  }

  action(key: string): Promise<ActionRecord | undefined> {
    return this.ctx.storage.get<ActionRecord>(ACTION + key);
  }

  async journal(): Promise<Journal> {
    const [steps, actions] = await Promise.all([this.ctx.storage.list<StepRecord>({ prefix: STEP }), this.ctx.storage.list<ActionRecord>({ prefix: ACTION })]);
    return {
      steps: Object.fromEntries([...steps].map(([k, v]) => [k.slice(STEP.length), v])),
      actions: Object.fromEntries([...actions].map(([k, v]) => [k.slice(ACTION.length), v])),
    };
  }

  /** Replaces every step and action record with `journal`'s (a retried run's). */
  async replaceJournal(journal: Journal): Promise<void> {
    const keys = [...(await this.ctx.storage.list({ prefix: STEP })).keys(), ...(await this.ctx.storage.list({ prefix: ACTION })).keys()];
    const kept = [
      ...Object.entries(journal.steps).map(([id, rec]) => [STEP + id, rec] as const),
      ...Object.values(journal.actions).map((rec) => [ACTION + rec.key, rec] as const),
    ];
    for (let i = 0; i < keys.length; i += KEYS_PER_CALL) await this.ctx.storage.delete(keys.slice(i, i + KEYS_PER_CALL));
    for (let i = 0; i < kept.length; i += KEYS_PER_CALL) await this.put(Object.fromEntries(kept.slice(i, i + KEYS_PER_CALL)));
  }

  /**
   * The run's document: stored, or loaded once from Postgres and stored
   * (`claimed`: that load claimed the row); an unknown or finished run
   * answers undefined.
   */
  async loadDoc(db: Database, ref: RunRef): Promise<{ doc: RunDocument; claimed: boolean } | undefined> {
    const stored = await this.doc();
    if (stored) return { doc: stored, claimed: false };
    if (isFinished(await this.state())) return undefined;
    const loaded = await loadRun(db, ref, { claim: true });
    if (!loaded) return undefined;
    await this.putState({ status: "pending" }, { doc: loaded.doc, notBefore: loaded.notBefore });
    return { doc: loaded.doc, claimed: loaded.claimed };
  }

  /** A start that could not reach the database: whom the object runs for, and how many tries it has made (this one included). */
  async startFailed(ref: RunRef): Promise<number> {
    const tries = ((await this.ctx.storage.get<number>("startTries")) ?? 0) + 1;
    await this.ctx.storage.put({ ref, startTries: tries });
    return tries;
  }

  /** A start announced before it is sent (the object is armed): whom the object runs for. */
  armStart(ref: RunRef): Promise<void> {
    return this.ctx.storage.put("ref", ref);
  }

  /** Whom a start that was armed, or failed, was for. */
  pendingStart(): Promise<RunRef | undefined> {
    return this.ctx.storage.get<RunRef>("ref");
  }

  startSucceeded(): Promise<boolean> {
    return this.ctx.storage.delete("startTries");
  }

  /** A run cancelled before it ever started here is retried: it starts as a new one, its events too. */
  async unstart(): Promise<void> {
    await this.ctx.storage.delete("state");
    await this.events.clear();
  }

  /** Everything the run kept, and its alarm, gone (its row was deleted with its workflow). */
  async forget(): Promise<void> {
    await this.ctx.storage.deleteAlarm();
    await this.ctx.storage.deleteAll();
  }
}
