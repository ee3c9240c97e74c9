// How a run's object takes its calls and keeps its one alarm. Calls and
// alarms act one at a time (a walk never overlaps another). While a call
// works, the alarm stands RESUME_MS ahead: an object that dies anywhere in
// a call (a crash, an eviction) is woken by it within seconds of being
// reachable again, instead of waiting for the sweep. Once the call is done
// (its mirror writes sent), the alarm becomes what the run waits for: the
// earliest timer it decided, a re-sync while Postgres lags, or none.
import type { Clock } from "../../lib/clock";

/** How soon a lagging mirror is written again, and a call cut short by a fault retried. */
export const RETRY_MS = 30_000;
/** The alarm held while a call works. */
export const RESUME_MS = 5_000;

export class RunWatch {
  private queue: Promise<unknown> = Promise.resolve();
  /** Calls queued or at work: while there are any, they keep the alarm themselves. */
  private busy = 0;
  /** When the run must next wake on its own, as the current call decided. */
  private wake?: number;

  constructor(
    private readonly storage: DurableObjectStorage,
    private readonly clock: () => Clock,
    /** Whether Postgres trails the object's storage. */
    private readonly lagging: () => boolean,
  ) {}

  serial<T>(fn: () => Promise<T>): Promise<T> {
    this.busy++;
    const run = this.queue.then(fn, fn).finally(() => this.busy--);
    this.queue = run.catch(() => {});
    return run;
  }

  /** An alarm while calls are at work only keeps watch (true); otherwise the alarm is the object's to act on. */
  async watching(): Promise<boolean> {
    if (!this.busy) return false;
    await this.storage.setAlarm(this.clock().now() + RESUME_MS);
    return true;
  }

  /**
   * A call's work, under the alarm RESUME_MS ahead; `after` (sending its
   * mirror writes) runs once it ended, then the alarm becomes what the run
   * waits for. Work that threw is tried again RETRY_MS later.
   */
  async work<T>(fn: () => Promise<T>, after: () => Promise<void>): Promise<T> {
    this.wake = undefined;
    await this.storage.setAlarm(this.clock().now() + RESUME_MS);
    let completed = false;
    try {
      const result = await fn();
      completed = true;
      return result;
    } finally {
      await after();
      await this.settle(completed);
    }
  }

  /** When the run must wake on its own (a timer it waits for); none when only a call can move it. */
  schedule(wakeAt?: number): void {
    this.wake = wakeAt;
  }

  private async settle(completed: boolean): Promise<void> {
    const now = this.clock().now();
    const wakeAt = completed ? this.wake : now + RETRY_MS;
    const resync = this.lagging() ? now + RETRY_MS : undefined;
    const at = wakeAt === undefined ? resync : resync === undefined ? wakeAt : Math.min(wakeAt, resync);
    if (at === undefined) await this.storage.deleteAlarm();
    else await this.storage.setAlarm(at);
  }
}
